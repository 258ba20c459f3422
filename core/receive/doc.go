// Package receive is the receiving end of a Ferry transfer: a Receiver
// binds a port (or takes a listener, or only the connections handed to
// ServeConn), shows a code and checks every guess against the device's
// guess budget (core/guess), answers each sender's offer (Accept and
// Decline, AcceptSession and DeclineSession when several wait), and
// places the files it takes through core/place, verified, into its
// destination or a Sink. ServeMany takes up to MaxConcurrent senders at
// once; Serve is ServeMany stopped after its first session. What both
// ends promise, the errors a session ends with and the wire protocol are
// core/transfer's (its package doc); the sending end is
// core/send's, which only this package's tests import, to
// start a sender beside a receiver.
//
// # Sinks
//
// A receiver writes into a folder (ReceiverConfig.Dir, everything this
// doc says of destinations, partial files, clashes, modes and free
// space), or, with ReceiverConfig.Sink, hands the entries to a Sink of
// the front end's (a browser page's downloads). A sink is given only
// what passed validateEntries, only after the offer was accepted: Folder
// for each folder in offer order, then, for each file and text (texts
// always, whatever SaveText says, and also in Text), File and
// the bytes as they arrive, and Close(verified) when its end comes,
// verified only when the BLAKE3 hash of every byte matched the sender's;
// a sink commits a file only then, and discards it on Close(false),
// which also comes for a file the transfer ended in. End(err) closes the
// transfer. A sink neither resumes nor skips: the answer lists no have
// and no resume, so the sender sends every file whole and learns nothing
// of what the sink holds; there is no free-space check; the saved-as
// name confirmed to the sender is the offered path. A sink's error ends
// the transfer, and the sender is told only "cannot be written here".
//
// # Several senders
//
// A Receiver with ReceiverConfig.MaxConcurrent above 1 (at most
// MaxConcurrentLimit, 4) takes that many senders at once through
// ServeMany, which serves until its context ends or Close: one accept
// loop, and a session per connection through the handshake, each on a
// goroutine ServeMany owns and waits for. A session is what Serve runs
// for its one transfer: its own handshake (its own code check or pinned
// key), offer, question, progress and result, and its error ends only
// it. ServeMany returns no session's outcome: each ends with its own
// Done or Error event. Every event of a session carries the
// session's id (Session on Connected, Offer, Progress, EntryDone,
// Text, Diag, Done and Error; event.SessionOf reads it),
// numbered from 1 in the order sessions passed their handshakes on the
// Receiver; events of the receiver as a whole (CodeChanged, CodesHeld,
// CodesStopped, Refused) carry none. Events of all sessions go to the
// one handler, in order per session and never concurrently.
//
// A method of its own rather than Serve called concurrently: a Serve
// returns one transfer's outcome, and its accept loop refuses the others
// as busy; several Serves would need one accept loop between them, owned
// by none. ServeMany owns its loop and its sessions as http.Server's
// Serve does, and a front end reads every result from the events it
// already handles. Serve and ServeConn are unchanged; on such a receiver
// ServeConn's session takes one of the same places.
//
// Questions: several offers may wait at once. AcceptSession and
// DeclineSession answer one session's (the Session of its Offer);
// Accept and Decline answer the oldest open one, so a front end that
// asks one question at a time still works.
//
// Busy: beyond MaxConcurrent, a connection is refused as busy, before
// its handshake (or after it, when the last place was taken meanwhile),
// and the sender is told how many transfers run: a secure.BusyError
// (secure.RefuseBusyWith), which wraps secure.ErrBusy.
//
// Codes: a code the receiver picked lets in one sender. The first
// handshake that proves it uses it up, and the next is picked and
// announced at once (CodeUsed), while that sender's transfer runs: the
// next sender types the next code, and whoever overheard the old one
// gets no offer in beside the real sender. A handshake that proved the
// code is through and is cut by nothing; one that began under it but
// guesses after another proved it is refused unchecked (as a wrong code,
// or busy when every place is taken), and a sender who types it later is
// checked against the new code, a wrong code counted as any other. A
// code fixed in ReceiverConfig.Code serves every sender who types it
// (scripts, classrooms). Wrong codes count against the code and the
// guess budget as ever, whichever session's handshake they come in (the
// budget's lock and the Receiver's make the count exact however many
// run). Names: a sender that claims the name of a sender in progress
// here, with another key, is flagged in its own session (SameName, after
// its Connected; its Offer's SameNameAs names the others' fingerprints),
// since two offers from "Ann's phone" would both pass for Ann's.
//
// Names: a name is claimed when a file is placed, by the link (or
// rename) that places it, so two sessions offering photo.jpg into one
// folder end as photo.jpg and "photo (1).jpg", whichever is placed
// first; with Overwrite the last placed wins, and its EntryDone says
// Replaced. Partial files are named per sender as for one transfer, so
// those of different senders never mix and each resumes its own; a
// session that needs a partial file another session is writing (the
// same sender sending the same file twice at once) writes a spare one
// instead, removed if it fails. The partial folder is removed, when
// empty, by the last session out.
//
// Free space: an offer is checked against the free space less what the
// transfers already accepted will still write (their bytes, less their
// partial files, less what they wrote so far), and checked again the
// same way when it is accepted, so that two offers accepted at once
// cannot both count the same free bytes; the later is refused as "not
// enough space" before any byte is sent.
//
// Sharing: sessions share nothing on their path but the disk and the
// CPU. Each has its own connection, buffers, hash and file; no lock is
// held across a read or a write, so a slow or stalled sender holds
// nothing the others need (tested: one sender throttled to 1 MiB/s and
// held part way while two others finish). Memory is a session's per
// session (its secure stream's buffers, one chunk buffer, one hash
// state): a receiver taking four 1 GiB senders at once peaked at about
// 10.2 MiB RSS, where one taking a 4 GiB sender peaked at 7.2 MiB
// (benches/concur-rss.sh), inside the 48 MiB.
package receive
