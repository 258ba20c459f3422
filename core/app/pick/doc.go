// Package pick makes ready what a person picked to send, before it is a
// transfer, the same way in every front end: the paths checked, that
// each exists and reads, folders all the way down (CheckPaths, on two
// goroutines, naming the first problem a walk in lexical order meets;
// it waits for its helper before it returns); what a
// folder's send would move, as a front end shows it beforehand
// (MeasureFolder); a stream or a clipboard's bytes saved into a private
// temporary folder, since an offer must state each file's size (Spool);
// and files a front end reads itself, a page's picked File objects or a
// phone's content URIs, served to the engine as an io/fs.FS at their
// paths (Sources).
//
// It starts no transfer and words no error for a person: PathProblem
// says which path failed and why, and each front end says so in its own
// voice. Everything here builds for the page's js/wasm too.
package pick
