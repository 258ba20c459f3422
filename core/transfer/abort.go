package transfer

// abortMsg ends a transfer early, from either end: why, as a code the
// other end maps to a sentinel error, and as text for a person.
type abortMsg struct {
	Code   abortCode
	Reason string
}

func (m abortMsg) encode() []byte {
	var e enc
	e.u8(uint8(m.Code))
	e.str(cutUTF8(m.Reason, maxReason))
	return e.bytes()
}

func decodeAbort(b []byte) (abortMsg, error) {
	d := dec{b: b}
	m := abortMsg{Code: abortCode(d.u8()), Reason: d.str(maxReason)}
	return m, d.done("abort")
}
