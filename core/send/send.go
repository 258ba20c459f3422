package send

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/dial"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// Send offers cfg.Items to the receiver at cfg.Addrs and, once accepted,
// streams them. It returns when the receiver has confirmed every entry,
// or with an error wrapping the sentinel that says why not (ErrDeclined,
// ErrCancelled, secure.ErrWrongCode, ...). Cancelling ctx cancels the
// transfer; a context.WithCancelCause cause is the reason the receiver is
// told. It is SendMany with one receiver, which it calls by the door
// SendMany takes for one (sendOne), so that a program that sends to one
// device only (the page's ferry.wasm) links no fan-out.
func Send(ctx context.Context, cfg SendConfig) (event.Summary, error) {
	return sendOne(ctx, cfg, nil)
}

// session is one receiver's session of SendMany: its connection, or the
// connections its Listener accepts, its handshake and its transfer, the
// last event (Error) included.
func session(ctx context.Context, cfg SendConfig) (sum event.Summary, err error) {
	ev := &transfer.Emitter{F: cfg.OnEvent}
	defer func() {
		if err != nil {
			err = transfer.WithKind(err)
			ev.Emit(event.Error{Err: err})
		}
	}()
	if cfg.Listener != nil {
		return sendAccepted(ctx, cfg, ev)
	}
	return send(ctx, cfg, ev)
}

// send is one attempt of a session: one connection, one handshake, one
// transfer. It emits every event but the last Failed.
func send(ctx context.Context, cfg SendConfig, ev *transfer.Emitter) (event.Summary, error) {
	entries, srcs, err := buildManifest(cfg.Items)
	if err != nil {
		return event.Summary{}, err
	}
	if err := transfer.ValidateEntries(entries); err != nil {
		return event.Summary{}, fmt.Errorf("cannot send: %w", err)
	}
	offer := event.OfferOf(entries)
	body := wire.Offer{Version: wire.Version, Name: cfg.Name, Total: offer.TotalBytes, Entries: entries}.Encode()
	if len(body) > transfer.MaxManifestBytes {
		return event.Summary{}, fmt.Errorf("the list of entries takes %d bytes, over the limit of %d", len(body), transfer.MaxManifestBytes)
	}

	nc, addr, err := dial.First(ctx, cfg.Addrs, cfg.Dialer)
	if err != nil {
		if ctx.Err() != nil {
			return event.Summary{}, transfer.CancelError(ctx)
		}
		return event.Summary{}, fmt.Errorf("connecting to the receiver: %w", err)
	}
	timers := &diag.Timers{}
	sc, err := secure.Client(ctx, nc, secure.Config{Identity: cfg.Identity, Code: cfg.Code, PeerKey: cfg.PeerKey, Timers: timers,
		Exposing: cfg.exposing})
	if err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return event.Summary{}, transfer.CancelError(ctx)
		}
		return event.Summary{}, fmt.Errorf("securing the connection to %s: %w", addr, err)
	}
	hooks := testhooks.From(ctx)
	hooks.OnSecured(sc)
	s := &sender{hooks: hooks,
		Link: transfer.NewLink(sc, "the receiver", ev, timers, transfer.OrDefault(cfg.Timeout, transfer.DefaultTimeout)),
		cfg:  cfg, entries: entries, srcs: srcs, offer: offer, offerBody: body,
	}
	s.sum.SameMachine = transfer.SameMachine(nc.LocalAddr(), nc.RemoteAddr())
	return s.run(ctx)
}

// sender is one outgoing transfer. Its goroutine (the caller of run)
// owns every write; readLoop owns every read and hands the few replies
// over, each on its own channel (replies).
type sender struct {
	transfer.Link
	hooks     *testhooks.Hooks // tests only: from the context
	cfg       SendConfig
	entries   []event.Entry
	srcs      []source
	offer     event.Offer
	offerBody []byte

	replies    replies
	readerDone chan struct{}     // closed when readLoop returns
	results    []event.EntryDone // confirmed entries, by readLoop
	confirmed  []bool            // by index, by readLoop
	haves      []int             // the answer's, until the matches come; by readLoop

	buf       []byte               // header + one chunk
	dirs      folders              // sendSmall's open folders
	ctlHdr    [wire.HeaderLen]byte // writeMsg's
	hash      transfer.Hasher      // the current entry's, reused from entry to entry
	lastFlush time.Time
	meter     *transfer.Meter
	sum       event.Summary
}

