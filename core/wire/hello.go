package wire

import (
	"fmt"

	"github.com/ferry-project/ferry/core/secure"
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
