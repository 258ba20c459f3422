package receive

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// maxResumes bounds the partial files resumed in one transfer: each
// keeps a hash state (18 KiB, so about 1 MiB at most) from the answer
// until its bytes come.
// Further partial files start over.
const maxResumes = 64

// rsession is one incoming transfer. Its goroutine (the caller of run)
// owns every read after the offer and the disk, but for the small files
// it hands the placer (receive_place.go); writeLoop owns every write,
// fed through out.
//
// Its code is split by concern: this file runs the session and decides
// and answers the offer; receive_entries.go takes the entries and their
// bytes to disk; receive_stream.go reads and writes messages.
type rsession struct {
	transfer.Link
	cfg *ReceiverConfig
	rcv *Receiver // whose session this is: its questions, its shared folder state
	id  int       // the session's id (SessionOf)
	// wrongCodes is how many wrong codes the receiver checked before
	// this connection's code proved right (code mode), for Connected.
	wrongCodes int

	helpers       // the goroutines the session starts and waits for
	declineReason string

	reused             // what each entry takes over from the one before
	dest   *place.Dest // nil with a Sink
	// tops maps the offer's top-level folders whose names were taken to
	// the names they go under (place.MapTops); nil with a Sink.
	tops    map[string]string
	sink    transfer.Sink // cfg.Sink once it was told of an entry: End is owed
	entries []rentry      // the offer's, in its order
	// partials are the sizes of the files' partial files, empty ones
	// too, when the offer came, by index. Their names are not kept: one
	// per entry of the largest offer would hold megabytes, and partPath
	// computes them when needed. A file that had one is written to it
	// again, even from its start, so that it does not stay behind.
	partials map[int]int64
	created  []bool // by index, the folders this transfer created: their times are set last; nil for none
	meter    *transfer.Meter
	sum      event.Summary
	start    time.Time
	held     held // its share of what the sessions writing into Dir share
}

// reused is what a session keeps from entry to entry so that a small
// file allocates nothing of it: the read buffer, the hasher, the current
// entry, and when the read deadline was last moved (arm).
type reused struct {
	buf   []byte
	hash  transfer.Hasher // the current entry's
	in    incoming        // the current entry
	armed time.Time       // when arm last set the read deadline
}

// rentry is what the receiver knows of one offered entry, from the offer
// to its confirmation. Its Entry is the decoded offer's, which the offer
// event shares, not a copy: for the largest offer (100,000 entries) a
// copy would hold a second 6 MiB beside the first, and nothing on either
// side writes an offered entry. Where it goes is not kept either
// (rsession.final): it is its path but for a renamed top-level folder;
// nor is what few entries have (rsession.partials and created).
type rentry struct {
	*event.Entry
	plan *planned // what this end answered for it; nil: sent whole
}

// planned is what the receiver answered for one file.
type planned struct {
	action wire.Action
	offset int64
	hash   *transfer.Hasher // resume: the state after the kept bytes
	same   bool             // have: the sender's hash matched this end's file
}

// peeked is a message read by the peek goroutine.
type peeked struct {
	m   transfer.Msg
	err error
}

func (s *rsession) run(parent context.Context) (event.Summary, error) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	nc := s.Conn.NetConn()
	// A cancelled transfer must not stay blocked reading: break the read,
	// and let writeLoop tell the sender why.
	stop := context.AfterFunc(ctx, func() { nc.SetReadDeadline(time.Now()) })
	defer stop()

	s.startWriter(wire.Frame(wire.MsgHello, wire.Hello{Version: wire.Version, Name: s.cfg.Name}.Encode()))

	// Every error of the exchange may name a file under the destination
	// (os.Root's files carry its path in their name): the sender is told
	// none of it.
	err := transfer.HidePath(transfer.InTheWay(s.exchange(ctx)), s.cfg.Dir, "the destination folder")
	aborted := false
	if err != nil {
		if s.meter != nil {
			s.meter.Tick(true) // where it stopped
		}
		if ctx.Err() != nil {
			err = transfer.CancelError(ctx)
		}
		// A sender that went silent may only be slow: if it ever reads
		// again, it learns that this end timed out, not that the stream
		// ended for no reason.
		if s.PeerError() == nil && (!transfer.IsPeerGone(err) || errors.Is(err, transfer.ErrTimeout)) {
			reason := transfer.ReasonOf(ctx, err)
			switch {
			case errors.Is(err, transfer.ErrDeclined):
				reason = s.declineReason
			case errors.Is(err, transfer.ErrTimeout):
				reason = fmt.Sprintf("heard nothing from the sender for %v", s.Timeout)
			case transfer.CodeOf(err) == wire.CodeInternal && transfer.NoWrite(err):
				reason = transfer.ReasonNoWrite
			}
			s.wr.out <- wire.Frame(wire.MsgAbort, wire.Abort{Code: transfer.CodeOf(err), Reason: reason}.Encode())
			aborted = true
		}
	}
	close(s.wr.out)
	<-s.wr.done
	if err == nil && s.wr.err != nil {
		err = s.wr.err
	}
	switch {
	case err == nil:
		// Wait for the sender's end of stream, so that closing cannot
		// cut off the last confirmations.
		s.drain(ctx)
	case aborted:
		s.linger(nc)
	}
	s.Conn.Close()
	if s.ahead.done != nil {
		<-s.ahead.done
	}
	s.held.release(s.rcv.shared)
	if s.dest != nil {
		s.rcv.shared.close(func() { s.dest.RemovePartialDir() })
		s.dest.Close()
	}
	if s.sink != nil {
		s.sink.End(err)
	}
	if err != nil {
		return event.Summary{}, err
	}
	s.Events.Emit(event.Done{Summary: s.sum})
	return s.sum, nil
}

