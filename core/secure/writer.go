package secure

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// writer seals plaintext into records in place and batches them.
//
// buf holds sealed records in buf[:start]; the open record's length slot
// is buf[start:start+2] and its plaintext buf[start+2:start+2+plen]. When
// the open record is full it is sealed where it lies, and when the sealed
// records reach batch bytes they go to the socket in one write. Nothing is
// allocated after construction.
type writer struct {
	c     *Conn
	rc    *recordCipher
	buf   []byte
	batch int
	start int
	plen  int
	err   error
}

// Write buffers p, sealing a record each time one fills. It never sends a
// partial record by itself: call Flush before waiting for the peer.
func (c *Conn) Write(p []byte) (int, error) {
	w := &c.w
	total := 0
	for len(p) > 0 {
		if w.err != nil {
			return total, w.err
		}
		off := w.start + lenSize + w.plen
		n := copy(w.buf[off:w.start+lenSize+MaxPlaintext], p)
		w.plen += n
		total += n
		p = p[n:]
		if w.plen == MaxPlaintext {
			if err := w.seal(); err != nil {
				return total, err
			}
		}
	}
	return total, w.err
}

// Flush seals the open record, if any, and writes every sealed record.
func (c *Conn) Flush() error {
	w := &c.w
	if w.err != nil {
		return w.err
	}
	if w.plen > 0 {
		if err := w.seal(); err != nil {
			return err
		}
	}
	return w.send()
}

// CloseWrite sends everything buffered followed by the authenticated end
// of stream, and half-closes the socket. Later writes return ErrClosed.
func (c *Conn) CloseWrite() error {
	w := &c.w
	if err := c.Flush(); err != nil {
		return err
	}
	// The end of stream is a record with no plaintext.
	if err := w.seal(); err != nil {
		return err
	}
	if err := w.send(); err != nil {
		return err
	}
	w.err = fmt.Errorf("writing: %w", ErrClosed)
	if tc, ok := c.nc.(interface{ CloseWrite() error }); ok {
		// Best effort: a FIN tells the peer nothing more is coming even
		// if it stops reading records; the end record already said so.
		_ = tc.CloseWrite()
	}
	return nil
}

func (w *writer) seal() error {
	body := w.buf[w.start+lenSize:]
	t := time.Now()
	n, err := w.rc.seal(body, w.plen)
	w.c.timers.Since(diag.Encrypt, t, w.plen)
	if err != nil {
		w.err = fmt.Errorf("sealing record: %w", err)
		return w.err
	}
	if n > maxRecord {
		panic("secure: sealed record over 65535 bytes") // invariant: plen <= MaxPlaintext
	}
	binary.BigEndian.PutUint16(w.buf[w.start:], uint16(n))
	w.start += lenSize + n
	w.plen = 0
	if w.start >= w.batch {
		return w.send()
	}
	return nil
}

func (w *writer) send() error {
	if w.start == 0 {
		return nil
	}
	if err := w.c.timedWrite(w.buf[:w.start]); err != nil {
		w.err = err
		return err
	}
	w.start = 0
	return nil
}
