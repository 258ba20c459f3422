package transfer

import (
	"io"
	"time"

	"github.com/ferry-project/ferry/core/secure"
)

// hooks let this package's tests slow one stage on purpose, look at
// the secure connection, and retire codes sooner. They are unexported
// fields of the configs, so no front end can set them; core/internal/testhooks does the same for the
// cipher, which lives in core/secure.
type hooks struct {
	// diskRead wraps each source file as the sender reads its chunks, and
	// diskWrite each partial file as the receiver writes them: both inside
	// the call the disk timers wrap.
	diskRead  func(io.Reader) io.Reader
	diskWrite func(io.Writer) io.Writer
	// secured is given each end's connection once the handshake is done.
	secured func(*secure.Conn)
	// admitted is told, from the receiver's accept loop, how many
	// connections are pending once it admitted one.
	admitted func(pending int)
	// now replaces time.Now for the limit on Refused events.
	now func() time.Time
	// checked is told of every guess checked, under the lock that
	// counts it (the budget's clock is guess.Config.Now).
	checked func(at time.Time, right bool)
	// guessing is told when a handshake's message 3 arrived, before its
	// guess is checked: a test holds a handshake there.
	guessing func()
	// attempts, when above 0, replaces defaultMaxAttempts (maxAttempts).
	attempts int
}

// defaultMaxAttempts is how many wrong codes retire the current one.
const defaultMaxAttempts = 3

// maxAttempts is how many wrong codes retire the current one:
// defaultMaxAttempts but in the tests that set attempts.
func (h *hooks) maxAttempts() int {
	if h != nil && h.attempts > 0 {
		return h.attempts
	}
	return defaultMaxAttempts
}

func (h *hooks) reader(r io.Reader) io.Reader {
	if h == nil || h.diskRead == nil {
		return r
	}
	return h.diskRead(r)
}

func (h *hooks) writer(w io.Writer) io.Writer {
	if h == nil || h.diskWrite == nil {
		return w
	}
	return h.diskWrite(w)
}

func (h *hooks) onAdmitted(n int) {
	if h != nil && h.admitted != nil {
		h.admitted(n)
	}
}

func (h *hooks) clock() time.Time {
	if h != nil && h.now != nil {
		return h.now()
	}
	return time.Now()
}

func (h *hooks) onSecured(c *secure.Conn) {
	if h != nil && h.secured != nil {
		h.secured(c)
	}
}
