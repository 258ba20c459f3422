package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/ferry-project/ferry/core/app/event"
)

// The messages of this file: each one's type, its row of the protocol
// table (register) and, on its constant, its body as the package doc
// words the others.
const (
	// MsgConfirm: R→S: an entry is verified and in place.
	//
	//	8  confirm    R→S  index uvarint, outcome u8 (event.Outcome), saved-as
	//	                   string
	MsgConfirm Type = 8
)

var (
	confirmRow = msgSpec{"confirm", binary.MaxVarintLen64 + 1 + binary.MaxVarintLen64 + MaxPathBytes, byReceiver, PhConfirms}
	_          = register(MsgConfirm, &confirmRow)
)

// Confirm: the receiver verified an entry and put it in place, as
// SavedAs (relative to its destination; empty for a text not saved).
type Confirm struct {
	Index   int
	Outcome event.Outcome
	SavedAs string
}

func (m Confirm) Encode() []byte {
	var e enc
	e.uvarint(uint64(m.Index))
	e.u8(uint8(m.Outcome))
	e.str(m.SavedAs)
	return e.bytes()
}

func DecodeConfirm(b []byte, entries int) (Confirm, error) {
	d := dec{b: b}
	idx := d.uvarint()
	m := Confirm{Outcome: event.Outcome(d.u8()), SavedAs: d.str(MaxPathBytes)}
	if d.err == nil && idx >= uint64(entries) {
		d.fail(fmt.Errorf("index %d out of range", idx))
	}
	if d.err == nil && (m.Outcome < event.Received || m.Outcome > event.Created) {
		d.fail(fmt.Errorf("unknown outcome %d", m.Outcome))
	}
	m.Index = int(idx)
	return m, d.done("confirm")
}
