package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/ferry-project/ferry/core/secure"
)

// The messages of this file: each one's type, its row of the protocol
// table (register) and, on its constant, its body as the package doc
// words the others.
const (
	// MsgHello: R→S, first: version, receiver's name.
	//
	//	1  hello      R→S  version u8 (=2), device name string (≤128)
	MsgHello Type = 1
)

var (
	helloRow = msgSpec{"hello", 1 + binary.MaxVarintLen64 + maxDeviceName, byReceiver, PhHello}
	_        = register(MsgHello, &helloRow)
)

// Hello is the receiver's first message: the protocol version it speaks
// and its device name. The sender's first read therefore also tells it
// whether the code was right (core/secure reports a wrong code there).
type Hello struct {
	Version uint8
	Name    string
}

func (m Hello) Encode() []byte {
	var e enc
	e.u8(m.Version)
	e.str(cutUTF8(m.Name, maxDeviceName))
	return e.bytes()
}

func DecodeHello(b []byte) (Hello, error) {
	d := dec{b: b}
	m := Hello{Version: d.u8(), Name: d.str(maxDeviceName)}
	if err := d.done("hello"); err != nil {
		return Hello{}, err
	}
	if m.Version != Version {
		return Hello{}, fmt.Errorf("peer speaks transfer protocol %d, this end %d: %w: %w", m.Version, Version, secure.ErrIncompatibleVersion, ErrProtocol)
	}
	return m, nil
}
