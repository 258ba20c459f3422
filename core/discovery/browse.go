package discovery

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/grandcat/zeroconf"

	"github.com/ferry-project/ferry/core/secure"
)

// BrowseConfig says where to browse and whom to tell.
type BrowseConfig struct {
	Ifaces []string
	// OnChange is called with the full current list whenever it changes
	// (a receiver heard for the first time, heard saying something new,
	// or missed for two rounds), sorted by Name then Fingerprint. It is
	// called from Browse's goroutine, one call at a time, at most every
	// listEvery (100 ms) and at a round's end (a change within 100 ms of
	// the last call waits and goes with the others), and should return
	// quickly: the round's answers wait while it runs. The slice is the
	// callee's to keep. The list holds at most maxPeers (256) receivers.
	OnChange func(peers []Peer)
	// OnSkip, if set, is told once per interface and address family that
	// cannot carry mDNS; the browse goes on with the others. It is
	// called from Browse's goroutine, never after Browse returns.
	OnSkip SkipFunc

	// listAtEnd, set by List, hands OnChange what changed last (within
	// listEvery) once ctx is done; otherwise OnChange is never called
	// after that.
	listAtEnd bool

	// round, set only by this package's tests, replaces roundLength.
	round time.Duration
	// work, set only by this package's tests, adds up what the browse's
	// goroutine does with each entry and sweep (flood_test.go).
	work *browseWork
}

// browseWork is the time a browse's goroutine spent on entries and
// sweeps (table and OnChange, the callee's time included), and how many
// entries it took.
type browseWork struct {
	busy    time.Duration
	entries int
}

// roundLength is how long one zeroconf Resolver browses before the next
// takes over (package doc, "Liveness").
const roundLength = 3 * time.Second

// settleWindow is how long into a round its answers are taken to be in:
// zeroconf queries when the round starts, and receivers answer within
// milliseconds. Then the table is swept: a receiver heard neither in this
// round nor in the one before is dropped. So one that vanished without
// a goodbye right after it answered leaves the list two rounds and a
// settle window later: 7 s.
const settleWindow = time.Second

// listEvery is how often at most a browse hands its listing to OnChange.
const listEvery = 100 * time.Millisecond

// leaveAfter is how long after a receiver's last round it is dropped, the
// Expires a browse sets.
const leaveAfter = 2*roundLength + settleWindow

// Browse watches the network for Ferry receivers until ctx is done, then
// returns nil. It returns an error only if its first round cannot listen
// on any interface; interfaces that fail are reported through
// cfg.OnSkip and skipped.
//
// It browses in rounds of roundLength, each with a new zeroconf
// Resolver, and rechecks the interfaces before each, so an interface
// that comes up, or gets its IPv6 link-local address, joins at the next
// round.
func Browse(ctx context.Context, cfg BrowseConfig) error {
	every := cmp.Or(cfg.round, roundLength)
	settle := min(settleWindow, every/2)
	rep := newReporter(cfg.OnSkip)
	joined := map[joinKey]error{}
	t := newTable()
	// The listing goes to OnChange at most every listEvery, and once
	// more at the end of a round: a change after a quiet spell goes at
	// once, the next ones together once the interval is over (on
	// browseRound's tick), so a flood of new names costs one listing per
	// interval instead of one per name.
	var dirty bool
	var listed time.Time
	flush := func() {
		if dirty {
			dirty, listed = false, time.Now()
			if cfg.OnChange != nil {
				cfg.OnChange(t.list())
			}
		}
	}
	changed := func(c bool) {
		dirty = dirty || c
		if time.Since(listed) >= listEvery {
			flush()
		}
	}
	if cfg.listAtEnd {
		defer flush()
	}
	for first := true; ; first = false {
		start := time.Now()
		sel, err := choose(cfg.Ifaces, joined, rep)
		if err == nil {
			expires := start.Add(2*every + settle)
			err = browseRound(ctx, sel, every, settle, func(e *zeroconf.ServiceEntry) {
				defer cfg.work.time(time.Now(), 1)
				if p, ok := peerFromEntry(e, sel.zones); ok {
					p.Expires = expires
					changed(t.put(p))
				}
			}, func() {
				defer cfg.work.time(time.Now(), 0)
				changed(t.sweep())
			}, func() {
				defer cfg.work.time(time.Now(), 0)
				changed(false)
			})
		}
		if err != nil {
			if first {
				return fmt.Errorf("browsing: %w", err)
			}
			// An interface that went away may come back: this round
			// hears nothing, and the table ages as it would.
			rest := time.NewTimer(time.Until(start.Add(every)))
			select {
			case <-ctx.Done():
			case <-rest.C:
				changed(t.sweep())
			}
			rest.Stop()
		}
		flush()
		if ctx.Err() != nil {
			return nil
		}
		t.advance()
	}
}

