package wire

import "encoding/binary"

// The messages of this file: each one's type, its row of the protocol
// table (register) and, on its constant, its body as the package doc
// words the others.
const (
	// MsgAbort: both: the transfer ends here, with a code and a reason.
	//
	//	11 abort      both code u8, reason string (≤512)
	MsgAbort Type = 11
	// MsgKeepalive: both: still here.
	//
	//	12 keepalive  both empty
	MsgKeepalive Type = 12
)

var (
	abortRow     = msgSpec{"abort", 1 + binary.MaxVarintLen64 + maxReason, byEither, EveryPhase}
	_            = register(MsgAbort, &abortRow)
	keepaliveRow = msgSpec{"keepalive", 0, byEither, EveryPhase}
	_            = register(MsgKeepalive, &keepaliveRow)
)

// AbortCode is the wire form of why a transfer ended early. Which error
// travels as which code is core/transfer's (its errors.go: AbortCodes);
// the values are the wire's.
type AbortCode uint8

const (
	CodeInternal      AbortCode = 1 // anything else: disk errors, bugs
	CodeCancelled     AbortCode = 2
	CodeDeclined      AbortCode = 3
	CodeRefusedPath   AbortCode = 4
	CodeNoSpace       AbortCode = 5
	CodeProtocol      AbortCode = 6
	CodeVerify        AbortCode = 7
	CodeSourceChanged AbortCode = 8
	CodeTimeout       AbortCode = 9
)

// Abort ends a transfer early, from either end: why, as a code the
// other end maps to a sentinel error, and as text for a person.
type Abort struct {
	Code   AbortCode
	Reason string
}

func (m Abort) Encode() []byte {
	var e enc
	e.u8(uint8(m.Code))
	e.str(cutUTF8(m.Reason, maxReason))
	return e.bytes()
}

func DecodeAbort(b []byte) (Abort, error) {
	d := dec{b: b}
	m := Abort{Code: AbortCode(d.u8()), Reason: d.str(maxReason)}
	return m, d.done("abort")
}
