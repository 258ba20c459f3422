package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// maxResumes bounds the partial files resumed in one transfer: each
// keeps a hash state (18 KiB, so about 1 MiB at most) from the answer
// until its bytes come.
// Further partial files start over.
const maxResumes = 64

// rsession is one incoming transfer. Its goroutine (the caller of run)
// owns every read after the offer and the disk; writeLoop owns every
// write, fed through out.
type rsession struct {
	cfg     *ReceiverConfig
	decide  <-chan bool
	conn    stream
	ev      *emitter
	timers  *diag.Timers
	peerFP  string
	timeout time.Duration

	out           chan []byte   // framed messages for writeLoop
	writerDone    chan struct{} // closed when writeLoop returns
	writerErr     error         // set before writerDone closes
	peeked        chan peeked   // the first message after the offer, read while the person decides
	peekDone      chan struct{}
	peerAbort     bool // the sender ended the transfer: do not answer
	declineReason string

	hdr     [headerLen]byte
	buf     []byte
	hash    hasher // the current entry's, reused from entry to entry
	dest    *dest
	entries []Entry
	tops    map[string]string
	answers map[int]*planned
	meter   *meter
	sum     Summary
	start   time.Time
}

// planned is what the receiver answered for one file.
type planned struct {
	action action
	offset int64
	hash   *hasher // resume: the state after the kept bytes
}

// peeked is a message read by the peek goroutine.
type peeked struct {
	t    msgType
	n    int
	body []byte
	err  error
}

func (s *rsession) run(parent context.Context) (Summary, error) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	nc := s.conn.NetConn()
	// A cancelled transfer must not stay blocked reading: break the read,
	// and let writeLoop tell the sender why.
	stop := context.AfterFunc(ctx, func() { nc.SetReadDeadline(time.Now()) })
	defer stop()

	s.out = make(chan []byte, 64)
	s.writerDone = make(chan struct{})
	go s.writeLoop(frame(msgHello, helloMsg{Version: protoVersion, Name: s.cfg.Name}.encode()))

	err := s.exchange(ctx)
	if err != nil {
		if s.meter != nil {
			s.meter.tick(true) // where it stopped
		}
		if ctx.Err() != nil {
			err = cancelError(ctx)
		}
		if !s.peerAbort && !isPeerGone(err) {
			reason := reasonOf(ctx, err)
			if errors.Is(err, ErrDeclined) {
				reason = s.declineReason
			}
			s.out <- frame(msgAbort, abortMsg{Code: codeOf(err), Reason: reason}.encode())
		}
	}
	close(s.out)
	<-s.writerDone
	if err == nil && s.writerErr != nil {
		err = s.writerErr
	}
	if err == nil {
		// Wait for the sender's end of stream, so that closing cannot
		// cut off the last confirmations.
		s.drain(ctx)
	}
	s.conn.Close()
	if s.peekDone != nil {
		<-s.peekDone
	}
	if s.dest != nil {
		s.dest.close()
	}
	if err != nil {
		return Summary{}, err
	}
	s.ev.emit(Finished{Summary: s.sum})
	return s.sum, nil
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

