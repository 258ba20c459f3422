package transfer

import (
	"fmt"

	"github.com/ferry-project/ferry/core/secure"
)

// helloMsg is the receiver's first message: the protocol version it speaks
// and its device name. The sender's first read therefore also tells it
// whether the code was right (core/secure reports a wrong code there).
type helloMsg struct {
	Version uint8
	Name    string
}

func (m helloMsg) encode() []byte {
	var e enc
	e.u8(m.Version)
	e.str(cutUTF8(m.Name, maxDeviceName))
	return e.bytes()
}

func decodeHello(b []byte) (helloMsg, error) {
	d := dec{b: b}
	m := helloMsg{Version: d.u8(), Name: d.str(maxDeviceName)}
	if err := d.done("hello"); err != nil {
		return helloMsg{}, err
	}
	if m.Version != protoVersion {
		return helloMsg{}, fmt.Errorf("peer speaks transfer protocol %d, this end %d: %w: %w", m.Version, protoVersion, secure.ErrIncompatibleVersion, ErrProtocol)
	}
	return m, nil
}
