package receive

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// helpers are a session's goroutines besides its own, each started and
// waited for by the session: writeLoop, the peek while the person
// decides, and the placer.
type helpers struct {
	wr    writer    // the stream's writing end (writeLoop)
	ahead lookahead // the first message after the offer, read while the person decides
	pl    placer    // places the small files (receive_place.go)
}

// writer is a session's writing end: writeLoop sends what goes on out
// and closes done once it returns, err set before.
type writer struct {
	out  chan []byte   // framed messages for writeLoop, confirmations aside
	done chan struct{} // closed when writeLoop returns
	err  error         // set before done closes

	// Confirmations wait here, appended by the session under mu, not
	// handed to writeLoop one by one: a hand-off per file woke writeLoop
	// per file, which with many small files cost more than the files.
	// writeLoop takes them all at once when confirmBatch of them wait
	// (full), when lazy fires confirmDelay after the oldest, and before
	// any other message.
	mu       sync.Mutex
	confirms []byte        // framed, in order
	waiting  int           // how many
	full     chan struct{} // one slot: confirmBatch of them wait
	lazy     *time.Timer   // started by the session at the first one waiting
}

// lookahead is the first message after the offer, read while the person
// decides: it comes on ch, and done closes once the reading ends.
type lookahead struct {
	ch   chan peeked
	done chan struct{}
}

// Confirmations are flushed lazily: the sender never waits for one (it
// needs them all only at the end, and done, flushed at once, comes after
// the last), so with many small files a flush per file would make a
// socket write per file. They go out once confirmBatch of them wait, or
// confirmDelay after the oldest, or with any other message; the delay
// only bounds how late the sender's EntryDone events are.
const (
	confirmBatch = 128
	confirmDelay = 100 * time.Millisecond
)

// startWriter makes the writing end and starts writeLoop, which sends
// hello first.
func (s *rsession) startWriter(hello []byte) {
	s.wr.out = make(chan []byte, 64)
	s.wr.done = make(chan struct{})
	s.wr.full = make(chan struct{}, 1)
	s.wr.lazy = time.NewTimer(confirmDelay)
	s.wr.lazy.Stop()
	go s.writeLoop(hello)
}

// writeLoop writes what the session queues. Confirmations wait as said
// above; anything else is flushed, with whatever waits before it, as
// soon as the queue runs dry. A keepalive goes out whenever nothing was
// flushed for keepaliveAfter (also while the person decides, so the
// sender keeps waiting): every flush restarts that timer, so no silence
// is longer than the interval plus the scheduler's delay. Closing out
// ends the stream.
func (s *rsession) writeLoop(hello []byte) {
	defer close(s.wr.done)
	defer s.wr.lazy.Stop()
	nc := s.Conn.NetConn()
	every := transfer.KeepaliveAfter(s.Timeout)
	quiet := time.NewTimer(every)
	defer quiet.Stop()
	flush := func() error {
		// A timer that fired meanwhile is discarded by Reset (Go 1.23
		// timers), so no keepalive follows a flush at once.
		quiet.Reset(every)
		return s.Conn.Flush()
	}
	write := func(b []byte) error {
		nc.SetWriteDeadline(time.Now().Add(s.Timeout))
		_, err := s.Conn.Write(b)
		return err
	}
	var spare []byte // the confirmations' other buffer: the two take turns
	// confirmed writes the confirmations waiting, and reports whether
	// there were any.
	confirmed := func() (bool, error) {
		s.wr.mu.Lock()
		b := s.wr.confirms
		s.wr.confirms, s.wr.waiting = spare[:0], 0
		s.wr.mu.Unlock()
		spare = b
		if len(b) == 0 {
			return false, nil
		}
		return true, write(b)
	}
	err := write(hello)
	if err == nil {
		err = flush()
	}
	for err == nil {
		select {
		case b, ok := <-s.wr.out:
			// The confirmations queued before b go first.
			if _, err = confirmed(); err != nil {
				break
			}
			if !ok {
				nc.SetWriteDeadline(time.Now().Add(s.Timeout))
				if err := s.Conn.CloseWrite(); err != nil {
					s.wr.err = fmt.Errorf("closing the stream: %w", transfer.NetError(err))
				}
				return
			}
			if err = write(b); err == nil && len(s.wr.out) == 0 {
				err = flush()
			}
		case <-s.wr.full:
			err = s.flushConfirmed(confirmed, flush)
		case <-s.wr.lazy.C:
			err = s.flushConfirmed(confirmed, flush)
		case <-quiet.C:
			if err = write(wire.Frame(wire.MsgKeepalive, nil)); err == nil {
				err = flush()
			}
		}
	}
	s.wr.err = fmt.Errorf("sending: %w", transfer.NetError(err))
	for range s.wr.out {
	}
}

// flushConfirmed writes and flushes the confirmations waiting, if any.
func (s *rsession) flushConfirmed(confirmed func() (bool, error), flush func() error) error {
	some, err := confirmed()
	if err != nil || !some {
		return err
	}
	return flush()
}

