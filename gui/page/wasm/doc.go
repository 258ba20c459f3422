//go:build js && wasm

// Command wasm is Ferry's core for a browser: a core/app Node that keeps
// nothing on disk (app.NewInMemory), the engine beneath it unchanged in
// its protocol, compiled with GOOS=js GOARCH=wasm into ferry.wasm,
// which core/web serves with its page. It reaches the receiver (or the sending desktop) over a WebSocket to the
// page's own origin. Its cipher is ChaCha20-Poly1305: core/secure picks
// AES-GCM only when both ends have AES hardware, and WebAssembly has none
// that Go can see.
//
// # The JavaScript bridge
//
// Loaded with Go's wasm_exec.js, the program sets one global, ferry, and
// keeps running. The page runs it in a dedicated Web Worker
// (gui/page/worker.js), off the thread that draws the page, and its
// window gets the same ferry object from gui/page/core.js, which
// forwards every call to the worker by messages: File objects are
// posted as they are (the worker reads them), a receive's sink stays in
// the window and the worker's calls of it come back as messages, its
// writes batched up to 1 MiB per message (the wasm hands it 1 MiB
// arrays) with up to 8 MiB unanswered; a sink that says gather (save.js's
// memory sink) gets no writes at all: the worker gathers the file into a
// Blob and hands it over whole (deliver, below). The worker's proxy of
// such a sink makes a Blob of each write before it answers, so the wasm
// hands it 8 MiB at a time in one array it reuses (sink.go's copies),
// not a new array per MiB: no fresh memory per MiB to be mapped, touched
// and unmapped.
// core.js calls window.onFerryReady() once ready and
// window.onFerryFailed(message) when the worker or the wasm could not
// start. Every function takes one options object:
//
//		ferry.send({code, fp, name, files, onEvent, diag, url}) -> Promise
//		ferry.receive({code, fp, name, sink, onEvent, diag, url}) -> Promise
//		ferry.cancel()
//		ferry.fingerprint -> string    this page's key's fingerprint
//		ferry.ready -> true            set once the bridge is installed
//
//	  - code: the code from the link's fragment.
//	  - fp: the fingerprint from the link's fragment, or "". When set, the
//	    "connected" event carries fp_match: whether the device that
//	    answered the handshake has that fingerprint. The transfer goes on
//	    either way (the code already proved the device knows it); the
//	    page says which it is.
//	  - name: this device's name, shown to the other end.
//	  - files (send): an array (or FileList) of File objects. A File's
//	    webkitRelativePath, when not empty, is its path (a picked folder:
//	    "Photos/2024/a.jpg"); else its name. Each top-level name becomes
//	    one entry (a file, or a folder sent whole). Files are read in
//	    slices as they are sent, never whole.
//	  - sink (receive): {start(entry) -> Promise, write(Uint8Array) ->
//	    Promise, finish(ok) -> Promise, folder(entry) -> Promise
//	    (optional), end(error|null) -> Promise (optional), gather and
//	    deliver(Blob) -> Promise (optional)}. start opens a
//	    file; write calls carry its bytes in order (each Uint8Array is the
//	    sink's to keep); finish(true) comes when every byte is there and
//	    verified by BLAKE3, finish(false) when the file failed or the
//	    transfer ended first: the sink then discards it. folder tells of
//	    each folder before anything inside it; end comes once, last. A
//	    sink with gather true and a deliver method gets no write calls:
//	    the worker gathers each file's bytes into a Blob and calls
//	    deliver(blob) with the whole file just before finish(true). A
//	    rejected promise ends the transfer (the sender is told the entry
//	    cannot be written). The page receives whatever the desktop sends
//	    (the person asked for it by opening the link); the "offer" event
//	    says what is coming first.
//	  - entry: {path, kind ("file", "folder", "text"), size, mode, mtime
//	    (milliseconds since the epoch, 0 when unknown)}.
//	  - onEvent(event): called with each event, in order.
//	  - diag: true for "diag" events every 5 s and the split in "done".
//	  - url: the WebSocket to dial; default ws://HOST/ws?t=TOKEN of the
//	    page, the token read from <meta name="ferry-token">.
//
// Events are core/app/event's, each in its one JSON form (event.Marshal,
// the same objects as the CLI's --json lines, cli/README.md), handed
// over as plain objects: "event" names the type, and the fields follow.
// The page gets "connected" {peer_name, peer_fingerprint, addr, paired,
// wrong_codes, and fp_match, its own, when fp was given}, "offer"
// {peer_name, peer_fingerprint, files, folders, texts, total_bytes,
// entries, entries_total, entries_listed}, "accepted" {by, total_bytes},
// "progress" {done, total, rate, eta, current, current_done,
// current_size, entries_done, entries}, "entry" {path, kind, size,
// outcome, saved_as}, "text" {name, text}, "diag" {end, wall, stages,
// line}, and last either "done" {entries, bytes, skipped_bytes,
// resumed_bytes, duration, local, remote, verdict} or "error" {kind,
// exit_code (always 0: the page has no process to exit), message,
// title, hint}. The promise resolves with the done event and rejects with the
// error event; a sink's end gets the error event too. In "diag" and
// "done", the page's own split has one stage more than a native end's:
// "JS crossing", the time spent copying bytes between JavaScript and Go
// (out of a read File, into and out of the WebSocket, into the sink's
// arrays), taken out of the stage whose call it was part of
// (app.Crossings, which the WebSocket gets as an app.CrossingConn). Error kinds are the CLI's (core/errkind); title
// and hint are core's words for the kind (errkind.WordsOf: what happened,
// what to do, lowercase clauses to be shown as sentences), the same for
// every front end, and message is the error's own text. The page adds
// only its own affordances (a QR code to scan, its buttons).
//
// One operation runs at a time; send or receive while one runs rejects
// with kind "busy". cancel ends the running one (the other end is told
// "cancelled").
//
// # Identity and resume
//
// A sending page's key is its own for each device a link names: core.js
// keeps 32 random bytes in the origin's localStorage under "ferry-key:"
// and the link's fingerprint, hands them to the worker, and the wasm
// makes its Node with them (app.Config.Key; ferry.fingerprint is that
// key's); page.js forgets them once a send has gone through, when
// nothing is left to resume, so a key lives only as long as a cut send
// may need it (a receiver that pinned a page's key would otherwise
// trust whatever could read that origin's storage later). A receiver
// resumes a file only for the same sender key, path, size and
// modification time (core/receive keeps a cut file's partial under the
// sender's fingerprint), so a send cut by a dropped connection, a
// reload or a browser that dropped the page behind a locked screen
// resumes when the same files are picked again, prefix-checked by
// BLAKE3 as any resume. The key never leaves the origin it was made for
// (storage is per origin, and the origin is the receiver's address and
// port); a link without a fingerprint, or a browser that keeps nothing,
// gets a fresh key kept only while the page is open, and a reload then
// starts its files over. Whoever can read the origin's storage while
// the key is there (a page rewritten on its way over plain HTTP can, as
// it can read the code) can be this page to that receiver. A receiving
// page keeps no key: its sink resumes nothing (save.js), and the
// sending desktop sends everything again to the page that comes back
// (core/app's Page.Again).
//
// # The WebSocket
//
// The browser's WebSocket is wrapped here as a net.Conn (wsconn.go)
// rather than through github.com/coder/websocket's js build, which the
// server side uses: that build's writes never wait, so a sender reading
// a large file faster than the network drains would queue all of it in
// the browser's memory. Write here waits while more than 1 MiB is
// buffered (8 MiB was measured and did not pay: benches/README.md).
// Reads cannot push back (the browser's WebSocket has no way to pause), so a
// receiving page whose sink is slower than the network holds the
// difference in memory.
package main
