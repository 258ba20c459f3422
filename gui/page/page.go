// Package page holds the files of the browser page that a Ferry receiver
// serves (see core/web): index.html, page.js, page.css, and, when the
// build made them, ferry.wasm (the page's Go main in ./wasm, compiled
// with GOOS=js GOARCH=wasm) and wasm_exec.js (Go's own loader, copied from
// $(go env GOROOT)/lib/wasm). Those two are build outputs, never
// committed (.gitignore): `make wasm` writes them, and every make target
// that builds a binary or runs tests runs it first. A build without them
// still compiles; core/web then serves a page that says the binary was
// built without the browser page.
package page

import "embed"

// Files is this folder's files as embedded in the binary. The pattern
// "*.*" always matches something (index.html is committed) whether or
// not the wasm build ran, and leaves out the wasm folder beside the
// files, whose Go source is no part of the page; core/web serves only
// the names it knows.
//
//go:embed *.*
var Files embed.FS