func (s *sender) grace() time.Duration { return min(s.Timeout, transfer.MaxAbortGrace) }

func (s *sender) run(parent context.Context) (event.Summary, error) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	nc := s.Conn.NetConn()
	// Once the transfer is over, for whatever reason, no socket call may
	// block for long: the abort message gets a short grace, then the
	// socket gives up.
	stop := context.AfterFunc(ctx, func() {
		t := time.Now().Add(s.grace())
		nc.SetWriteDeadline(t)
		nc.SetReadDeadline(t)
	})
	defer stop()

	defer s.dirs.close()
	s.replies = newReplies()
	s.readerDone = make(chan struct{})
	go s.readLoop(ctx, cancel)

	err := s.exchange(ctx)
	if err != nil {
		err = s.fail(parent, ctx, cancel, err)
		if s.meter != nil {
			s.meter.Tick(true) // where it stopped
		}
	}
	<-s.readerDone
	s.Conn.Close()
	if err != nil {
		return event.Summary{}, err
	}
	s.Events.Emit(event.Done{Summary: s.sum})
	return s.sum, nil
}

// fail decides the error Send returns and tells the receiver, when it
// can still hear, why the transfer ends.
func (s *sender) fail(parent, ctx context.Context, cancel context.CancelCauseFunc, err error) error {
	if parent.Err() != nil {
		err = transfer.CancelError(parent)
	} else if ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	cancel(err)
	if pe := s.PeerError(); pe != nil {
		return pe
	}
	if !transfer.IsPeerGone(err) && !transfer.Refused(err) {
		m := wire.Abort{Code: transfer.CodeOf(err), Reason: transfer.ReasonOf(parent, err)}
		if s.writeMsg(wire.MsgAbort, m.Encode()) == nil {
			s.Conn.CloseWrite()
		}
	}
	// The receiver may have ended the transfer first, and our error is
	// only the echo of its closing: its reason is the better answer.
	<-s.readerDone
	if pe := s.PeerError(); pe != nil {
		return pe
	}
	return err
}

// writeMsg writes a control message's header from a field, then its
// body, so that the per-file begin, end and skip allocate no frame. Two
// Writes cost nothing more than one: the stream copies both into the
// record it is filling and seals only when that is full or flushed.
func (s *sender) writeMsg(t wire.Type, body []byte) error {
	wire.PutHeader(s.ctlHdr[:], t, len(body))
	_, err := s.Conn.Write(s.ctlHdr[:])
	if err == nil {
		_, err = s.Conn.Write(body)
	}
	if err != nil {
		return fmt.Errorf("sending %v: %w", t, transfer.NetError(err))
	}
	return nil
}

func (s *sender) flush() error {
	s.lastFlush = time.Now()
	if err := s.Conn.Flush(); err != nil {
		return fmt.Errorf("sending: %w", transfer.NetError(err))
	}
	return nil
}

// quiet is how long the receiver has heard nothing from this end, as far
// as this end can tell: since the last flush. A write that was not
// flushed may still sit in the stream's buffer, so it does not count.
func (s *sender) quiet() time.Duration { return time.Since(s.lastFlush) }

// keepalive tells the receiver this end is still here, when it has heard
// nothing for a while (hashing a large file for a skip or resume).
func (s *sender) keepalive() error {
	if s.quiet() < transfer.KeepaliveAfter(s.Timeout) {
		return nil
	}
	if err := s.writeMsg(wire.MsgKeepalive, nil); err != nil {
		return err
	}
	return s.flush()
}

