// Package transfer owns what crosses a Ferry connection once it is
// secure: the offer, the receiver's answer, the files, folders and text
// snippets, their hashes, and the safe writes at the receiving end. It is
// the API every front end (cli, gui, mobile) uses: Send on one side,
// NewReceiver/Serve/Accept/Decline on the other, and a stream of Events.
//
// # Promises
//
//   - One TCP connection carries one transfer of any number of entries.
//     Files stream back to back: there is no round trip per file.
//   - Every file is hashed with BLAKE3-256 on both ends as it streams. The
//     receiver writes into a hidden partial folder (<dest>/.ferry-partial)
//     and moves a file to its final name, with the sender's permission bits
//     and modification time, only when the hashes match. Send returns
//     success only after the receiver confirmed every entry.
//   - The receiver writes only inside its destination, through os.Root,
//     after checking every path (see checkPath), never through a symlink,
//     never overwriting unless configured to.
//   - A cancelled context, on either end, reaches the other end as an
//     Abort with a reason (a context.WithCancelCause cause is that
//     reason). A peer that stays silent longer than the timeout (default
//     30s) ends the transfer with ErrTimeout; both ends send keepalives
//     when they have flushed nothing for a quarter of it (measured from
//     the last flush, so that three quarters are left for delays),
//     including while a person decides and while a large file is hashed.
//   - Memory is bounded whatever the sizes: one chunk buffer and one hash
//     state per end, the secure stream's fixed buffers, and the manifest
//     (at most MaxManifestBytes encoded, MaxEntries entries). Moving a
//     chunk allocates nothing on either end: BLAKE3 runs on the caller's
//     goroutine over fixed buffers (see hasher).
//   - Events are delivered in order, never concurrently.
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
//     refused (ErrRefusedPath). Every offered folder, merged or created,
//     gets the sender's mode and time once its files are in (so that a
//     resumed folder ends up exactly like the source), except that the
//     owner's rwx is always kept so that a later transfer can merge into
//     it.
//   - Case. Two entries whose paths differ only by case are refused on
//     every target, case-insensitive or not (Unicode normalization is not
//     folded).
//   - Resume. A partial file is named by a hash of the sender's key, the
//     path, the size and the modification time, so only the same file
//     from the same device resumes it; at most 64 partial files resume per
//     transfer (each keeps a hash state), others start over. Partial files
//     stay after any failure except a hash mismatch. They are not
//     fsynced: a crash may lose their tail, which the prefix hash check
//     catches.
//   - Skip. A file of the same size already at the final name is hashed;
//     the sender hashes its own copy and skips it only if they match (the
//     outcome is Skipped, also with Overwrite). Otherwise the file is sent
//     and follows the clash rule.
//   - Source changes. The sender re-checks a file's size and modification
//     time after reading it, and treats a short read as a change; either
//     ends the transfer with ErrSourceChanged. Inside a folder, symlinks
//     and special files are not sent; a top-level symlink is followed.
//   - Texts are held in memory (at most MaxTextBytes), reported in a
//     TextReceived event, and saved through a partial file like any file
//     only with SaveText. They are never skipped or resumed.
//   - Free space. Before asking, the receiver refuses (ErrNoSpace) an
//     offer whose bytes, less what its partial files already hold, exceed
//     the space free on the destination. A disk that fills up anyway fails
//     with ErrNoSpace and keeps the partial file.
//   - Declining is an Abort with the code "declined"; both ends return an
//     error wrapping ErrDeclined and emit Failed with it.
//   - Serve runs handshakes concurrently, each on a goroutine it owns and
//     waits for, and returns after the transfer of the first connection
//     that passes one; connections that fail it (a wrong code, a port
//     scan, another version) are closed and Serve keeps listening. At
//     most 8 connections per source address (per /64 for IPv6) and 64 in
//     all may be mid-handshake; beyond that the oldest is closed, so
//     stalled connections, however many, cannot lock out a sender whose
//     handshake takes milliseconds. While the transfer runs, every new
//     connection is refused as busy (the sender gets secure.ErrBusy),
//     never interleaved. Handshakes still pending when Serve returns are
//     closed. A Receiver can Serve again afterwards.
//   - Paired devices. A sender with SendConfig.PeerKey (the receiver's
//     pinned key) sends without a code; the receiver serves it if
//     ReceiverConfig.Paired says it pinned the sender's key, and keeps
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
//     most MaxAttempts guesses are ever checked against one code, however
//     many handshakes run at once, and a guess that arrives for a code
//     retired meanwhile is refused unchecked (secure.ErrCodeRetired).
//   - Progress: at most one event per 250 ms plus a last one; Rate is an
//     exponentially smoothed bytes per second, Total is corrected upwards
//     when a skip or resume does not verify.
//
// # Wire protocol (version 1)
//
// After core/secure's handshake, each direction of the encrypted stream
// is a sequence of messages:
//
//	type    uint8
//	length  uint32, big-endian: the body's size
//	body    length bytes
//
// Each type has a maximum body size, checked before anything is read or
// allocated (exceeding it is ErrProtocol). Integers in bodies are varints
// (encoding/binary: uvarint unsigned, varint zigzag-signed); a string is
// a uvarint length then that many bytes of UTF-8; a hash is 32 raw bytes
// of BLAKE3-256. A body with trailing bytes is malformed. Messages:
//
//	1  hello      R→S  version u8 (=1), device name string (≤128)
//	2  offer      S→R  version u8 (=1), device name string (≤128),
//	                   count uvarint (≤100,000), total uvarint,
//	                   count × entry{kind u8 (1 file, 2 folder, 3 text),
//	                   path string (≤4096), size uvarint, mode uvarint
//	                   (permission bits only, ≤0o777), mtime seconds
//	                   varint, mtime nanoseconds uvarint (<1e9); 0,0 means
//	                   unknown}; ≤4 MiB
//	3  answer     R→S  count uvarint, count × {index uvarint, action u8,
//	                   offset uvarint, hash}; ≤5 MiB
//	4  begin      S→R  index uvarint, offset uvarint
//	5  data       S→R  1..secure.ChunkSize bytes of the current entry
//	6  end        S→R  index uvarint, hash
//	7  skip       S→R  index uvarint
//	8  confirm    R→S  index uvarint, outcome u8 (Outcome), saved-as string
//	9  finish     S→R  empty
//	10 done       R→S  wall ns uvarint, count uvarint (≤32),
//	                   count × {ns, bytes, calls uvarint}: diag.Split,
//	                   CPU used ns uvarint, CPU waited ns uvarint, cores
//	                   uvarint (≤65,536; 0: not measured): diag.CPU
//	11 abort      both code u8, reason string (≤512)
//	12 keepalive  both empty
//
// Order. The sender sends offer and flushes; the receiver sends hello as
// soon as the handshake ends (the sender's first read also reveals a
// wrong code). The receiver checks the offer (structure, totals, every
// path, duplicates, free space), asks its person or policy, and answers
// with answer or abort (code declined). An answer lists, in increasing
// index order, only file entries the receiver already has: action 1
// (have) with offset = size and the hash of its whole file at the final
// name, or action 2 (resume) with 0 < offset ≤ size and the hash of the
// first offset bytes of its partial file. Entries not listed are taken
// whole.
//
// Then the sender walks the offer in order, skipping folders (the
// receiver created them on accepting). For a "have" whose hash matches
// its own file it sends skip. Otherwise it sends begin with offset 0, or
// with the resume offset when the prefix hash matched; then data
// messages carrying exactly size-offset bytes; then end with the hash of
// the whole content. It never waits between entries. After the last, it
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
// Abort codes: 1 internal, 2 cancelled, 3 declined, 4 refused path,
// 5 no space, 6 protocol, 7 verify (hash mismatch), 8 source changed,
// 9 timeout. The receiver of an abort returns an error wrapping the
// matching sentinel, with the reason in its text.
//
// # Stage timers
//
// The sender times disk reads and hashing (diag.DiskRead, diag.HashSend),
// the receiver hashing and disk writes (diag.HashRecv, diag.DiskWrite);
// core/secure times encryption, socket calls and decryption through the
// same diag.Timers. Each timer wraps one call that does one thing. With
// Diag set, a Diagnostics event reports the split every 5 s, and at the
// end the receiver's split and its process's CPU use (diag.CPU) travel in
// done, so that the sender's Summary names what limited the transfer on
// either end: a stage, an end's CPU, the cores both ends share when the
// sender reached the receiver on its own machine, or the network.
package transfer
