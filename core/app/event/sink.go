package event

import "io"

// Sink takes a receiver's entries somewhere that is not a folder on this
// device's disk: a browser page streams each file into a download. The
// engine takes one in core/receive's ReceiverConfig.Sink, core/app in
// ReceiveFromConfig.Sink; without one a receiver writes into its folder.
// The contract is written once, here, for both.
//
// What a sink is promised (core/transfer's package doc, Sinks, has the
// whole rule):
//
//   - It sees only an offer that passed every check the folder sink
//     relies on (every name checked, duplicates, folding, totals), and
//     only after the person or policy accepted it. Paths are relative
//     and slash-separated; a folder comes before what it holds.
//   - Its methods are called from the transfer's goroutine, one at a
//     time, in offer order: Folder for each folder, then File for each
//     file and text as its bytes come. A SinkFile's Write calls carry the
//     entry's bytes in order, then Close says whether they are exactly
//     what the sender sent (BLAKE3 verified): only then may the sink
//     commit the file. End comes last, once, with the transfer's outcome.
//   - It never resumes and never skips: the receiver answers as if it
//     had neither partial nor finished files, so the sender sends every
//     file whole, and nothing of the sink is revealed to the sender.
//     There is no free-space check: a sink that runs out of room fails
//     its Write.
//   - An error from any method ends the transfer; the sender is told
//     only that the entry cannot be written.
//   - Its Write calls are timed as the receiver's disk write stage, so a
//     slow sink shows in the diagnostics as a slow disk would.
type Sink interface {
	// Folder is told of an offered folder (Kind KindDir), before any
	// entry inside it. The Mode and ModTime are the sender's.
	Folder(e Entry) error
	// File starts an entry whose bytes follow (Kind KindFile, or
	// KindText: a text is also reported in a Text event). Exactly e.Size
	// bytes are written before Close, which is always called once File
	// returned a SinkFile, whatever happens to the transfer.
	File(e Entry) (SinkFile, error)
	// End is told that the transfer is over, once, after every other
	// call and only when Folder or File was called: nil when every entry
	// was confirmed to the sender, else the transfer's error. A sink
	// that holds anything back (a download not yet shown) releases it
	// here.
	End(err error)
}

// SinkFile receives one entry's bytes.
type SinkFile interface {
	io.Writer
	// Close ends the entry. verified is true when every byte arrived and
	// the BLAKE3 hash of them all matched the sender's: the sink commits
	// the file, and an error it returns then fails the transfer. false
	// means the hash did not match (the transfer then fails with a
	// verify error) or the transfer ended before the entry's end: the
	// sink discards what it got, and its error is ignored.
	Close(verified bool) error
}
