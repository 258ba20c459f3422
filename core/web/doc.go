// Package web lets a browser on any phone or computer send to and receive
// from Ferry with no app: a receiver serves a small page and ferry.wasm
// (Ferry's own core, compiled to WebAssembly by gui/page/wasm), and the
// page speaks the ordinary protocol (core/secure's CPace + Noise
// handshake, core/transfer's messages) over a WebSocket back to the same
// port. The code never crosses the network: it travels in the link's
// fragment (Link), which browsers keep to themselves, and then only
// into CPace, as between two ferry binaries.
//
// # One port
//
// NewMux wraps the receiver's TCP listener and is given to the receiver
// as its listener. It reads each connection's first byte: Ferry's
// preamble starts with 'F' ("FERRY"), which no HTTP method does, so one
// byte tells them apart without a timeout on honest peers. Ferry
// connections are returned by Accept unchanged (the byte put back);
// HTTP connections go to an http.Server that serves the page, and each
// accepted WebSocket becomes a net.Conn (websocket.NetConn, binary
// messages) that Accept returns too. The receiver's accept loop then
// bounds, counts and refuses WebSocket senders exactly as TCP ones: the
// same pending limits, guess budget, busy refusal and timeouts. One port
// was chosen over a second one so that the link, the QR code, a
// firewall rule and mDNS all name the one port the receiver already has.
//
// # What is refused
//
//   - A request whose Host is not an IP address or localhost (421): the
//     link always names the device by address, and a DNS name that
//     resolves to it is how a foreign site would read the page as its
//     own (DNS rebinding) and learn the token.
//   - A WebSocket upgrade whose Origin is not http://HOST of the request
//     (403): a page from any other site. Browsers always send Origin on
//     a WebSocket; an upgrade without one is refused too.
//   - An upgrade without the page's token (403). The token is 16 random
//     bytes per Server, written into the page as a meta tag: only a
//     page this device served carries it. It is not a secret from the
//     LAN (anyone may load the page); it ties an upgrade to a page load
//     from this device, on top of the Origin check.
//   - In ToBrowser mode (ferry send --to-browser), every Ferry TCP
//     connection: only the page may connect.
//
// # Bounds
//
// At most 64 connections wait for their first byte (10 s each) or for
// the receiver to take them (30 s); beyond that the oldest is closed, so
// stalled connections cannot lock an honest one out. At most 32 HTTP
// connections at once, 8 per IPv4 or IPv6 address and 16 per IPv6 /64,
// 8 KiB of headers read within 10 s, 60 s to write a response and 2 min
// to write all of one connection's (a reader that never reads cannot
// renew it by asking again), 30 s idle; at most 16 open WebSockets, 4
// per address and 8 per /64 (core/internal/netsrc). Past a host's or a
// /64's cap, its own oldest HTTP connection is closed, even while it is
// being served: one host flooding the page with downloads it never
// reads pushes out only itself. Past a total, only a connection that
// does nothing for anyone makes room, the oldest first: an HTTP
// connection still waiting for its request or idle between two, a
// WebSocket whose peer has not proven the code (or its key) yet, in the
// newcomer's bucket; when every HTTP connection is being served, the
// host holding the most gives up its oldest to a host holding fewer. A
// WebSocket that proved the code (core/transfer tells it, through its
// Proven method) is never closed for another; when only those are left,
// the newcomer is refused (a WebSocket with
// 503). A WebSocket's messages are read as a stream (never a whole
// message in memory), and the receiver's record limits apply to what
// they carry. Only GET and HEAD of the known names and /ws are answered.
//
// # What is served
//
// index.html (with the token, this device's name, the page's mode and
// the Subresource Integrity hashes of page.js, page.css, save.js,
// core.js, worker.js, prims.js, wasm_exec.js, ferry.wasm, and, when the
// build made them, aead.js or sodium.js and blake3.js filled in), and those
// files and sw.js, each gzipped when the request accepts it (ferry.wasm
// as the build gzipped it, ferry.wasm.gz beside it, when that unzips to
// ferry.wasm exactly; otherwise at gzip's best level, once, when the
// Server starts), with a strict
// Content-Security-Policy (nothing but this origin; WebAssembly allowed;
// workers from this origin or from a blob: URL, which is how core.js
// starts the wasm's worker from the scripts it fetched with their
// hashes) and no referrer. The index, which holds the token, is never
// cached; the other files are, under a tag of their bytes that the
// browser checks at every use (no-cache and an ETag), so that a reload
// gets a 304 for ferry.wasm instead of its 2 MiB again. ferry.wasm goes
// out as application/wasm, so that the worker compiles it while it
// streams.
// Server.PageHash is the SHA-256 of index.html as served and, since the
// index pins the others by hash, covers everything the page runs;
// WasmHash is ferry.wasm's. A binary built without ferry.wasm serves a
// page that says so.
package web
