package xvfb

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// closeWindow asks the X client owning window to close it, as a window
// manager's close button does: a WM_DELETE_WINDOW ClientMessage. No
// window manager runs under the test's Xvfb, and xdotool's windowclose
// destroys the window instead of asking, so the few requests are
// written here in the X11 wire format (little-endian, no
// authorization: Xvfb started without -auth accepts local clients).
func closeWindow(display string, window uint32) error {
	c, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+strings.TrimPrefix(display, ":"), 5*time.Second)
	if err != nil {
		return fmt.Errorf("connecting to X: %w", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	le := binary.LittleEndian

	// Connection setup: byte order, protocol 11.0, no authorization.
	setup := []byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, err := c.Write(setup); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		return fmt.Errorf("X setup: %w", err)
	}
	if head[0] != 1 {
		return fmt.Errorf("X refused the connection (status %d)", head[0])
	}
	if _, err := io.ReadFull(c, make([]byte, int(le.Uint16(head[6:]))*4)); err != nil {
		return fmt.Errorf("X setup: %w", err)
	}

	intern := func(name string) (uint32, error) {
		pad := (4 - len(name)%4) % 4
		req := make([]byte, 8+len(name)+pad)
		req[0] = 16 // InternAtom
		le.PutUint16(req[2:], uint16(len(req)/4))
		le.PutUint16(req[4:], uint16(len(name)))
		copy(req[8:], name)
		if _, err := c.Write(req); err != nil {
			return 0, err
		}
		rep, err := reply(c)
		if err != nil {
			return 0, fmt.Errorf("InternAtom %s: %w", name, err)
		}
		return le.Uint32(rep[8:]), nil
	}
	protocols, err := intern("WM_PROTOCOLS")
	if err != nil {
		return err
	}
	deleteWindow, err := intern("WM_DELETE_WINDOW")
	if err != nil {
		return err
	}

	req := make([]byte, 44)
	req[0] = 25 // SendEvent, no propagation
	le.PutUint16(req[2:], 11)
	le.PutUint32(req[4:], window)
	// event mask 0: to the client that created the window
	ev := req[12:]
	ev[0] = 33 // ClientMessage
	ev[1] = 32 // format
	le.PutUint32(ev[4:], window)
	le.PutUint32(ev[8:], protocols)
	le.PutUint32(ev[12:], deleteWindow) // CurrentTime follows as 0
	if _, err := c.Write(req); err != nil {
		return err
	}
	// GetInputFocus: its reply means the server has handled the event.
	if _, err := c.Write([]byte{43, 0, 1, 0}); err != nil {
		return err
	}
	_, err = reply(c)
	return err
}

// reply reads the next reply; an X error ends the exchange.
func reply(c net.Conn) ([]byte, error) {
	for {
		b := make([]byte, 32)
		if _, err := io.ReadFull(c, b); err != nil {
			return nil, err
		}
		switch b[0] {
		case 0:
			return nil, fmt.Errorf("X error %d", b[1])
		case 1:
			extra := binary.LittleEndian.Uint32(b[4:])
			if _, err := io.ReadFull(c, make([]byte, extra*4)); err != nil {
				return nil, err
			}
			return b, nil
		}
		// An event: nobody selected any, but skip it.
	}
}