// await waits for the next reply, sending a keepalive whenever this end
// has been quiet for keepaliveAfter. The timer is set from the last flush
// each time, not ticked at a fixed period: a ticker sampling "quiet long
// enough?" misses by up to one period, so silences reached twice the
// interval.
func await[T any](ctx context.Context, s *sender, reply <-chan T) (T, error) {
	every := transfer.KeepaliveAfter(s.Timeout)
	timer := time.NewTimer(every - s.quiet())
	defer timer.Stop()
	for {
		select {
		case m := <-reply:
			return m, nil
		case <-ctx.Done():
			// A reply read before the end is taken first: the
			// receiver's hello and its decline, read back to back,
			// leave the hello here and then cancel ctx, and select
			// picks at random among cases ready at once.
			select {
			case m := <-reply:
				return m, nil
			default:
			}
			var none T
			return none, context.Cause(ctx)
		case <-timer.C:
			if err := s.keepalive(); err != nil {
				var none T
				return none, err
			}
			timer.Reset(every - s.quiet())
		}
	}
}

func (s *sender) exchange(ctx context.Context) error {
	if err := s.writeMsg(wire.MsgOffer, s.offerBody); err != nil {
		return err
	}
	if err := s.flush(); err != nil {
		return err
	}
	hello, err := await(ctx, s, s.replies.hello)
	if err != nil {
		return err
	}
	s.offer.PeerName, s.offer.PeerFingerprint = hello.Name, s.PeerFP
	s.Events.Emit(event.Connected{PeerName: hello.Name, PeerFingerprint: s.PeerFP, PeerKey: s.PeerKey, Paired: s.Paired,
		Addr: s.Conn.NetConn().RemoteAddr().String()})

	answer, err := await(ctx, s, s.replies.answer)
	if err != nil {
		return err
	}
	// The split covers the transfer proper, from the answer on, like the
	// receiver's; the handshake and the wait for a person are not in it.
	start := time.Now()
	s.Timers.Restart()
	total := s.offer.TotalBytes
	for _, it := range answer.Items {
		total -= it.Offset
	}
	s.Events.Emit(event.Accepted{By: event.ByPeer, TotalBytes: total, Offer: s.offer})
	if err := s.cfg.gate.wait(ctx, s.keepalive, transfer.KeepaliveAfter(s.Timeout)); err != nil {
		return err // SendMany's start line (many.go)
	}
	s.meter = transfer.NewMeter(s.Events, s.Timers, transfer.DiagEnd(s.cfg.Diag, event.Sender), total, len(s.entries))
	s.buf = make([]byte, wire.HeaderLen+transfer.MaxChunk)
	matched, err := s.matchHaves(ctx, answer)
	if err != nil {
		return err
	}

	items := answer.Items
	for i, e := range s.entries {
		if e.Kind == event.KindDir {
			continue
		}
		var it *wire.AnswerItem
		if len(items) > 0 && items[0].Index == i {
			it = &items[0]
			items = items[1:]
		}
		if err := s.sendEntry(ctx, i, e, it, matched); err != nil {
			return transfer.HidePath(err, s.srcs[i].shown, e.Path)
		}
	}
	if err := s.writeMsg(wire.MsgFinish, nil); err != nil {
		return err
	}
	if err := s.flush(); err != nil {
		return err
	}
	s.meter.Tick(true)
	done, err := await(ctx, s, s.replies.done)
	if err != nil {
		return err
	}
	if err := s.Conn.CloseWrite(); err != nil {
		return fmt.Errorf("closing the stream: %w", transfer.NetError(err))
	}
	s.sum.Entries = s.results
	s.sum.Duration = time.Since(start)
	s.sum.Local = s.Timers.Snapshot()
	s.sum.Wall = s.sum.Duration
	s.sum.LocalCPU = s.Timers.CPU()
	s.sum.Remote, s.sum.RemoteWall, s.sum.RemoteCPU = done.Split, done.Wall, done.CPU
	s.sum.Verdict = diag.Verdict(
		diag.End{Split: s.sum.Local, Wall: s.sum.Wall, CPU: s.sum.LocalCPU},
		diag.End{Split: s.sum.Remote, Wall: s.sum.RemoteWall, CPU: s.sum.RemoteCPU},
		s.sum.SameMachine)
	return nil
}

