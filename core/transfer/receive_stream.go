package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

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

// writeLoop writes what the session queues. A confirmation waits as said
// above; anything else is flushed, with whatever waits before it, as soon
// as the queue runs dry. A keepalive goes out whenever nothing was
// flushed for keepaliveAfter (also while the person decides, so the
// sender keeps waiting): every flush restarts that timer, so no silence
// is longer than the interval plus the scheduler's delay. Closing out
// ends the stream.
func (s *rsession) writeLoop(hello []byte) {
	defer close(s.writerDone)
	nc := s.conn.NetConn()
	every := keepaliveAfter(s.timeout)
	quiet := time.NewTimer(every)
	defer quiet.Stop()
	lazy := time.NewTimer(confirmDelay)
	lazy.Stop()
	defer lazy.Stop()
	var (
		waiting int  // confirmations written but not flushed
		urgent  bool // another message written but not flushed
	)
	flush := func() error {
		waiting, urgent = 0, false
		lazy.Stop()
		// A timer that fired meanwhile is discarded by Reset (Go 1.23
		// timers), so no keepalive follows a flush at once.
		quiet.Reset(every)
		return s.conn.Flush()
	}
	write := func(b []byte) error {
		nc.SetWriteDeadline(time.Now().Add(s.timeout))
		_, err := s.conn.Write(b)
		return err
	}
	err := write(hello)
	if err == nil {
		err = flush()
	}
	for err == nil {
		select {
		case b, ok := <-s.out:
			if !ok {
				nc.SetWriteDeadline(time.Now().Add(s.timeout))
				if err := s.conn.CloseWrite(); err != nil {
					s.writerErr = fmt.Errorf("closing the stream: %w", netError(err))
				}
				return
			}
			if err = write(b); err != nil {
				break
			}
			if msgType(b[0]) == msgConfirm { // b is a frame: its type comes first
				if waiting++; waiting == 1 {
					lazy.Reset(confirmDelay)
				}
			} else {
				urgent = true
			}
			if (urgent && len(s.out) == 0) || waiting >= confirmBatch {
				err = flush()
			}
		case <-lazy.C:
			if waiting > 0 {
				err = flush()
			}
		case <-quiet.C:
			if err = write(frame(msgKeepalive, nil)); err == nil {
				err = flush()
			}
		}
	}
	s.writerErr = fmt.Errorf("sending: %w", netError(err))
	for range s.out {
	}
}

func (s *rsession) send(t msgType, body []byte) { s.out <- frame(t, body) }

// arm sets the read deadline for the next message.
func (s *rsession) arm(ctx context.Context) error {
	s.conn.NetConn().SetReadDeadline(time.Now().Add(s.timeout))
	if ctx.Err() != nil { // cancelled before the deadline was set: the AfterFunc's deadline is lost
		return cancelError(ctx)
	}
	return nil
}

// next reads the next message other than a keepalive; for a data chunk
// the body is left unread.
func (s *rsession) next(ctx context.Context) (msgType, int, []byte, error) {
	if s.peeked != nil {
		p := <-s.peeked
		s.peeked = nil
		if p.err != nil {
			return 0, 0, nil, s.readError(ctx, p.err)
		}
		return s.checkAbort(p.t, p.n, p.body)
	}
	for {
		if err := s.arm(ctx); err != nil {
			return 0, 0, nil, err
		}
		t, n, err := readHeader(s.conn, &s.hdr)
		if err != nil {
			return 0, 0, nil, s.readError(ctx, err)
		}
		if t == msgKeepalive {
			continue
		}
		if t == msgData {
			return t, n, nil, nil
		}
		body, err := readBody(s.conn, t, n)
		if err != nil {
			return 0, 0, nil, s.readError(ctx, err)
		}
		return s.checkAbort(t, n, body)
	}
}

func (s *rsession) checkAbort(t msgType, n int, body []byte) (msgType, int, []byte, error) {
	if t != msgAbort {
		return t, n, body, nil
	}
	m, err := decodeAbort(body)
	if err != nil {
		return 0, 0, nil, err
	}
	s.peerAbort = true
	return 0, 0, nil, peerAbortError("the sender", m)
}

func (s *rsession) readError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return cancelError(ctx)
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("the sender closed the stream early: %w", ErrProtocol)
	}
	return fmt.Errorf("receiving: %w", netError(err))
}

// peek reads, while the person decides, until the sender says something
// other than keepalive (its first entry, or an abort), and hands it over.
func (s *rsession) peek(ctx context.Context) {
	defer close(s.peekDone)
	for {
		if ctx.Err() != nil {
			s.peeked <- peeked{err: cancelError(ctx)}
			return
		}
		s.conn.NetConn().SetReadDeadline(time.Now().Add(s.timeout))
		t, n, err := readHeader(s.conn, &s.hdr)
		if err != nil {
			s.peeked <- peeked{err: err}
			return
		}
		if t == msgKeepalive {
			continue
		}
		p := peeked{t: t, n: n}
		if t != msgData {
			p.body, p.err = readBody(s.conn, t, n)
		}
		s.peeked <- p
		return
	}
}

// drain reads until the sender's end of stream (it may still send
// keepalives), bounded by the timeout.
func (s *rsession) drain(ctx context.Context) {
	for {
		if s.arm(ctx) != nil {
			return
		}
		t, n, err := readHeader(s.conn, &s.hdr)
		if err != nil || t != msgKeepalive || n != 0 {
			return
		}
	}
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
	if s.peekDone != nil {
		// The peek goroutine may be blocked in a read of its own: stop it
		// first, so that no two reads share the socket.
		nc.SetReadDeadline(time.Now())
		<-s.peekDone
		s.peekDone = nil
	}
	end := time.Now().Add(min(s.timeout, maxAbortGrace))
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