func (s *rsession) exchange(ctx context.Context) error {
	m, err := s.next(ctx, wire.PhOffer)
	if err != nil {
		return err
	}
	om, err := wire.DecodeOffer(m.Body)
	if err != nil {
		return err
	}
	m.Body = nil
	addr := s.Conn.NetConn().RemoteAddr().String()
	s.Events.Emit(event.Connected{PeerName: om.Name, PeerFingerprint: s.PeerFP, PeerKey: s.PeerKey, Paired: s.Paired, Addr: addr,
		WrongCodes: s.wrongCodes})
	same := s.rcv.claimName(s.id, om.Name, s.PeerFP)
	defer s.rcv.dropName(s.id)
	for _, o := range same {
		s.Events.Emit(event.SameName{PeerName: om.Name, PeerFingerprint: s.PeerFP, OtherFingerprint: o.fp, OtherSession: o.id})
	}
	if err := transfer.ValidateEntries(om.Entries); err != nil {
		return fmt.Errorf("refusing the offer: %w", err)
	}
	offer := event.OfferOf(om.Entries)
	offer.PeerName, offer.PeerFingerprint = om.Name, s.PeerFP
	for _, o := range same {
		offer.SameNameAs = append(offer.SameNameAs, o.fp)
	}
	s.entries = make([]rentry, len(om.Entries))
	for i := range om.Entries {
		s.entries[i] = rentry{Entry: &om.Entries[i]}
	}
	if s.cfg.Sink == nil {
		if err := s.openFolder(om.Entries); err != nil {
			return err
		}
	}
	om.Entries = nil

	// Decide, while a helper goroutine listens for the sender cancelling.
	s.ahead.ch = make(chan peeked, 1)
	s.ahead.done = make(chan struct{})
	go s.peek(ctx)
	yes, err := s.decideOffer(ctx, offer)
	if err != nil {
		return err
	}
	if !yes {
		return fmt.Errorf("offer declined: %w", transfer.ErrDeclined)
	}
	if s.cfg.Sink == nil {
		// The person may take minutes: the other sessions accepted
		// meanwhile count now.
		if err := s.reserveSpace(); err != nil {
			return err
		}
	}
	// The split covers the transfer proper: time spent waiting for the
	// person, blocked in a socket read, must not count against it.
	s.start = time.Now()
	s.Timers.Restart()
	if err := s.prepare(ctx); err != nil {
		return err
	}
	return s.receive(ctx)
}

// claimed is a session in progress whose sender claims a name, with
// the fingerprint of its key.
type claimed struct {
	id       int
	name, fp string
}

// claimName records that session id's sender claims name with key
// fingerprint fp, for as long as the session runs (until dropName), and
// returns the sessions in progress whose senders claim the same name
// with another key, oldest first. Two devices under one name is what a
// sender posing as another looks like: a receiver of several senders
// flags it (SameName), since a person answering two offers from "Ann's
// phone" would take both for Ann's.
func (r *Receiver) claimName(id int, name, fp string) []claimed {
	r.mu.Lock()
	defer r.mu.Unlock()
	var same []claimed
	for _, c := range r.names {
		if c.name == name && c.fp != fp {
			same = append(same, c)
		}
	}
	// sort.Slice, not slices.SortFunc: the generic sort of this one
	// small type is 19 KB of ferry.wasm, sort.Slice is linked already.
	sort.Slice(same, func(i, j int) bool { return same[i].id < same[j].id })
	if r.names == nil {
		r.names = make(map[int]claimed)
	}
	r.names[id] = claimed{id, name, fp}
	return same
}

// dropName ends session id's claim to its sender's name.
func (r *Receiver) dropName(id int) {
	r.mu.Lock()
	delete(r.names, id)
	r.mu.Unlock()
}

