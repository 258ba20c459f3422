// Package errkind names why something failed in Ferry: one word from a
// fixed list, the one taxonomy of Ferry's errors. It is a leaf: it
// imports nothing of Ferry's, so every package (core/secure, the engine,
// core/trust, core/history, core/clipboard, the front ends) may use it.
//
// # Kinds
//
// A Kind is a stable string ("wrong_code", "busy", "no_space", ...). The
// abort code on the wire, the CLI's exit code and --json kind, the GUI's
// sentence, mobile's Failure.ErrorKind, the browser page's kind and
// core/history's ErrorKind are all read from it. A front end never maps
// errors itself: it reads the kind. The strings never change meaning:
// scripts branch on them and history files keep them. All lists every
// kind, Failure last.
//
// # Words
//
// Each kind's words, what happened and what to do, are written once,
// here (WordsOf), for every front end: plain words that name no flag, no
// button and no command. A front end shows them in its own form (the
// CLI's hint line, the app's headline and advice, the page's result,
// mobile's error event) and adds at most its own affordance after them,
// from one small table keyed by kind: the CLI's --dir, the page's QR
// code. An exit code is the CLI's, not a word, and stays there.
//
// # Where a kind comes from
//
// A package's sentinel errors carry their kind: they are made with New
// (core/secure's, the engine's, core/trust's, core/history's,
// core/clipboard's, a front end's own). Wrap gives an error that is not a
// sentinel a kind: the engine (core/transfer) does it for the operating
// system's and the network's errors (a full disk, a refused permission,
// a reset connection, a port in use, a file gone, nothing answering at
// an address) where its errors leave it, in returned errors and in its
// Failed event, and in the listener it gives a front end (Listen). The
// standard library's portable errors, which any package may return, have
// their kinds here: context.Canceled and context.DeadlineExceeded are
// Cancelled and Timeout, fs.ErrPermission and fs.ErrNotExist are
// Permission and FileMissing. Every other error is Failure.
//
// # Precedence
//
// Of looks at every error err wraps (through fmt.Errorf's %w and
// errors.Join) and gives the kind that comes first in All's order, the
// most specific first: a wrong code also closes the connection, a
// cancel's cause may be a timeout, a declined transfer is also cancelled.
// So an error that wraps two kinded errors gets the same kind however it
// wraps them.
//
// # Kinds of a command line
//
// Usage, BadCode and DirNotWritable are found before anything crosses
// the network, by the front ends, which make these errors themselves
// (with New) and word them. They live here so that there is one list.
package errkind