// matchHaves sends the hash of every file the receiver has at the same
// size (its answer's haves), and returns the set the receiver found
// identical. Only those files are hashed ahead of sending: a whole file
// is read once more only when the receiver may already hold it. The
// exchange costs one round trip per transfer, not per file, and none
// when the answer lists no have.
func (s *sender) matchHaves(ctx context.Context, answer wire.Answer) (map[int]bool, error) {
	haves := answer.Haves()
	if len(haves) == 0 {
		return nil, nil
	}
	m := wire.Hashes{Items: make([]wire.HashItem, len(haves))}
	for k, i := range haves {
		m.Items[k].Index = i
		if err := s.hashFile(ctx, i, &m.Items[k].Hash); err != nil {
			return nil, transfer.HidePath(err, s.srcs[i].shown, s.entries[i].Path)
		}
	}
	if err := s.writeMsg(wire.MsgHashes, m.Encode()); err != nil {
		return nil, err
	}
	if err := s.flush(); err != nil {
		return nil, err
	}
	reply, err := await(ctx, s, s.replies.matches)
	if err != nil {
		return nil, err
	}
	matched := make(map[int]bool)
	for _, i := range reply.Indexes {
		matched[i] = true
	}
	return matched, nil
}

// hashFile puts the hash of entry i's file in sum, checking that the file
// is still as offered.
func (s *sender) hashFile(ctx context.Context, i int, sum *[wire.HashLen]byte) error {
	e, src := s.entries[i], s.srcs[i]
	f, err := src.open()
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unchanged(f, e, src.shown); err != nil {
		return err
	}
	h := &s.hash
	h.Reset()
	if err := s.hashPrefix(ctx, f, src.shown, e.Size, h); err != nil {
		return err
	}
	if err := unchanged(f, e, src.shown); err != nil {
		return err
	}
	h.Sum(sum[:0])
	return nil
}

// sendEntry sends one file or text: a skip, or begin, data chunks, end.
// A file is hashed as it is read. A file the receiver found identical
// (matched) is skipped; a resume first hashes the bytes the receiver
// kept, and continues only when they match.
func (s *sender) sendEntry(ctx context.Context, i int, e event.Entry, it *wire.AnswerItem, matched map[int]bool) error {
	s.meter.File(e.Path, e.Size)
	src := s.srcs[i]
	if it == nil && e.Kind == event.KindFile && e.Size <= transfer.MaxChunk && (s.hooks == nil || s.hooks.DiskRead == nil) {
		if handled, err := s.sendSmall(ctx, i, e, src); handled {
			return err
		}
	}
	h := &s.hash
	h.Reset()
	var (
		r   io.Reader
		f   fs.File
		off int64
	)
	if e.Kind == event.KindText {
		r = strings.NewReader(src.text)
	} else {
		var err error
		if f, err = src.open(); err != nil {
			return err
		}
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
		if err := unchanged(f, e, src.shown); err != nil {
			return err
		}
		r = s.hooks.Reader(f)
	}
	switch {
	case it != nil && it.Action == wire.ActHave && matched[i]:
		if err := s.writeMsg(wire.MsgSkip, wire.Skip{Index: i}.Encode()); err != nil {
			return err
		}
		s.sum.SkippedBytes += e.Size
		s.meter.Entry()
		return nil
	case it != nil && it.Action == wire.ActHave: // the same size, not the same bytes
		s.meter.Grow(it.Offset)
	case it != nil && f != nil:
		var err error
		if off, f, err = s.resume(ctx, i, e, it, f); err != nil {
			return err
		}
		if off == 0 { // rewound
			r = s.hooks.Reader(f)
		}
	}
	if err := s.writeMsg(wire.MsgBegin, wire.Begin{Index: i, Offset: off}.Encode()); err != nil {
		return err
	}
	if err := s.sendBytes(ctx, e, src.shown, r, e.Size-off); err != nil {
		return err
	}
	if f != nil {
		if err := unchanged(f, e, src.shown); err != nil {
			return err
		}
	}
	var end wire.End
	end.Index = i
	h.Sum(end.Hash[:0])
	if err := s.writeMsg(wire.MsgEnd, end.Encode()); err != nil {
		return err
	}
	s.meter.Entry()
	return nil
}