// openFolder readies the destination folder for the offer: where each
// entry goes, the partial files already there, and whether the offer
// fits. A Sink has none of these.
func (s *rsession) openFolder(offered []event.Entry) error {
	var err error
	if s.dest, err = place.OpenDest(s.cfg.Dir, s.cfg.Overwrite, s.PeerFP); err != nil {
		return transfer.ForPeer(err, transfer.ReasonUnwritable)
	}
	s.rcv.shared.open()
	if s.tops, err = s.dest.MapTops(folders(offered)); err != nil {
		return transfer.ForPeer(fmt.Errorf("refusing the offer: %w", err), transfer.ReasonUnwritable)
	}
	for i := range s.entries {
		e := &s.entries[i]
		if e.Kind == event.KindFile {
			if n := s.dest.PartialSize(e.Path, e.Size, e.ModTime); n >= 0 {
				if s.partials == nil {
					s.partials = make(map[int]int64)
				}
				s.partials[i] = n
			}
		}
	}
	_, err = s.checkSpace(s.rcv.shared.othersPending(&s.held.left))
	return err
}

// final is where entry i goes under the destination: its path, with its
// top-level folder renamed when that name was taken; its path with a
// Sink.
func (s *rsession) final(i int) string {
	return place.FinalPath(s.entries[i].Path, s.tops)
}

// partPath names entry i's partial file.
func (s *rsession) partPath(i int) string {
	e := &s.entries[i]
	return s.dest.PartialName(e.Path, e.Size, e.ModTime)
}

// folders are the paths of the offer's folders, in its order.
func folders(entries []event.Entry) []string {
	var paths []string
	for _, e := range entries {
		if e.Kind == event.KindDir {
			paths = append(paths, e.Path)
		}
	}
	return paths
}

// checkSpace refuses an offer that cannot fit: its bytes, less what
// partial files already hold, against the space free on the destination
// less what the other accepted transfers will still write (others). It
// returns what the offer needs.
func (s *rsession) checkSpace(others int64) (int64, error) {
	need := s.need()
	free, ok := place.FreeSpace(s.cfg.Dir)
	if !ok {
		return need, nil
	}
	if need > free-others {
		if others > 0 {
			return need, transfer.ForPeer(fmt.Errorf("the offer needs %d bytes, the destination has %d free, of which other transfers in progress will still write %d: %w",
				need, free, others, transfer.ErrNoSpace), transfer.ReasonNoSpace)
		}
		return need, transfer.ForPeer(fmt.Errorf("the offer needs %d bytes, the destination has %d free: %w", need, free, transfer.ErrNoSpace), transfer.ReasonNoSpace)
	}
	return need, nil
}

// reserveSpace checks the accepted offer against the free space again,
// now counting every other transfer accepted meanwhile, and counts what
// it will write for the checks of the transfers after it.
func (s *rsession) reserveSpace() error {
	err := s.rcv.shared.reserve(&s.held.left, func(others int64) error {
		if !s.rcv.concurrent() {
			// One at a time, the offer was checked when it came.
			s.held.left.Store(s.need())
			return nil
		}
		need, err := s.checkSpace(others)
		s.held.left.Store(need)
		return err
	})
	s.held.reserved = err == nil
	return err
}

// need is what the offer will write: its bytes, less what its partial
// files already hold.
func (s *rsession) need() int64 {
	var need int64
	for i, e := range s.entries {
		if e.Kind == event.KindFile || (e.Kind == event.KindText && s.cfg.SaveText) {
			need += e.Size
			if e.Kind == event.KindFile {
				if n := s.partials[i]; n > 0 {
					need -= min(n, e.Size)
				}
			}
		}
	}
	return need
}

func (s *rsession) decideOffer(ctx context.Context, offer event.Offer) (bool, error) {
	policy := s.cfg.Policy
	if policy == Ask && s.Paired && s.cfg.AutoAcceptPaired {
		policy = AcceptAll
	}
	switch policy {
	case AcceptAll:
		s.Events.Emit(offer)
		return true, nil
	case DeclineAll:
		s.Events.Emit(offer)
		s.declineReason = "declined by policy"
		return false, nil
	}
	decide := s.rcv.ask(s.id) // a question of its own: no earlier answer counts
	defer s.rcv.answered(s.id)
	s.Events.Emit(offer)
	select {
	case yes := <-decide:
		s.declineReason = "declined by the user"
		return yes, nil
	case p := <-s.ahead.ch:
		s.ahead.ch = nil
		if p.err != nil {
			return false, p.err
		}
		return false, fmt.Errorf("the sender sent %v before the answer: %w", p.m.Type, transfer.ErrProtocol)
	case <-ctx.Done():
		return false, transfer.CancelError(ctx)
	}
}

