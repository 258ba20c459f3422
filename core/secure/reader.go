package secure

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// reader pulls ciphertext into buf in large blocks and opens records in
// place.
//
//	buf[pr:pw]    plaintext of the current record not yet returned
//	buf[pw:next]  the current record's tag
//	buf[next:end] ciphertext read from the socket, not yet opened
//
// The buffer compacts (moves buf[pr:end] to the front) only when the
// bytes asked for do not fit behind end, so it copies at most once per
// refill. Nothing is allocated after construction.
type reader struct {
	c     *Conn
	rc    *recordCipher
	buf   []byte
	pr    int
	pw    int
	next  int
	end   int
	exact bool // ask the socket for exactly what is needed (benchmarks)
	fresh bool // no record opened yet: a cleartext rejection may come
	eof   bool
	err   error
}

// Read returns plaintext. It returns io.EOF only after the peer's
// authenticated end of stream, and a sticky error for anything else.
func (c *Conn) Read(p []byte) (int, error) {
	r := &c.r
	if len(p) == 0 {
		return 0, r.err
	}
	for r.pr == r.pw {
		if r.err != nil {
			return 0, r.err
		}
		if r.eof {
			return 0, io.EOF
		}
		if err := r.nextRecord(); err != nil {
			r.err = err
			return 0, err
		}
	}
	n := copy(p, r.buf[r.pr:r.pw])
	r.pr += n
	return n, nil
}

// Prefetch tells the reader that n more plaintext bytes are on their way.
// It blocks until the smallest ciphertext that can carry them is buffered
// (n + 18·⌈n/65519⌉ bytes beyond what is already decrypted, capped by the
// buffer), so that reading them then costs no more socket reads. It never
// waits for bytes the peer does not owe.
func (c *Conn) Prefetch(n int) error {
	r := &c.r
	if r.err != nil {
		return r.err
	}
	if r.eof {
		return nil
	}
	m := n - (r.pw - r.pr)
	if m <= 0 {
		return nil
	}
	want := m + overhead*((m+MaxPlaintext-1)/MaxPlaintext)
	if room := len(r.buf) - (r.next - r.pr); want > room {
		want = room
	}
	if err := r.ensure(want); err != nil {
		r.err = err
		return err
	}
	return nil
}

// ensure makes buf[next:next+k] hold bytes read from the socket.
func (r *reader) ensure(k int) error {
	have := r.end - r.next
	if have >= k {
		return nil
	}
	if r.pr == r.pw {
		r.pr, r.pw = r.next, r.next
	}
	if len(r.buf)-r.end < k-have || len(r.buf)-r.end < frameMax {
		shift := r.pr
		copy(r.buf, r.buf[shift:r.end])
		r.pr -= shift
		r.pw -= shift
		r.next -= shift
		r.end -= shift
	}
	want := k - have
	limit := len(r.buf)
	if r.exact {
		limit = r.end + want
	}
	n, err := r.c.timedRead(r.buf[r.end:limit], want)
	r.end += n
	if err != nil {
		return wrapNetErr("reading record", err)
	}
	return nil
}

func (r *reader) nextRecord() error {
	if err := r.ensure(lenSize); err != nil {
		return err
	}
	l := int(binary.BigEndian.Uint16(r.buf[r.next:]))
	if l == 0 {
		if !r.fresh {
			return fmt.Errorf("reading record: %w: zero length", ErrMalformed)
		}
		// Before the first record, a zero length is the responder's
		// cleartext rejection of the handshake (see refuse.go).
		if err := r.ensure(lenSize + 1); err != nil {
			return err
		}
		err := fromResponder(r.buf[r.next+lenSize])
		if r.buf[r.next+lenSize] == rejectBusy {
			// A count may follow (RefuseBusyWith); the responder
			// closed its direction after it, so this ends at once.
			moreErr := r.ensure(lenSize + 2)
			var more byte
			if moreErr == nil {
				more = r.buf[r.next+lenSize+1]
			}
			return busyCount(err, more, moreErr)
		}
		return err
	}
	if l < tagSize {
		return fmt.Errorf("reading record: %w: length %d is shorter than its tag", ErrMalformed, l)
	}
	if err := r.ensure(lenSize + l); err != nil {
		return err
	}
	body := r.buf[r.next+lenSize : r.next+lenSize+l]
	t := time.Now()
	n, err := r.rc.open(body)
	r.c.timers.Since(diag.Decrypt, t, n)
	if err != nil {
		return fmt.Errorf("opening record: %w", err)
	}
	r.fresh = false
	r.pr = r.next + lenSize
	r.pw = r.pr + n
	r.next += lenSize + l
	if n == 0 {
		r.eof = true
		if r.end > r.next {
			return fmt.Errorf("reading record: %w (%d bytes)", ErrTrailingData, r.end-r.next)
		}
	}
	return nil
}