// resume decides where entry i's file f starts, given the receiver's
// resume answer it: at the offset the receiver kept, when the hash of
// the first bytes matches the receiver's (s.hash then holds them), else
// from the first byte, rewound. It returns the offset and the file to
// read on from (f is closed if rewinding had to reopen it).
func (s *sender) resume(ctx context.Context, i int, e event.Entry, it *wire.AnswerItem, f fs.File) (int64, fs.File, error) {
	src, h := s.srcs[i], &s.hash
	if err := s.hashPrefix(ctx, f, src.shown, it.Offset, h); err != nil {
		return 0, f, err
	}
	var sum [wire.HashLen]byte
	if bytes.Equal(h.Sum(sum[:0]), it.Hash[:]) {
		s.sum.ResumedBytes += it.Offset
		return it.Offset, f, nil
	}
	f, err := rewind(f, src, e)
	if err != nil {
		return 0, nil, err
	}
	h.Reset()
	s.meter.Grow(it.Offset)
	return 0, f, nil
}

// sendBytes sends the next n bytes of r, entry e's (which errors call
// path), as data chunks, hashing them into s.hash.
func (s *sender) sendBytes(ctx context.Context, e event.Entry, path string, r io.Reader, n int64) error {
	h := &s.hash
	for left := n; left > 0; {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		n := int(min(left, int64(transfer.MaxChunk)))
		chunk := s.buf[wire.HeaderLen : wire.HeaderLen+n]
		start := time.Now()
		got, err := io.ReadFull(r, chunk)
		s.Timers.Since(diag.DiskRead, start, got)
		if s.cfg.read != nil {
			s.cfg.read.Add(int64(got))
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s ended %d bytes early: %w", path, left-int64(got), transfer.ErrSourceChanged)
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		start = time.Now()
		h.Write(chunk)
		s.Timers.Since(diag.HashSend, start, n)
		wire.PutHeader(s.buf, wire.MsgData, n)
		if _, err := s.Conn.Write(s.buf[:wire.HeaderLen+n]); err != nil {
			return fmt.Errorf("sending %s: %w", e.Path, transfer.NetError(err))
		}
		left -= int64(n)
		s.sum.Bytes += int64(n)
		s.meter.Add(int64(n))
	}
	return nil
}

// unchanged checks that an open file, which errors call name, still has
// the size and time it was offered with.
func unchanged(f fs.File, e event.Entry, name string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("checking %s: %w", name, err)
	}
	return sameAsOffered(fi.Size(), fi.ModTime(), e, name)
}

// sameAsOffered fails with ErrSourceChanged when a file's size or
// modification time is not what entry e offered: the one rule both ways
// of reading a file (unchanged, unchangedFd) check it by.
func sameAsOffered(size int64, mod time.Time, e event.Entry, name string) error {
	if size != e.Size || !mod.Equal(e.ModTime) {
		return fmt.Errorf("%s was modified: %w", name, transfer.ErrSourceChanged)
	}
	return nil
}

// rewind starts f, entry e's open file, over from its first byte: with
// Seek where it has one (every OS file), else by closing it and opening
// it again, checked anew against the offer. f is closed when rewind
// fails.
func rewind(f fs.File, src source, e event.Entry) (fs.File, error) {
	if sk, ok := f.(io.Seeker); ok {
		if _, err := sk.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("rewinding %s: %w", src.shown, err)
		}
		return f, nil
	}
	f.Close()
	f, err := src.open()
	if err != nil {
		return nil, err
	}
	if err := unchanged(f, e, src.shown); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// hashPrefix feeds the first n bytes of f, which errors call name, into h.
func (s *sender) hashPrefix(ctx context.Context, f io.Reader, name string, n int64, h *transfer.Hasher) error {
	buf := s.buf[wire.HeaderLen:]
	for n > 0 {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err := s.keepalive(); err != nil {
			return err
		}
		m := int(min(n, int64(len(buf))))
		start := time.Now()
		got, err := io.ReadFull(f, buf[:m])
		s.Timers.Since(diag.DiskRead, start, got)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s ended early: %w", name, transfer.ErrSourceChanged)
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		start = time.Now()
		h.Write(buf[:m])
		s.Timers.Since(diag.HashSend, start, m)
		n -= int64(m)
	}
	return nil
}

