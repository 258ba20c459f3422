package app

import "fmt"

// The form of a code, checked on both ends before anything touches the
// network: a sender that mistyped "12345" or passed "abc" learns it at
// once, without dialling, and without spending one of the receiver's
// guesses (a wrong code counts against its budget).
//
// A code the receiver picks is six digits (about 20 bits), or 8 or 10 on
// a device where 12 or 24 wrong codes were tried (the guess budget's
// digits). One a person fixes must have the same strength or more and be
// as easy to type: 6 to 64 ASCII letters, digits or dashes ("123456",
// "apple-river-stone"). Both ends apply this one rule, so a code the
// receiver took is always one a sender can type.
const (
	MinCodeLen = 6
	MaxCodeLen = 64
)

// CheckCodeForm reports why code cannot be a code, or nil. It says
// nothing about whether the code is right: only the receiver knows.
func CheckCodeForm(code string) error {
	if len(code) < MinCodeLen {
		return fmt.Errorf("too short: %d characters, at least %d", len(code), MinCodeLen)
	}
	if len(code) > MaxCodeLen {
		return fmt.Errorf("too long: %d characters, at most %d", len(code), MaxCodeLen)
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
