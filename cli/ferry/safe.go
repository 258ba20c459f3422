package main

import "github.com/ferry-project/ferry/core/app/present"

// maxShown caps, in printed characters, one peer-chosen string on a
// line for a person: enough for a long file name and its folder, short
// enough that a hostile name (a device name is up to 128 bytes, a path
// 4 KiB, an abort reason 512 bytes, each of which can quadruple when its
// bytes are escaped) cannot push a line off a terminal.
const maxShown = 120

// safe makes a string that a peer chose safe to print for a person
// (present.Shown says how), capped at maxShown: so a peer can neither
// forge a "ferry:" line, nor move the cursor, nor reorder what a person
// reads.
//
// JSON events carry peer strings raw: encoding/json escapes them.
func safe(s string) string { return escape(s, maxShown, false) }

// safeCap is safe with a cap of its own, for a narrow column (the
// progress bar's file name).
func safeCap(s string, max int) string { return escape(s, max, false) }

// escape is present.Shown: max <= 0 means no cap; keepLines leaves
// newlines and tabs alone (a text snippet on a terminal).
func escape(s string, max int, keepLines bool) string { return present.Shown(s, max, keepLines) }

// printable reports whether s needs no escaping.
func printable(s string, keepLines bool) bool { return present.Printable(s, keepLines) }
