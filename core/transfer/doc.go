// Package transfer owns what both ends of a Ferry transfer share once
// its connection is secure: the errors a session ends with and their
// kinds, the limits every peer must respect, the link (reading messages
// in the order core/wire's protocol table allows, the silence allowed,
// the peer's abort), the emitter that delivers events in order, the
// progress meter and the BLAKE3 hasher's use, and the checks of an
// offer's paths (ValidateEntries). The two sessions stand on it, each in
// a package of its own: core/send (Send, SendMany: the sender's
// offer, the files it streams, several receivers at once) and
// core/receive (NewReceiver, Serve, ServeMany, ServeConn: the
// receiver's handshakes and guess budget, its answer, the files it
// places, several senders at once). Neither session imports the other;
// this package imports neither. The messages themselves, their bytes
// and the table of who sends what when are core/wire's; placing files
// on disk is core/place's, the guess budget core/guess's, the BLAKE3
// hasher core/filehash's, dialing a receiver and binding a port
// core/dial's, the progress meter core/progress's, and the reads that
// the sessions of one send.SendMany share core/fanout's. The exported
// helpers beyond the sentinel errors, the limits and Listen (Link,
// Emitter, Meter, ...) are for the two session packages only; a front
// end uses neither them nor this package, but core/app.
//
// This doc states what both ends promise, together; each session's
// package doc adds what is its own.
//
// # Promises
//
//   - One TCP connection carries one transfer of any number of entries.
//     Files stream back to back: there is no round trip per file.
//   - Every file is hashed with BLAKE3-256 on both ends as it streams. The
//     receiver writes into a hidden partial folder (<dest>/.ferry-partial)
//     and moves a file to its final name, with the sender's modification
//     time and its permission bits less the receiver's umask (see Modes),
//     only when the hashes match. On Linux a new file that comes in one
//     chunk is written there without a name (O_TMPFILE) and linked to its
//     final name instead; closed unplaced, it gets its partial name. Send returns success only after the
//     receiver confirmed every entry.
//   - Before its person accepts, a receiver tells a sender nothing about
//     its files or disk but one bit where the protocol needs it: an offer
//     that does not fit, or that lands on a symlink, is refused as "not
//     enough space" or "cannot be written here", the figures and names
//     kept for the receiver's own error. After accepting, it says which
//     files of the offered size it has, and which of those are identical
//     to the sender's (see Skip); it never sends a hash of its own file,
//     only of a partial file that the same sender wrote (see Resume).
//   - The receiver writes only inside its destination, through os.Root,
//     after checking every path (core/place: CheckPath), never through a symlink,
//     never overwriting unless configured to.
//   - A cancelled context, on either end, reaches the other end as an
//     Abort with a reason (a context.WithCancelCause cause is that
//     reason). A peer that stays silent longer than the timeout (default
//     30s) ends the transfer with ErrTimeout; both ends send keepalives
//     when they have flushed nothing for a quarter of it (measured from
//     the last flush, so that three quarters are left for delays),
//     including while a person decides and while a large file is hashed.
//   - Memory is bounded whatever the sizes: one chunk buffer and one hash
//     state per end (per session, on a receiver that runs several), the
//     secure stream's fixed buffers, and the manifest (at most
//     MaxManifestBytes encoded, MaxEntries entries). Moving a
//     chunk allocates nothing on either end: BLAKE3 runs on the caller's
//     goroutine over fixed buffers (see core/filehash).
//   - Events are delivered in order, never concurrently.
//
// # Events
//
// The engine's events are the schema's types (core/app/event). They are
// delivered by calling the configured func from the transfer's
// goroutine, in order; a handler must not block for long (the GUI hands
// them to fyne.Do, the CLI prints). What each end emits:
//
//   - event.Connected: the handshake succeeded; the peer is who it says
//     it is. WrongCodes (receiver, code mode) is how many wrong codes
//     this receiver checked since its last transfer made with a code (or
//     since it started) before this sender's code proved right: not
//     zero, the sender may be a guesser who got lucky, and a front end
//     never pins its key without saying so in the question.
//   - event.Offer (receiver): an offer arrived and waits for Accept or
//     Decline (AcceptSession, DeclineSession with several open at once),
//     unless the policy answers it.
//   - event.Accepted (sender), By event.ByPeer: the receiver accepted;
//     TotalBytes is the number of bytes that will actually cross (skips
//     and resumes already taken off).
//   - event.Progress, at most a few times a second while bytes move.
//   - event.EntryDone: one entry is verified and in place (or skipped).
//   - event.Text (receiver): a text snippet arrived; it is not saved
//     unless the receiver was configured to save texts.
//   - event.CodeChanged (receiver): the code a sender must type changed
//     (CodeRetired after too many wrong codes, CodeUsed after a
//     transfer made with a code the receiver picked, CodeRenewed by
//     receive.Receiver.NewCode).
//   - event.CodesHeld (receiver): after too many wrong codes the
//     receiver checks none before Until; a sender that tries sooner,
//     with any code, is told secure.ErrCodesHeld and may try again
//     later. Wrong counts the wrong codes checked on the device
//     (core/guess's count, which no start resets).
//     Emitted after each wrong code that is past the free ones, so at
//     most as often as the guess budget allows.
//   - event.CodeLonger (receiver): the code is longer than 6 digits
//     because 12 or 24 wrong codes were tried on the device
//     (core/guess's Digits). Emitted as a Receiver first serves with
//     such a code, and whenever a code of another length follows.
//   - event.CodesStopped (receiver): the guess budget is spent. No code
//     is checked until a person asks for a new one (receive.Receiver.NewCode) or
//     starts the receiver by hand (guess.Config.ByPerson); every sender
//     with a code is told secure.ErrCodesHeld. Paired senders are still
//     served. Emitted by the wrong code that spends the budget, and, for
//     a budget that a Receiver was given spent (kept from before a
//     restart, or a damaged record), once as that Receiver first serves.
//     A front end says what happened and how to go on (ErrCodesStopped
//     is the error to end with).
//   - event.Refused (receiver): a sender asked for a transfer without a
//     code and the paired-mode handshake refused it, or asked with a code
//     a receiver that takes paired senders only (CodesOff); Serve goes on
//     waiting. The sender was told too (secure.ErrNotPaired,
//     secure.ErrKeyChanged or secure.ErrNoCodes). Nothing else is a
//     refusal: wrong codes are counted (see CodeChanged), and a
//     connection that fails for any other reason (a port scan, another
//     version, a stall) is closed unreported. A refusal costs a sender a
//     few bytes, so a flood is reported in part: at most 4 at once, then
//     one a second; Dropped counts those left out since the last one
//     reported. The engine sets Reason, Addr, Dropped, Err and, for
//     NotTrusted, PeerFingerprint and PeerKey; it leaves the words to
//     core/app.
//   - event.Unproven (sender on send.SendConfig.Listener): a connection ended
//     before its peer proved the code, and Send waits for the next (see
//     send.SendConfig.Listener for what counts as a guess). At Allowed, Send
//     stops with ErrCodesStopped.
//   - event.Diag, every few seconds when diagnostics are on: this end's
//     stage split over the last interval.
//   - event.Done: the transfer is complete and every entry was
//     confirmed; the engine sets Summary and Session only.
//   - event.Error: the transfer ended without completing; Err wraps one
//     of the package's sentinel errors where one applies, and Session is
//     0 when the failure is the receiver's own (Serve's listener, a
//     handshake that ServeConn ran). The engine sets Err and Session
//     only.
//
// A receiver's events of one session carry its id (event.SessionOf): 1,
// 2, 3 ... in the order the sessions passed their handshakes on this
// Receiver (every Serve, ServeMany and ServeConn counted); the receiver's
// own events and every event of a sender carry 0.
//
// # Other connections
//
// receive.Receiver.ServeConn runs one session (handshake and transfer) on a
// connection accepted or opened elsewhere, such as a browser's WebSocket
// wrapped as a net.Conn, under the same code, attempt limit and guess
// budget as Serve, refused as busy while another session or Serve runs
// (with MaxConcurrent above 1: while as many sessions run).
// receive.ReceiverConfig.Listener gives Serve such connections among its own
// (core/web's Mux is one that merges them with TCP), and
// receive.ReceiverConfig.NoListen makes a receiver that binds nothing. A sender
// on a connection it did not dial (a desktop sending to a page that
// connected to it) returns that connection from send.SendConfig.Dialer: the
// sender is always the handshake's initiator. A sender that serves a
// page anyone on the network can load sets send.SendConfig.Listener instead:
// then the peer cannot be trusted to report a wrong code, so every
// connection that got message 3 and did not answer with a record under
// the code counts as a wrong guess, and Send stops after
// send.MaxListenerGuesses (Unproven events, ErrCodesStopped). Receivers and
// senders tell a connection that asks (a page's WebSocket: Proven) when
// its peer proved itself, so that a page server under a flood never
// closes it.
//
// # Decisions where the design brief was silent
//
//   - Names. The receiver's device name arrives in its first message and
//     is reported in the sender's Connected event; the sender's name is in
//     the offer and reported in the receiver's Connected and in
//     Offer.PeerName. On the sender, Accepted.Offer.PeerName is the
//     receiver's name.
//   - Clashes. A file whose name is taken is saved as "name (1).ext",
//     "name (2).ext"... (or replaces the existing file when Overwrite is
//     set; a folder is never replaced). A top-level folder merges into an
//     existing folder of the same name, so an interrupted folder transfer
//     resumes and identical files are skipped; each file inside follows the
//     file rule. When the name, or any subfolder the offer needs, is taken
//     by something that is not a folder, the whole top-level folder is
//     saved as "name (1)". A symlink where the offer needs a folder is
//     refused (ErrRefusedPath).
//   - Modes and times, only where this transfer created the thing. A
//     folder that already existed (a merge) is never chmod'ed or given the
//     sender's time: it is the receiver's, and adding files to it changes
//     its time as it would for any program. A created file or folder gets
//     the sender's permission bits less the receiver's creation mask (its
//     umask, or a default ACL where one applies), as tar does for a user
//     who is not root: a sender's 0777 becomes 0755 under umask 022, and a
//     private 0600 stays 0600. The mask is read once per transfer by
//     creating a probe file in the partial folder, since umask(2) cannot
//     be read without setting it for every goroutine of the process. A
//     created folder also always keeps the owner's rwx, so that a later
//     transfer can merge into it, and gets its mode when it is created
//     (so one left by an interrupted transfer has it) and the sender's
//     time at the end. To the next transfer such a folder already exists,
//     so a resumed folder keeps the time its last write gave it. (A fixed
//     0755/0644 rule was the alternative: it would drop a sender's
//     executable bits and widen its private files.)
//   - Names. place.CheckPath's rules are the same on every OS, so that an
//     offer one receiver accepts, another (or the same one writing to a
//     USB stick) never fails on after the bytes arrived: no control,
//     format (bidi, zero-width) or default-ignorable code point, none of
//     \ / : * ? " < > |, no Windows device name with any extension, no
//     trailing dot or space, at most 255 bytes a name and 4096 a path.
//     Only a Windows receiver also refuses names of the 8.3 short-name
//     shape ("PROGRA~1"), which NTFS may resolve to an existing long
//     name (core/place/paths_windows.go); the partial folder's own short names
//     ("FERRY-~1") are refused everywhere, since Linux's vfat resolves
//     them too.
//   - Case. Two entries that are one name under place.Folding (canonical
//     decomposition, simple uppercase, full Unicode case folding, NFC:
//     "Report" and "report", NFC and NFD "é", "ſ" and "s", "ς" and "σ",
//     "ı" and "I") are refused on every target, case-insensitive or not,
//     and so is any first component that is the partial folder under it.
//     On the destination, a name the file system takes for an existing
//     entry that is not listed byte for byte (case-insensitive or
//     normalizing: NTFS, APFS, exFAT, vfat, ext4 casefold; an 8.3 alias)
//     is a clash: a file is saved as "name (1).ext", also with Overwrite,
//     and is never skipped as identical; a top-level folder is saved as
//     "name (1)", never merged into. The receiver lists a folder for this
//     once per transfer, the first time a lookup in it finds something.
//   - Modes and times that the file system cannot hold (vfat and exFAT
//     refuse most chmods, some FUSE drivers have none) are kept where it
//     can; a verified file is never failed over them.
//   - Resume. A partial file is named by a hash of the sender's key, the
//     path, the size and the modification time, so only the same file
//     from the same device resumes it; at most 64 partial files resume per
//     transfer (each keeps a hash state), others start over. Partial files
//     stay after any failure except a hash mismatch. They are not
//     fsynced: a crash may lose their tail, which the prefix hash check
//     catches.
//   - Skip. For a file of the same size already at the final name, the
//     answer says "have" and nothing more. The sender then hashes its own
//     copy of those files, and only those (a whole file is read twice only
//     where the receiver may already hold it), and sends the hashes in one
//     message; the receiver, which hashed its copies meanwhile, compares
//     and answers with one message naming the identical ones, which are
//     skipped (the outcome is Skipped, also with Overwrite); the others
//     are sent and follow the clash rule. This costs one round trip per
//     transfer, none when nothing is had, none per file. The receiver's
//     hash never leaves it: a version-1 receiver sent it, and a sender that
//     guessed a name and a size (say, of a file holding "pin=4711") could
//     then test guesses of the content offline. Now each guess costs an
//     accepted transfer, which writes the guess as "name (1)".
//   - Source changes. The sender re-checks a file's size and modification
//     time after reading it, and treats a short read as a change; either
//     ends the transfer with ErrSourceChanged. Inside a folder, symlinks
//     and special files are not sent; a top-level symlink is followed.
//   - Texts are held in memory (at most MaxTextBytes), reported in a
//     Text event, and saved through a partial file like any file
//     only with SaveText. They are never skipped or resumed.
//   - Free space. Before asking, the receiver refuses (ErrNoSpace) an
//     offer whose bytes, less what its partial files already hold, exceed
//     the space free on the destination; the sender is told "not enough
//     space", the receiver's error says how much was needed and free. A
//     disk that fills up anyway fails with ErrNoSpace and keeps the
//     partial file.
//   - Declining is an Abort with the code "declined"; both ends return an
//     error wrapping ErrDeclined and emit Error with it.
//   - Serve runs handshakes concurrently, each on a goroutine it owns and
//     waits for, and returns after the transfer of the first connection
//     that passes one; connections that fail it (a wrong code, a port
//     scan, another version) are closed and Serve keeps listening. At
//     most 8 connections per source address (per /64 for IPv6) and 64 in
//     all may be mid-handshake; beyond that the oldest is closed, so
//     stalled connections, however many, cannot lock out a sender whose
//     handshake takes milliseconds. While the transfer runs, every new
//     connection is refused as busy (the sender gets secure.ErrBusy,
//     a secure.BusyError saying one transfer runs), never interleaved.
//     Handshakes still pending when Serve returns are closed. A
//     Receiver can Serve again afterwards. ServeMany, on a Receiver
//     with MaxConcurrent above 1, runs several transfers at once and
//     refuses as busy only beyond them (see Several senders).
//   - Paired devices. A sender with send.SendConfig.PeerKey (the receiver's
//     pinned key) sends without a code; the receiver serves it if
//     receive.ReceiverConfig.Paired says it pinned the sender's key, and keeps
//     showing its code for every other sender meanwhile (core/secure's
//     package doc has the handshake). Refusals are secure.ErrNotPaired or
//     secure.ErrKeyChanged on the sender and never count as wrong codes.
//     The receiver reports each with a Refused event saying why (it has
//     no pin for the sender, the sender's pin for it is stale, or it
//     accepts no paired senders) and goes on serving; since refusals
//     are cheap to provoke, at most 4 are reported at once and then one
//     a second, with a count of those left out.
//     Connected says whether pins authenticated the peer (Paired) and
//     carries its key, so a front end can offer to pin it after a
//     transfer by code. AutoAcceptPaired lets the Ask policy accept a
//     paired sender's offer unasked.
//   - Wrong codes. Message 3 is checked under the receiver's lock: at
//     most three guesses are ever checked against one code, however
//     many handshakes run at once, and a guess that arrives for a code
//     retired meanwhile is refused unchecked (secure.ErrCodeRetired).
//     Every wrong code also counts against the device's guess budget
//     (core/guess: a Budget that every Receiver of the device shares,
//     kept across restarts and processes by a guess.Store): in each
//     block of 12, 6 checked at once, then one after each of a doubling
//     wait, then none until a person acts (receive.Receiver.NewCode, or a start
//     by hand: guess.Config.ByPerson), which lifts the stop and resets
//     nothing; the codes a receiver picks grow two digits with each
//     block (6, 8, 10: guess.Digits, told by event.CodeLonger). A guess
//     that comes sooner is refused unchecked (secure.ErrCodesHeld).
//     CodesHeld and CodesStopped tell the front end. A successful
//     transfer does not reset the budget, or an attacker would get a
//     new one with every honest transfer. A PairedOnly receiver checks
//     no code at all: core/secure refuses a code-mode sender before
//     CPace (secure.ErrNoCodes, Refused with reason CodesOff).
//   - Codes are used once. A code the receiver picked is replaced as
//     soon as a handshake proves it (CodeChanged, CodeUsed, emitted
//     before that session's Connected), so it lets in one sender, with
//     one sender at a time or several (see Several senders); one fixed
//     in receive.ReceiverConfig.Code stays, as the person chose it.
//     Connected.WrongCodes counts the wrong codes since the last
//     transfer by code, so that no front end pins a lucky guesser's key
//     without saying so.
//   - Progress: at most one event per 250 ms plus a last one; Rate is an
//     exponentially smoothed bytes per second, Total is corrected upwards
//     when a skip or resume does not verify. ETA is 0 (unknown) beyond
//     99 hours: at a crawl it means nothing, and overflowed before.
//
// # Wire protocol (version 2)
//
// The messages, their encodings, their limits and the table of which
// end sends each and when the other takes it are core/wire's: its
// package doc lists them, with the version and the framing. What follows
// is the order in which the sessions send them.
//
// Order. The sender sends offer and flushes; the receiver sends hello as
// soon as the handshake ends (the sender's first read also reveals a
// wrong code). The receiver checks the offer (structure, totals, every
// path, duplicates, free space), asks its person or policy, and answers
// with answer or abort (code declined). An answer lists, in increasing
// index order, only file entries the receiver already has: action 1
// (have: a regular file of the entry's size is at its final name; nothing
// else follows), or action 2 (resume) with 0 < offset ≤ size and the hash
// of the first offset bytes of its partial file. Entries not listed are
// taken whole.
//
// When the answer lists a have, the sender next sends hashes: for every
// have, in the answer's order, its index and the hash of the sender's
// whole file. The receiver compares each with its own file and sends
// matches: the indexes, increasing, whose hashes were equal. Without a
// have neither message is sent. Either, out of turn or not exactly
// matching the answer's haves, is a protocol violation.
//
// Then the sender walks the offer in order, skipping folders (the
// receiver created them on accepting). For a matched have it sends skip.
// Otherwise it sends begin with offset 0, or with the resume offset when
// the prefix hash matched; then data messages carrying exactly
// size-offset bytes; then end with the hash of the whole content. It
// never waits between entries. After the last, it
// sends finish and flushes. The receiver confirms each file as it is
// placed (confirmations are flushed in batches: the sender never waits
// for one), then each folder after finish, then sends done and closes its
// direction (core/secure's authenticated end of stream); the sender
// closes its own on done. Either end may send keepalive at any time and
// abort at any time, then close its direction; the other end stops
// without answering. An end that aborts reads and discards what the other
// still sends until it closes, for at most min(timeout, 2s), before it
// closes the socket: closing on unread bytes makes the kernel reset the
// connection, which can destroy the abort before it is read. A receiver
// that times out a silent sender aborts with the timeout code too.
//
// Abort codes (their values are in core/wire's doc): the receiver of
// an abort returns an error wrapping the sentinel its code names, with the reason in its text. The code an end sends
// follows from its error's kind (core/errkind, below), so an error that
// wraps two sentinels always travels as the same code.
//
// # Error kinds
//
// core/errkind names what went wrong in one word from a fixed list; its
// doc describes the taxonomy. This package's and core/secure's sentinels
// carry their kinds. The engine adds the kinds of the operating system's
// and the network's errors (a full disk, permission, a reset or refused
// connection, a port in use, a file gone: kinds.go) where its errors
// leave it: in what Send, receive.NewReceiver, Serve and ServeConn return and in
// the Error event. So a front end reads any error's kind with
// errkind.Of alone.
//
// # Stage timers
//
// The sender times disk reads and hashing (diag.DiskRead, diag.HashSend),
// the receiver hashing and disk writes (diag.HashRecv, diag.DiskWrite);
// core/secure times encryption, socket calls and decryption through the
// same diag.Timers. Each timer wraps one call that does one thing. With
// Diag set, a Diag event reports the split every 5 s, and at the
// end the receiver's split and its process's CPU use (diag.CPU) travel in
// done, so that the sender's Summary names what limited the transfer on
// either end: a stage, an end's CPU, the cores both ends share when the
// sender reached the receiver on its own machine, or the network.
package transfer