func (s *rsession) send(t wire.Type, body []byte) {
	if t == wire.MsgConfirm {
		s.queueConfirm(body)
		return
	}
	s.wr.out <- wire.Frame(t, body)
}

// queueConfirm adds a confirmation to those waiting, waking writeLoop
// only when confirmBatch of them wait; the first starts the lazy timer.
func (s *rsession) queueConfirm(body []byte) {
	var hdr [wire.HeaderLen]byte
	wire.PutHeader(hdr[:], wire.MsgConfirm, len(body))
	s.wr.mu.Lock()
	s.wr.confirms = append(append(s.wr.confirms, hdr[:]...), body...)
	s.wr.waiting++
	n := s.wr.waiting
	s.wr.mu.Unlock()
	switch n {
	case 1:
		s.wr.lazy.Reset(confirmDelay)
	case confirmBatch:
		select {
		case s.wr.full <- struct{}{}:
		default: // writeLoop has yet to take the last nudge
		}
	}
}

// armSlack is the fraction of the timeout by which arm may leave the
// read deadline as it was: setting it is a lock and a timer moved in the
// runtime's poller, and a folder of small files reads three messages a
// file. A peer is then allowed a silence of at least 63/64 of the timeout
// (its keepalives come every quarter), never more than the whole.
const armSlack = 64

// arm sets the read deadline for the next message, unless the one set
// is less than Timeout/armSlack old. Nothing else moves it earlier while
// messages are read but the cancellation's AfterFunc and the placer
// failing, which ctx.Err() and pl.failed catch below.
func (s *rsession) arm(ctx context.Context) error {
	if now := time.Now(); now.Sub(s.armed) >= s.Timeout/armSlack || now.Before(s.armed) {
		s.Conn.NetConn().SetReadDeadline(now.Add(s.Timeout))
		s.armed = now
	}
	if ctx.Err() != nil { // cancelled before the deadline was set: the AfterFunc's deadline is lost
		return transfer.CancelError(ctx)
	}
	if s.pl.failed.Load() { // the same for the placer's
		return errPlacing
	}
	return nil
}

// next reads the next message, for state ph: the one the peek goroutine
// read while the person decided, if any, else through readMsg.
func (s *rsession) next(ctx context.Context, ph wire.Phase) (transfer.Msg, error) {
	if s.ahead.ch != nil {
		p := <-s.ahead.ch
		s.ahead.ch = nil
		if p.err != nil {
			return transfer.Msg{}, p.err
		}
		return p.m, s.Expect(p.m, ph)
	}
	return s.ReadMsg(ph, func() error { return s.arm(ctx) })
}

// peek reads, while the person decides, until the sender says something
// other than keepalive (its first entry, or an abort), and hands it over.
// What it read is checked against the state of the one who takes it.
func (s *rsession) peek(ctx context.Context) {
	defer close(s.ahead.done)
	m, err := s.ReadMsg(wire.EveryPhase, func() error {
		if ctx.Err() != nil {
			return transfer.CancelError(ctx)
		}
		s.Conn.NetConn().SetReadDeadline(time.Now().Add(s.Timeout))
		return nil
	})
	s.ahead.ch <- peeked{m: m, err: err}
}

// drain reads until the sender's end of stream (it may still send
// keepalives), bounded by the timeout.
func (s *rsession) drain(ctx context.Context) {
	s.ReadMsg(wire.PhClosed, func() error { return s.arm(ctx) })
}

// maxLinger bounds the bytes linger discards: what the sender had in
// flight when it read the abort, socket buffers' worth, not a stream.
const maxLinger = 64 << 20

// linger, after this end sent an abort and its end of stream, reads and
// discards what the sender still sends until it closes, for at most
// min(timeout, maxAbortGrace). Closing at once with the sender's bytes
// unread would make the kernel reset the connection, and a reset throws
// away whatever of the abort was not yet sent: the sender would report a
// lost connection instead of the reason. core/secure's reject does the
// same for a rejection.
func (s *rsession) linger(nc net.Conn) {
	if s.ahead.done != nil {
		// The peek goroutine may be blocked in a read of its own: stop it
		// first, so that no two reads share the socket.
		nc.SetReadDeadline(time.Now())
		<-s.ahead.done
		s.ahead.done = nil
	}
	end := time.Now().Add(min(s.Timeout, transfer.MaxAbortGrace))
	buf := make([]byte, 32<<10)
	for left := maxLinger; left > 0; {
		// Set at every read: a cancellation's AfterFunc may move the
		// deadline to now at any time, which must not cut the grace short.
		nc.SetReadDeadline(end)
		n, err := nc.Read(buf)
		left -= n
		if err != nil && (!errors.Is(err, os.ErrDeadlineExceeded) || !time.Now().Before(end)) {
			return
		}
	}
}