// prepare creates the offered folders and works out, per file, whether
// an identical file is in place (have) or a partial can continue
// (resume), then answers.
func (s *rsession) prepare(ctx context.Context) error {
	s.buf = make([]byte, transfer.MaxChunk+wire.HeaderLen)
	var ans wire.Answer
	var total int64
	resumes := 0
	for i, e := range s.entries {
		if ctx.Err() != nil {
			return transfer.CancelError(ctx)
		}
		if s.cfg.Sink != nil {
			// A sink neither resumes nor skips: every file is taken whole.
			if e.Kind == event.KindDir {
				s.sink = s.cfg.Sink
				if err := s.sink.Folder(*e.Entry); err != nil {
					return sinkError(fmt.Errorf("creating folder %q: %w", e.Path, err))
				}
			}
			total += e.Size
			continue
		}
		switch e.Kind {
		case event.KindDir:
			existed, err := s.dest.Mkdir(s.final(i), e.Mode)
			if err != nil {
				return err
			}
			if !existed {
				if s.created == nil {
					s.created = make([]bool, len(s.entries))
				}
				s.created[i] = true
			}
			continue
		case event.KindText:
			total += e.Size
			continue
		}
		total += e.Size
		if s.dest.RegularSize(s.final(i)) == e.Size {
			// Only that a file of this size is here goes out; whether it
			// is the same is checked here, against the sender's hash.
			ans.Items = append(ans.Items, wire.AnswerItem{Index: i, Action: wire.ActHave, Offset: e.Size})
			s.entries[i].plan = &planned{action: wire.ActHave, offset: e.Size}
			total -= e.Size
			continue
		}
		if k := min(s.partials[i], e.Size); k > 0 && resumes < maxResumes && s.claimPart(s.partPath(i)) {
			h := transfer.NewHasher()
			if err := transfer.HashPrefix(ctx, s.dest, s.partPath(i), k, h, s.buf, s.Timers); err == nil {
				it := wire.AnswerItem{Index: i, Action: wire.ActResume, Offset: k}
				h.Sum(it.Hash[:0])
				ans.Items = append(ans.Items, it)
				s.entries[i].plan = &planned{action: wire.ActResume, offset: k, hash: h}
				total -= k
				resumes++
			} else if ctx.Err() != nil {
				return err
			}
		}
	}
	s.meter = transfer.NewMeter(s.Events, s.Timers, transfer.DiagEnd(s.cfg.Diag, event.Receiver), total, len(s.entries))
	s.send(wire.MsgAnswer, ans.Encode())
	return s.matchHaves(ctx, ans.Haves())
}

// matchHaves decides which of the files it has (haves) are the ones the
// sender offers. It hashes its own copies while the sender hashes its
// own (so the two overlap), then compares with the sender's hashes and
// tells the sender which matched. Its own hashes never leave this end:
// they would let the sender test guesses of the files' contents offline.
// An answer without haves skips all this: no message, no round trip.
func (s *rsession) matchHaves(ctx context.Context, haves []int) error {
	if len(haves) == 0 {
		return nil
	}
	mine := make([][wire.HashLen]byte, len(haves))
	readable := make([]bool, len(haves))
	for k, i := range haves {
		h := &s.hash
		h.Reset()
		e := &s.entries[i]
		err := transfer.HashPrefix(ctx, s.dest, s.final(i), e.Size, h, s.buf, s.Timers)
		if ctx.Err() != nil {
			return transfer.CancelError(ctx)
		}
		if err == nil { // a file that cannot be read matches nothing: it is sent
			h.Sum(mine[k][:0])
			readable[k] = true
		}
	}
	in, err := s.next(ctx, wire.PhHashes)
	if err != nil {
		return err
	}
	theirs, err := wire.DecodeHashes(in.Body, haves)
	if err != nil {
		return err
	}
	var m wire.Matches
	for k, it := range theirs.Items {
		if readable[k] && it.Hash == mine[k] {
			m.Indexes = append(m.Indexes, it.Index)
			s.entries[it.Index].plan.same = true
		}
	}
	s.send(wire.MsgMatches, m.Encode())
	return nil
}

// claimPart claims partial file p for this session: false when another
// session writes it (the same sender sending the same file twice at
// once), which then neither resumes it nor writes it.
func (s *rsession) claimPart(p string) bool {
	s.held.mu.Lock()
	defer s.held.mu.Unlock()
	if s.held.parts[p] {
		return true
	}
	if !s.rcv.shared.claimPart(p) {
		return false
	}
	if s.held.parts == nil {
		s.held.parts = make(map[string]bool)
	}
	s.held.parts[p] = true
	return true
}

// releasePart gives up this session's claim on p, once its entry ended.
func (s *rsession) releasePart(p string) {
	s.held.mu.Lock()
	defer s.held.mu.Unlock()
	if s.held.parts[p] {
		delete(s.held.parts, p)
		s.rcv.shared.releasePart(p)
	}
}
