package transfer

import "fmt"

// confirmMsg: the receiver verified an entry and put it in place, as
// SavedAs (relative to its destination; empty for a text not saved).
type confirmMsg struct {
	Index   int
	Outcome Outcome
	SavedAs string
}

func (m confirmMsg) encode() []byte {
	var e enc
	e.uvarint(uint64(m.Index))
	e.u8(uint8(m.Outcome))
	e.str(m.SavedAs)
	return e.bytes()
}

func decodeConfirm(b []byte, entries int) (confirmMsg, error) {
	d := dec{b: b}
	idx := d.uvarint()
	m := confirmMsg{Outcome: Outcome(d.u8()), SavedAs: d.str(MaxPathBytes)}
	if d.err == nil && idx >= uint64(entries) {
		d.fail(fmt.Errorf("index %d out of range", idx))
	}
	if d.err == nil && (m.Outcome < Received || m.Outcome > Created) {
		d.fail(fmt.Errorf("unknown outcome %d", m.Outcome))
	}
	m.Index = int(idx)
	return m, d.done("confirm")
}