// writeLoop writes what the session queues. A confirmation waits as said
// above; anything else is flushed, with whatever waits before it, as soon
// as the queue runs dry. A keepalive goes out whenever the stream has
// been quiet for a third of the timeout (also while the person decides,
// so the sender keeps waiting). Closing out ends the stream.
func (s *rsession) writeLoop(hello []byte) {
	defer close(s.writerDone)
	nc := s.conn.NetConn()
	every := s.timeout / 3
	tick := time.NewTicker(every)
	defer tick.Stop()
	lazy := time.NewTimer(confirmDelay)
	lazy.Stop()
	defer lazy.Stop()
	last := time.Now()
	var (
		waiting int  // confirmations written but not flushed
		urgent  bool // another message written but not flushed
	)
	flush := func() error {
		waiting, urgent, last = 0, false, time.Now()
		lazy.Stop()
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
		case <-tick.C:
			if time.Since(last) >= every {
				if err = write(frame(msgKeepalive, nil)); err == nil {
					err = flush()
				}
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

func (s *rsession) exchange(ctx context.Context) error {
	t, _, body, err := s.next(ctx)
	if err != nil {
		return err
	}
	if t != msgOffer {
		return fmt.Errorf("expected an offer, got %v: %w", t, ErrProtocol)
	}
	om, err := decodeOffer(body)
	if err != nil {
		return err
	}
	body = nil
	addr := s.conn.NetConn().RemoteAddr().String()
	s.ev.emit(Connected{PeerName: om.Name, PeerFingerprint: s.peerFP, Addr: addr})
	if err := validateEntries(om.Entries); err != nil {
		return fmt.Errorf("refusing the offer: %w", err)
	}
	s.entries = om.Entries
	if s.dest, err = openDest(s.cfg.Dir, s.cfg.Overwrite, s.peerFP); err != nil {
		return hidePath(err, s.cfg.Dir, "the destination folder")
	}
	if s.tops, err = s.dest.mapTops(s.entries); err != nil {
		return fmt.Errorf("refusing the offer: %w", err)
	}
	if err := s.checkSpace(); err != nil {
		return err
	}
	offer := summarize(s.entries)
	offer.PeerName, offer.PeerFingerprint = om.Name, s.peerFP

	// Decide, while a helper goroutine listens for the sender cancelling.
	s.peeked = make(chan peeked, 1)
	s.peekDone = make(chan struct{})
	go s.peek(ctx)
	yes, err := s.decideOffer(ctx, offer)
	if err != nil {
		return err
	}
	if !yes {
		return fmt.Errorf("offer declined: %w", ErrDeclined)
	}
	s.start = time.Now()
	if err := s.prepare(ctx); err != nil {
		return err
	}
	return s.receive(ctx)
}

// checkSpace refuses an offer that cannot fit: its bytes, less what
// partial files already hold, against the space free on the destination.
func (s *rsession) checkSpace() error {
	free, ok := freeSpace(s.cfg.Dir)
	if !ok {
		return nil
	}
	var need int64
	for _, e := range s.entries {
		if e.Kind == KindFile || (e.Kind == KindText && s.cfg.SaveText) {
			need += e.Size
			if e.Kind == KindFile {
				if n := s.dest.regularSize(s.dest.partialPath(e)); n > 0 {
					need -= min(n, e.Size)
				}
			}
		}
	}
	if need > free {
		return fmt.Errorf("the offer needs %d bytes, the destination has %d free: %w", need, free, ErrNoSpace)
	}
	return nil
}

func (s *rsession) decideOffer(ctx context.Context, offer Offer) (bool, error) {
	switch s.cfg.Policy {
	case AcceptAll:
		s.ev.emit(Offered{Offer: offer})
		return true, nil
	case DeclineAll:
		s.ev.emit(Offered{Offer: offer})
		s.declineReason = "declined by policy"
		return false, nil
	}
	for drained := false; !drained; { // an answer left from an earlier offer does not count
		select {
		case <-s.decide:
		default:
			drained = true
		}
	}
	s.ev.emit(Offered{Offer: offer})
	select {
	case yes := <-s.decide:
		s.declineReason = "declined by the user"
		return yes, nil
	case p := <-s.peeked:
		s.peeked = nil
		if p.err != nil {
			return false, s.readError(ctx, p.err)
		}
		if _, _, _, err := s.checkAbort(p.t, p.n, p.body); err != nil {
			return false, err
		}
		return false, fmt.Errorf("the sender sent %v before the answer: %w", p.t, ErrProtocol)
	case <-ctx.Done():
		return false, cancelError(ctx)
	}
}

// prepare creates the offered folders and works out, per file, whether
// an identical file is in place (have) or a partial can continue
// (resume), then answers.
func (s *rsession) prepare(ctx context.Context) error {
	s.buf = make([]byte, maxChunk+headerLen)
	s.answers = make(map[int]*planned)
	var ans answerMsg
	var total int64
	resumes := 0
	for i, e := range s.entries {
		if ctx.Err() != nil {
			return cancelError(ctx)
		}
		final := finalPath(e.Path, s.tops)
		switch e.Kind {
		case KindDir:
			if _, err := s.dest.mkdir(final); err != nil {
				return err
			}
			continue
		case KindText:
			total += e.Size
			continue
		}
		total += e.Size
		if s.dest.regularSize(final) == e.Size {
			h := &s.hash
			h.Reset()
			if err := s.dest.hashPrefix(ctx, final, e.Size, h, s.buf, s.timers); err == nil {
				it := answerItem{Index: i, Action: actHave, Offset: e.Size}
				h.Sum(it.Hash[:0])
				ans.Items = append(ans.Items, it)
				s.answers[i] = &planned{action: actHave, offset: e.Size}
				total -= e.Size
				continue
			} else if ctx.Err() != nil {
				return err
			}
		}
		part := s.dest.partialPath(e)
		if k := min(s.dest.regularSize(part), e.Size); k > 0 && resumes < maxResumes {
			h := newHasher()
			if err := s.dest.hashPrefix(ctx, part, k, h, s.buf, s.timers); err == nil {
				it := answerItem{Index: i, Action: actResume, Offset: k}
				h.Sum(it.Hash[:0])
				ans.Items = append(ans.Items, it)
				s.answers[i] = &planned{action: actResume, offset: k, hash: h}
				total -= k
				resumes++
			} else if ctx.Err() != nil {
				return err
			}
		}
	}
	s.meter = newMeter(s.ev, s.timers, s.cfg.Diag, total, len(s.entries))
	s.send(msgAnswer, ans.encode())
	return nil
}

// receive takes the sender's entries, in offer order, then its finish.
func (s *rsession) receive(ctx context.Context) error {
	i := 0
	skipDirs := func() {
		for i < len(s.entries) && s.entries[i].Kind == KindDir {
			i++
		}
	}
	for {
		skipDirs()
		t, _, body, err := s.next(ctx)
		if err != nil {
			return err
		}
		switch t {
		case msgBegin:
			m, err := decodeBegin(body)
			if err != nil {
				return err
			}
			if m.Index != i {
				return fmt.Errorf("sender began entry %d, expected %d: %w", m.Index, i, ErrProtocol)
			}
			if err := s.receiveEntry(ctx, i, m.Offset); err != nil {
				return err
			}
			i++
		case msgSkip:
			m, err := decodeSkip(body)
			if err != nil {
				return err
			}
			if m.Index != i || s.answers[i] == nil || s.answers[i].action != actHave {
				return fmt.Errorf("sender skipped entry %d, which this end does not have: %w", m.Index, ErrProtocol)
			}
			e := s.entries[i]
			s.sum.SkippedBytes += e.Size
			s.confirm(i, Skipped, finalPath(e.Path, s.tops))
			i++
		case msgFinish:
			if i != len(s.entries) {
				return fmt.Errorf("sender finished before entry %d of %d: %w", i, len(s.entries), ErrProtocol)
			}
			return s.finish()
		default:
			return fmt.Errorf("unexpected %v: %w", t, ErrProtocol)
		}
	}
}

func (s *rsession) confirm(i int, o Outcome, savedAs string) {
	s.meter.entry()
	ed := EntryDone{Entry: s.entries[i], Outcome: o, SavedAs: savedAs}
	s.sum.Entries = append(s.sum.Entries, ed)
	s.ev.emit(ed)
	s.send(msgConfirm, confirmMsg{Index: i, Outcome: o, SavedAs: savedAs}.encode())
}

// receiveEntry takes one entry's chunks and end. A file goes to its
// partial file and is moved into place only when its hash matches; a
// mismatch deletes the partial, any other failure keeps it for resume.
func (s *rsession) receiveEntry(ctx context.Context, i int, off int64) error {
	e := s.entries[i]
	p := s.answers[i]
	h := &s.hash
	h.Reset()
	outcome := Received
	switch {
	case off == 0:
	case p != nil && p.action == actResume && p.offset == off:
		h, outcome = p.hash, Resumed
		s.sum.ResumedBytes += off
	default:
		return fmt.Errorf("sender resumed entry %d at %d, which this end did not offer: %w", i, off, ErrProtocol)
	}
	if p != nil && off == 0 {
		s.meter.grow(p.offset)
	}
	delete(s.answers, i)
	s.meter.file(e.Path, e.Size)

	var (
		f    *os.File
		w    io.Writer // f, through a test's hook
		text []byte
		part string
		err  error
	)
	if e.Kind == KindText {
		text = make([]byte, 0, e.Size)
	} else {
		part = s.dest.partialPath(e)
		if f, err = s.dest.openPartial(part, off); err != nil {
			return fmt.Errorf("receiving %q: %w", e.Path, err)
		}
		w = s.cfg.hooks.writer(f)
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
	}
	left := e.Size - off
	for {
		t, n, body, err := s.next(ctx)
		if err != nil {
			return err
		}
		if t == msgEnd {
			m, err := decodeEnd(body)
			if err != nil {
				return err
			}
			if m.Index != i {
				return fmt.Errorf("sender ended entry %d inside entry %d: %w", m.Index, i, ErrProtocol)
			}
			if left != 0 {
				return fmt.Errorf("%q: %d bytes fewer than declared: %w", e.Path, left, ErrProtocol)
			}
			var sum [hashLen]byte
			if !bytes.Equal(h.Sum(sum[:0]), m.Hash[:]) {
				if f != nil {
					f.Close()
					f = nil
					s.dest.root.Remove(part)
				}
				return fmt.Errorf("%q: %w", e.Path, ErrVerify)
			}
			break
		}
		if t != msgData {
			return fmt.Errorf("unexpected %v inside %q: %w", t, e.Path, ErrProtocol)
		}
		if int64(n) > left {
			return fmt.Errorf("%q: more bytes than declared: %w", e.Path, ErrProtocol)
		}
		// A header always follows a chunk: ask for both at once.
		if err := s.conn.Prefetch(n + headerLen); err != nil {
			return s.readError(ctx, err)
		}
		chunk := s.buf[:n]
		if _, err := io.ReadFull(s.conn, chunk); err != nil {
			return s.readError(ctx, err)
		}
		start := time.Now()
		h.Write(chunk)
		s.timers.Since(diag.HashRecv, start, n)
		if f != nil {
			start = time.Now()
			wrote, err := w.Write(chunk)
			s.timers.Since(diag.DiskWrite, start, wrote)
			if err != nil {
				return fmt.Errorf("writing %q: %w", e.Path, diskError(err))
			}
		} else {
			text = append(text, chunk...)
		}
		left -= int64(n)
		s.sum.Bytes += int64(n)
		s.meter.add(int64(n))
	}

	final := finalPath(e.Path, s.tops)
	if e.Kind == KindText {
		s.ev.emit(TextReceived{Entry: e, Text: string(text)})
		saved := ""
		if s.cfg.SaveText {
			if saved, err = s.saveText(e, text); err != nil {
				return err
			}
		}
		s.confirm(i, Received, saved)
		return nil
	}
	err = s.dest.finish(f, part, e)
	f = nil
	if err != nil {
		return fmt.Errorf("finishing %q: %w", e.Path, diskError(err))
	}
	saved, err := s.dest.place(part, final)
	if err != nil {
		return fmt.Errorf("placing %q: %w", e.Path, err)
	}
	s.confirm(i, outcome, saved)
	return nil
}

// saveText writes a received text through a partial file, like a file.
func (s *rsession) saveText(e Entry, text []byte) (string, error) {
	part := s.dest.partialPath(e)
	f, err := s.dest.openPartial(part, 0)
	if err != nil {
		return "", err
	}
	start := time.Now()
	w, err := f.Write(text)
	s.timers.Since(diag.DiskWrite, start, w)
	if err != nil {
		f.Close()
		return "", fmt.Errorf("saving %q: %w", e.Path, diskError(err))
	}
	if err := s.dest.finish(f, part, e); err != nil {
		return "", fmt.Errorf("saving %q: %w", e.Path, diskError(err))
	}
	return s.dest.place(part, finalPath(e.Path, s.tops))
}

// finish gives the offered folders their mode and time, deepest
// first (writing inside a folder changes its time), confirms them, and
// sends the receiver's stage split.
func (s *rsession) finish() error {
	for i := len(s.entries) - 1; i >= 0; i-- {
		if s.entries[i].Kind == KindDir {
			if err := s.dest.setDirAttrs(finalPath(s.entries[i].Path, s.tops), s.entries[i]); err != nil {
				return err
			}
		}
	}
	for i, e := range s.entries {
		if e.Kind == KindDir {
			s.confirm(i, Created, finalPath(e.Path, s.tops))
		}
	}
	s.meter.tick(true)
	s.sum.Duration = time.Since(s.start)
	s.sum.Wall = s.sum.Duration
	s.sum.Local = s.timers.Snapshot()
	s.send(msgDone, doneMsg{Wall: s.sum.Wall, Split: s.sum.Local}.encode())
	return nil
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
