//go:build !js

package guess

// What the file's tests, which run real receivers (core/transfer, which
// imports this package) and so live in package guess_test, need of its
// inside.
var (
	ErrDamaged = errDamaged
	Parse      = parse
	Encode     = encode
)

const FileName = fileName
