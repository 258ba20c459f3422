package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/secure"
)

// Limits every peer must respect. A message that breaks one is
// ErrProtocol, refused before anything is allocated for it.
const (
	// Version is the transfer protocol's version, in Hello and
	// Offer. It is core/secure's: one number versions the whole wire, and
	// a peer of another version is refused in the preamble, before any
	// of these messages.
	Version = secure.ProtocolVersion

	HeaderLen = 5 // type (1 byte) + body length (4 bytes, big-endian)

	MaxEntries       = 100_000            // entries in one offer
	MaxManifestBytes = 4 << 20            // encoded size of an offer
	MaxTextBytes     = 1 << 20            // size of one text snippet
	MaxPathBytes     = place.MaxPathBytes // a whole relative path
	maxDeviceName    = 128                // a device name
	maxReason        = 512                // the reason in an Abort
	maxAnswerBytes   = 5 << 20            // encoded size of an answer
	HashLen          = 32
)

// ErrProtocol is a message that breaks the protocol: an unknown type, a
// body over its limit or malformed, a message out of turn. Every error of
// this package's decoders wraps it; core/transfer's is the same value.
var ErrProtocol = errkind.New(errkind.Protocol, "protocol violation")

// parseHeader decodes a message header and checks the body length
// against the type's limit.
func parseHeader(b []byte) (Type, int, error) {
	if len(b) < HeaderLen {
		return 0, 0, fmt.Errorf("short message header: %w", ErrProtocol)
	}
	t := Type(b[0])
	n := binary.BigEndian.Uint32(b[1:5])
	spec, ok := t.spec()
	if !ok {
		return 0, 0, fmt.Errorf("unknown %v: %w", t, ErrProtocol)
	}
	max := spec.max
	if n > uint32(max) {
		return 0, 0, fmt.Errorf("%v of %d bytes, over the limit of %d: %w", t, n, max, ErrProtocol)
	}
	if t == MsgData && n == 0 {
		return 0, 0, fmt.Errorf("empty data chunk: %w", ErrProtocol)
	}
	return t, int(n), nil
}

func PutHeader(b []byte, t Type, n int) {
	b[0] = byte(t)
	binary.BigEndian.PutUint32(b[1:5], uint32(n))
}

// Frame returns header+body as one slice, so that a control message is
// one Write.
func Frame(t Type, body []byte) []byte {
	b := make([]byte, HeaderLen+len(body))
	PutHeader(b, t, len(body))
	copy(b[HeaderLen:], body)
	return b
}

// ReadHeader reads the next message header.
func ReadHeader(r io.Reader, hdr *[HeaderLen]byte) (Type, int, error) {
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if secure.IsRejection(err) { // the receiver's rejection: already says what happened
			return 0, 0, err
		}
		return 0, 0, fmt.Errorf("reading message header: %w", err)
	}
	return parseHeader(hdr[:])
}

// ReadBody reads a control message's body of n bytes (already checked
// against its type's limit).
func ReadBody(r io.Reader, t Type, n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("reading %v: %w", t, err)
	}
	return b, nil
}

// enc appends the protocol's primitive types.
type enc struct{ b []byte }

func (e *enc) u8(v uint8)       { e.b = append(e.b, v) }
func (e *enc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) fixed(p []byte)   { e.b = append(e.b, p...) }
func (e *enc) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) int64(v int64)    { e.uvarint(uint64(v)) } // v >= 0
func (e *enc) bytes() []byte    { return e.b }

var errShort = errors.New("message ends early")

// dec reads the protocol's primitive types from a message body. Its
// error is sticky: check it once, at the end, with done.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *dec) u8() uint8 {
	if d.err != nil || len(d.b) < 1 {
		d.fail(errShort)
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *dec) uvarint() uint64 { return readVarint(d, binary.Uvarint, "unsigned") }
func (d *dec) varint() int64   { return readVarint(d, binary.Varint, "signed") }

// readVarint reads one varint with read (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](d *dec, read func([]byte) (T, int), kind string) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b)
	if n <= 0 {
		d.fail(fmt.Errorf("bad %s varint", kind))
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int64 reads a non-negative size or offset.
func (d *dec) int64() int64 {
	v := d.uvarint()
	if v > math.MaxInt64 {
		d.fail(fmt.Errorf("size %d overflows", v))
		return 0
	}
	return int64(v)
}

// count reads a length and checks it against max and against what is left
// of the body (each item needing at least min bytes), so that a lying
// count cannot make the caller allocate.
func (d *dec) count(max, min int) int {
	v := d.uvarint()
	if d.err != nil {
		return 0
	}
	if v > uint64(max) {
		d.fail(fmt.Errorf("count %d over the limit of %d", v, max))
		return 0
	}
	if v*uint64(min) > uint64(len(d.b)) {
		d.fail(fmt.Errorf("count %d does not fit in %d bytes", v, len(d.b)))
		return 0
	}
	return int(v)
}

func (d *dec) fixed(n int) []byte {
	if d.err != nil || len(d.b) < n {
		d.fail(errShort)
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

// str reads a UTF-8 string of at most max bytes.
func (d *dec) str(max int) string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(max) {
		d.fail(fmt.Errorf("string of %d bytes over the limit of %d", n, max))
		return ""
	}
	b := d.fixed(int(n))
	if d.err != nil {
		return ""
	}
	if !utf8.Valid(b) {
		d.fail(errors.New("string is not UTF-8"))
		return ""
	}
	return string(b)
}

// done reports the first decoding error, or trailing bytes, wrapped in
// ErrProtocol.
func (d *dec) done(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return fmt.Errorf("decoding %s: %w: %w", what, d.err, ErrProtocol)
	}
	return nil
}

// cutUTF8 cuts s to at most n bytes on a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
