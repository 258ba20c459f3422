// Package send is the sending end of a Ferry transfer: Send offers
// items to one receiver and streams them once accepted, SendMany to
// several at once (Send is SendMany with one receiver, by the door
// SendMany keeps for one, so a program that sends to one device only
// links no fan-out). It builds the manifest from the items (the OS disk
// or any io/fs), dials the receiver (core/dial) or takes the connection
// a listener hands it, runs the handshake as its initiator
// (core/secure), and reads every file once however many receivers take
// it (core/fanout). What both ends promise, the errors a send ends with
// and the wire protocol are core/transfer's (its package doc); the
// receiving end is core/receive's, which this package never
// imports.
//
// # Sources
//
// A sender reads what it sends through io/fs: an Item with FS set is read
// from that file system (a browser's picked files, a phone app's content
// URIs, an in-memory tree), one without from the OS disk, which is the
// same code path over os.DirFS of the item's parent folder. Either way a
// folder is walked in lexical order, symlinks and special files inside
// it are left out (only regular files and folders are sent), sizes,
// modes and times come from fs.FileInfo, and an open file's Stat is
// checked against the offer before and after reading it
// (ErrSourceChanged). Files are read front to back: a resume needs no
// seek, since the sender hashes the prefix the receiver kept before it
// continues from there; when that hash does not match, the sender starts
// the file over with io.Seeker where the fs.File has it, else by opening
// it again. So a source that is only a stream (no io.Seeker, no
// io.ReaderAt) resumes exactly as a disk file does. An item the person
// picked is followed when it is a symlink, to a folder as to a file
// (fs.WalkDir stats its root); Item.Name, one name, replaces its base
// name.
//
// # Many small files
//
// A folder of many small files costs per file, not per byte, so on Linux
// a folder on the disk takes a shorter road to the same result (the
// tests hold the two roads to the same entries, bytes and errors). The
// walk opens each folder once, relative to its parent's descriptor, and
// states each entry relative to it (fstatat), where fs.WalkDir's lstat
// walked the whole path from the root per file. Nothing else runs on
// either end while the manifest is built, so the walk has a helper
// goroutine: a folder, or the second half of a long folder's listing,
// met while the helper is idle is walked by it and spliced in at its
// place, and the manifest is the same, entry for entry and error for
// error, as one goroutine's. The walk waits for its helper before it
// returns. A file that fits one
// data chunk and that the receiver takes whole is opened by its base
// name relative to its folder, kept open while the send is in it, read
// with one read into the chunk buffer through its raw descriptor, and
// checked with one fstat after that read, before any of its bytes are
// sent: a change between the walk and the read shows there, as it showed
// in the check before reading. At most 64 folders are held open at once
// (one a level; the walk's two goroutines 64 each); deeper paths are
// opened whole, as before. Every other
// file, a resume or a skip, and every file of another file system take
// the road described above.
//
// # Several receivers
//
// SendMany sends one set of items to several receivers at once: a
// session each (its own connection and handshake, its own code or pin,
// its own accept, its own events, tagged with the receiver's index in
// ManyConfig.To, and its own result in ManyResult). A receiver that
// declines, fails, dies or is slow never stops the others: a session's
// error ends only that session, and no session waits for another longer
// than the bounds below. Events of all sessions go to one handler, in
// order per receiver and never concurrently.
//
// The files are read once for all, through core/fanout (its doc says
// how): ManyConfig.Window bounds the chunks the sessions share (default
// 4 MiB), a session that falls behind reads on its own, counted in
// ManyResult.ReadAgain, and ManyStats.DiskRead counts every byte read.
// A slow, stalled or dead receiver costs the others a bounded delay,
// never a stall.
//
// So that the sessions start reading together, a session that was
// accepted waits, sending keepalives, until every session has accepted,
// been declined or failed, for at most ManyConfig.Gather (default 10 s):
// a person who is slow to accept delays the others by that much at most,
// and is then sent the files all the same, read again for it where the
// others are past them.
//
// Memory: each session costs what a Send costs (its secure stream's
// buffers and one chunk) and the window is shared: a sender to four
// receivers peaked at about 18 MiB RSS where one to one receiver peaked
// at about 11 MiB (benches/multi-rss.sh), inside the 32 MiB budget.
package send
