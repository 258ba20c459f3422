// Package pageprims sets up, for core's tests compiled to WebAssembly
// and run under Node, the primitives the browser page gives ferry.wasm:
// gui/page/prims.js over libsodium's cipher and blake3-wasm's builds
// (aead.js or sodium.js, and blake3.js, which `make wasm` makes next to
// it), set as globalThis.ferryPrims the way gui/page/worker.js sets it
// in the page.
// It is test support only, and has something only on js/wasm; no Ferry
// code but tests imports it.
package pageprims