func (w *browseWork) time(start time.Time, entries int) {
	if w != nil {
		w.busy += time.Since(start)
		w.entries += entries
	}
}

// browseRound runs one zeroconf Resolver on sel for d, or until ctx is
// done, hands found every entry it resolves, calls settled once, settle
// into the round, and tick every listEvery.
//
// It reads the Resolver's entries until zeroconf closes the channel, also
// after ctx is done and found is no longer called: zeroconf's loop sends
// each entry without watching the context, so a reader that left early
// would leave that goroutine, and the Resolver's sockets, blocked for
// good (guard_test.go shows it).
func browseRound(ctx context.Context, sel selection, d, settle time.Duration, found func(*zeroconf.ServiceEntry), settled, tick func()) error {
	r, err := zeroconf.NewResolver(zeroconf.SelectIfaces(sel.ifaces), zeroconf.SelectIPTraffic(sel.ipType()))
	if err != nil {
		return fmt.Errorf("listening on %s: %w", ifaceNames(sel.ifaces), err)
	}
	rctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	entries := make(chan *zeroconf.ServiceEntry)
	// Browse fails only when its query cannot be packed, and then
	// cancels the loop it started, which closes entries: read on.
	berr := r.Browse(rctx, Service, "local.", entries)
	settling := time.NewTimer(settle)
	defer settling.Stop()
	ticker := time.NewTicker(listEvery)
	defer ticker.Stop()
	for {
		select {
		case e, ok := <-entries:
			if !ok {
				if berr != nil {
					return fmt.Errorf("browsing: %w", berr)
				}
				return nil
			}
			if rctx.Err() == nil {
				found(e)
			}
		case <-settling.C:
			if rctx.Err() == nil {
				settled()
			}
		case <-ticker.C:
			if rctx.Err() == nil {
				tick()
			}
		}
	}
}

// settle is how long Find keeps listening after the first match, so that
// a second device with the same name, answering the same query a little
// later, makes the choice ambiguous instead of losing a race.
const settle = 750 * time.Millisecond

// Find browses until exactly one peer matches nameOrFingerprint (by
// secure.DeviceMatches, the rule people also name trusted devices by)
// and no other has appeared shortly after, or until ctx ends. Finding
// none is an error that lists what it did see; finding several, one that
// lists the candidates.
//
// onSkip, if not nil, is told about interfaces that cannot carry mDNS
// (see BrowseConfig.OnSkip).
func Find(ctx context.Context, ifaces []string, nameOrFingerprint string, onSkip SkipFunc) (Peer, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lists := make(chan []Peer)
	done := make(chan error, 1)
	go func() {
		done <- Browse(ctx, BrowseConfig{Ifaces: ifaces, OnSkip: onSkip, OnChange: func(p []Peer) {
			select {
			case lists <- p:
			case <-ctx.Done():
			}
		}})
	}()
	defer func() { cancel(); <-done }()

	var seen, matches []Peer
	var settled <-chan time.Time
	for {
		select {
		case seen = <-lists:
			matches = matches[:0]
			for _, p := range seen {
				if secure.DeviceMatches(p.Name, p.Fingerprint, nameOrFingerprint) {
					matches = append(matches, p)
				}
			}
			if len(matches) > 0 && settled == nil {
				settled = time.After(settle)
			}
		case <-settled:
			return decide(nameOrFingerprint, seen, matches)
		case err := <-done:
			done <- err // for the deferred wait
			if err != nil {
				return Peer{}, fmt.Errorf("finding %q: %w", nameOrFingerprint, err)
			}
			return decide(nameOrFingerprint, seen, matches)
		case <-ctx.Done():
			return decide(nameOrFingerprint, seen, matches)
		}
	}
}

func decide(query string, seen, matches []Peer) (Peer, error) {
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		if len(seen) == 0 {
			return Peer{}, fmt.Errorf("finding %q: no such device: no Ferry devices seen", query)
		}
		return Peer{}, fmt.Errorf("finding %q: no such device; seen: %s", query, peerList(seen))
	default:
		return Peer{}, fmt.Errorf("finding %q: more than one device matches: %s; use the fingerprint", query, peerList(matches))
	}
}

func peerList(peers []Peer) string {
	s := make([]string, len(peers))
	for i, p := range peers {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}

// List browses for wait and returns the peers present at the end. If ctx
// ends first it returns what it saw with ctx's error. onSkip is as for
// Find.
func List(ctx context.Context, ifaces []string, wait time.Duration, onSkip SkipFunc) ([]Peer, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var last []Peer
	if err := Browse(wctx, BrowseConfig{Ifaces: ifaces, OnSkip: onSkip, OnChange: func(p []Peer) { last = p }, listAtEnd: true}); err != nil {
		return nil, err
	}
	return last, ctx.Err()
}