// readLoop reads everything the receiver sends, through take, until the
// end of its stream. Any failure cancels the transfer with its cause.
func (s *sender) readLoop(ctx context.Context, cancel context.CancelCauseFunc) {
	defer close(s.readerDone)
	nc := s.Conn.NetConn()
	arm := func() error {
		if ctx.Err() != nil {
			nc.SetReadDeadline(time.Now().Add(s.grace()))
		} else {
			nc.SetReadDeadline(time.Now().Add(s.Timeout))
		}
		return nil
	}
	s.readyConfirms()
	for ph := wire.PhHello; ; {
		m, err := s.ReadMsg(ph, arm)
		if err == nil {
			ph, err = s.take(m)
		}
		switch {
		case err == nil:
			continue
		case ph == wire.PhClosed && errors.Is(err, io.EOF):
		case transfer.Refused(err): // it arrives where the first message would
			cancel(fmt.Errorf("securing the connection to %s: %w", nc.RemoteAddr(), err))
		default:
			cancel(err)
		}
		return
	}
}

// readyConfirms makes room for a confirmation of every entry, once: grown
// by appends, the results were copied at each doubling, into new memory
// the kernel faults in page by page, a cost per file of a folder of many.
func (s *sender) readyConfirms() {
	s.confirmed = make([]bool, len(s.entries))
	s.results = make([]event.EntryDone, 0, len(s.entries))
}

// take handles one of the receiver's messages and returns the state the
// sender reads in next. This is the order the sender expects, written
// once: hello, then an answer (or an abort), then the matches if the
// answer listed haves, then confirmations and done, then the end of the
// stream. The replies the exchange waits for go over on their channels.
func (s *sender) take(m transfer.Msg) (wire.Phase, error) {
	switch m.Type {
	case wire.MsgHello:
		hello, err := wire.DecodeHello(m.Body)
		if err != nil {
			return 0, err
		}
		s.replies.hello <- hello
		return wire.PhAnswer, nil
	case wire.MsgAnswer:
		answer, err := wire.DecodeAnswer(m.Body, s.entries)
		if err != nil {
			return 0, err
		}
		s.replies.answer <- answer
		if s.haves = answer.Haves(); len(s.haves) > 0 {
			return wire.PhMatches, nil
		}
		return wire.PhConfirms, nil
	case wire.MsgMatches:
		matches, err := wire.DecodeMatches(m.Body, s.haves)
		if err != nil {
			return 0, err
		}
		s.replies.matches <- matches
		s.haves = nil
		return wire.PhConfirms, nil
	case wire.MsgConfirm:
		c, err := wire.DecodeConfirm(m.Body, len(s.entries))
		if err != nil {
			return 0, err
		}
		if s.confirmed[c.Index] {
			return 0, fmt.Errorf("entry %d confirmed twice: %w", c.Index, transfer.ErrProtocol)
		}
		s.confirmed[c.Index] = true
		ed := event.EntryDone{Entry: s.entries[c.Index], Outcome: c.Outcome, SavedAs: c.SavedAs}
		s.results = append(s.results, ed)
		s.Events.Emit(ed)
		return wire.PhConfirms, nil
	case wire.MsgDone:
		done, err := wire.DecodeDone(m.Body)
		if err != nil {
			return 0, err
		}
		if len(s.results) != len(s.entries) {
			return 0, fmt.Errorf("the receiver confirmed %d of %d entries: %w", len(s.results), len(s.entries), transfer.ErrProtocol)
		}
		s.replies.done <- done
		return wire.PhClosed, nil
	}
	// The table accepted what this switch does not take: they disagree.
	return 0, fmt.Errorf("unexpected %v from the receiver: %w", m.Type, transfer.ErrProtocol)
}

// replies are the receiver's messages the sender's exchange waits for,
// one channel each: each is sent at most once, and the buffer holds it,
// so readLoop never blocks.
type replies struct {
	hello   chan wire.Hello
	answer  chan wire.Answer
	matches chan wire.Matches
	done    chan wire.Done
}

func newReplies() replies {
	return replies{hello: make(chan wire.Hello, 1), answer: make(chan wire.Answer, 1),
		matches: make(chan wire.Matches, 1), done: make(chan wire.Done, 1)}
}
