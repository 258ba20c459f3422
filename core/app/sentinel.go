//go:build !js

package app

import (
	"github.com/ferry-project/ferry/core/secure"
)

// Errors a front end branches on, to add its own affordance (a flag, a
// button) to what the error says: a transfer's error wraps them, and
// errors.Is finds them.
var (
	// ErrKeyChanged: a trusted device answered with another key than
	// the pinned one (a new key, or another device using its name).
	ErrKeyChanged = secure.ErrKeyChanged
	// ErrNotPaired: one end has no pin for the other, so a transfer
	// without a code was refused.
	ErrNotPaired = secure.ErrNotPaired
	// ErrWrongCode: the code was not the one the receiver shows.
	ErrWrongCode = secure.ErrWrongCode
	// ErrCodeRetired: the code was retired after too many wrong tries.
	ErrCodeRetired = secure.ErrCodeRetired
)

// WireVersion is the version of the whole wire protocol this build
// speaks, as `ferry version` shows it.
const WireVersion = secure.ProtocolVersion
