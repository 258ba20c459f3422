package main

import (
	"fmt"

	"github.com/ferry-project/ferry/core/errkind"
)

// The form of a code, checked on both ends before anything touches the
// network: a sender that mistyped "12345" or passed "abc" learns it at
// once, without dialling, and without spending one of the receiver's
// guesses (a wrong code counts against its budget).
//
// A code the receiver picks is six digits (core/transfer's newCode, about
// 20 bits), or 8 or 10 on a device where 12 or 24 wrong codes were tried
// (core/guess's Digits). One a person fixes with 'ferry receive --code' must have the
// same strength or more and be as easy to type: 6 to 64 ASCII letters,
// digits or dashes ("123456", "apple-river-stone"). Both ends apply this
// one rule, so a code the receiver took is always one a sender can type.
const (
	minCodeLen = 6
	maxCodeLen = 64
)

// codeHint says what a code looks like, for every message about one.
const codeHint = "a code is the digits the receiver shows, like 123456 (one chosen with 'ferry receive --code' has 6 to 64 letters, digits or dashes)"

// checkCodeForm reports why code cannot be a code, or nil. It says
// nothing about whether the code is right: only the receiver knows.
func checkCodeForm(code string) error {
	if len(code) < minCodeLen {
		return fmt.Errorf("too short: %d characters, at least %d", len(code), minCodeLen)
	}
	if len(code) > maxCodeLen {
		return fmt.Errorf("too long: %d characters, at most %d", len(code), maxCodeLen)
	}
	for _, r := range code {
		switch {
		case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '-':
		default:
			return fmt.Errorf("%q is not a letter, digit or dash", r)
		}
	}
	return nil
}

// codeFlagError is the usage error for a --code that fails
// checkCodeForm; nil when it passes.
func codeFlagError(code string) error {
	if err := checkCodeForm(code); err != nil {
		return &usageError{kind: string(errkind.BadCode), hint: codeHint,
			msg: fmt.Sprintf("bad --code \"%s\": %v", safeCap(code, 24), err)}
	}
	return nil
}
