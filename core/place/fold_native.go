//go:build !js

package place

import (
	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
)

// newCaseFolder returns Unicode's full case folding as x/text's
// cases.Fold computes it. Natively x/text is the reference: the page's
// wasm, which leaves x/text/cases out to load faster, folds with
// appendFold (fold.go), and TestFoldMatchesCases holds the two equal on
// every code point.
func newCaseFolder() func(dst, src []byte) []byte {
	c := cases.Fold()
	return func(dst, src []byte) []byte {
		c.Reset()
		out, _, err := transform.Append(c, dst, src)
		if err != nil {
			// Folding reports no error of its own; should a later
			// version do so, the allocating path gives the same result.
			return append(dst, cases.Fold().String(string(src))...)
		}
		return out
	}
}
