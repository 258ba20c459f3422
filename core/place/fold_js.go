//go:build js

package place

// newCaseFolder returns appendFold: in the page's wasm, folding with the
// standard library's tables instead of x/text/cases (and the
// x/text/language it pulls in) leaves about 380 KB out of ferry.wasm
// (benches/results/2026-12-05-wasm-fold.md). TestFoldMatchesCases holds
// appendFold equal to cases.Fold on every code point, so that the page
// and a native peer find the same names to be one.
func newCaseFolder() func(dst, src []byte) []byte { return appendFold }
