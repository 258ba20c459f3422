package event

import (
	"strconv"
	"unicode/utf8"
)

// The entry event comes once per file, thousands a second for a folder
// of small files, on both ends. Through encoding/json (reflection over
// EntryDone, then named splicing "event" in front) its line cost a few
// microseconds and several allocations, half of what the whole event
// path cost per file. So EntryDone's JSON form is written here by hand,
// appended to the caller's buffer; every other event is rare and keeps
// encoding/json. What must stay true: the bytes are exactly
// encoding/json's, field for field and escape for escape, which
// appendjson_test.go checks on hostile strings, on every field of the
// type (a field added to EntryDone or Entry fails it until written here
// too) and by fuzzing.

// AppendJSON appends ev's JSON form, Marshal's byte for byte, to dst: a
// front end that writes many events keeps one buffer and allocates
// nothing for an entry event.
func AppendJSON(dst []byte, ev Event) ([]byte, error) {
	if e, ok := ev.(EntryDone); ok {
		return e.appendJSON(dst, 0, false), nil
	}
	b, err := Marshal(ev)
	return append(dst, b...), err
}

// AppendJSONFor appends MarshalFor's form of ev to dst (see AppendJSON).
func AppendJSONFor(dst []byte, ev Event, transfer int64) ([]byte, error) {
	if e, ok := ev.(EntryDone); ok {
		return e.appendJSON(dst, transfer, true), nil
	}
	b, err := MarshalFor(ev, transfer)
	return append(dst, b...), err
}

// entryJSONRoom is what an entry's line takes beside its two strings,
// with room to spare: the names, the size and the words.
const entryJSONRoom = 128

// marshalJSON is Marshal's form of e in a slice of its own.
func (e EntryDone) marshalJSON(transfer int64, tagged bool) []byte {
	return e.appendJSON(make([]byte, 0, entryJSONRoom+len(e.Path)+len(e.SavedAs)), transfer, tagged)
}

// appendJSON writes what encoding/json makes of EntryDone (the embedded
// Entry's fields first, its Go-only fields left out, saved_as only when
// set) behind "event" and, when tagged, "transfer".
func (e EntryDone) appendJSON(dst []byte, transfer int64, tagged bool) []byte {
	dst = append(dst, `{"event":"entry"`...)
	if tagged {
		dst = append(dst, `,"transfer":`...)
		dst = strconv.AppendInt(dst, transfer, 10)
	}
	dst = append(dst, `,"path":`...)
	dst = appendJSONString(dst, e.Path)
	dst = append(dst, `,"kind":`...)
	dst = appendJSONString(dst, e.Kind.String()) // its MarshalText
	dst = append(dst, `,"size":`...)
	dst = strconv.AppendInt(dst, e.Size, 10)
	dst = append(dst, `,"outcome":`...)
	dst = appendJSONString(dst, e.Outcome.String())
	if e.SavedAs != "" {
		dst = append(dst, `,"saved_as":`...)
		dst = appendJSONString(dst, e.SavedAs)
	}
	return append(dst, '}')
}

// asciiEscapes says how encoding/json (as json.Marshal calls it, with
// HTML escaping on) writes each ASCII byte inside a string: 0 as it is,
// 'u' as \u00XX, any other letter as a backslash and that letter. So:
// the quote and the backslash behind a backslash; the control characters
// that have a short escape (\b \f \n \r \t) with it and the others as
// \u00XX; and <, > and & as \u00XX too, since a line of JSON may end up
// inside HTML. DEL (0x7f) stays as it is.
var asciiEscapes = func() (t [utf8.RuneSelf]byte) {
	for c := range byte(0x20) {
		t[c] = 'u'
	}
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = 'b', 'f', 'n', 'r', 't'
	t['"'], t['\\'] = '"', '\\'
	t['<'], t['>'], t['&'] = 'u', 'u', 'u'
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as encoding/json writes a string: quoted,
// ASCII escaped by asciiEscapes, each byte that does not start valid
// UTF-8 as \ufffd (so the line stays valid UTF-8 whatever a peer named a
// file), and U+2028 and U+2029, which end a line in JavaScript, escaped.
// Runs of bytes that need nothing are copied whole.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	done := 0 // s[:done] is in dst
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			esc := asciiEscapes[c]
			if esc == 0 {
				i++
				continue
			}
			dst = append(dst, s[done:i]...)
			if esc == 'u' {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				dst = append(dst, '\\', esc)
			}
			i++
			done = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, s[done:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[done:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += n
			continue
		}
		i += n
		done = i
	}
	dst = append(dst, s[done:]...)
	return append(dst, '"')
}
