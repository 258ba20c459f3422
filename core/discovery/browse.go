package discovery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/grandcat/zeroconf"
)

// BrowseConfig says where to browse and whom to tell.
type BrowseConfig struct {
	Ifaces []string
	// OnChange is called with the full current list whenever it changes
	// (added, updated, expired, said goodbye), sorted by Name then
	// Fingerprint. It is called from Browse's goroutine, one call at a
	// time, and should return quickly: mDNS answers wait while it runs.
	// The slice is the callee's to keep.
	OnChange func(peers []Peer)
}

// timing holds a browse's clocks. Tests shorten them.
var timing = struct {
	maxTTL  time.Duration // longest lifetime granted to an entry
	refresh time.Duration // length of one browse round, which re-queries
}{
	maxTTL:  120 * time.Second,
	refresh: 30 * time.Second,
}

// Browse watches the network for Ferry receivers until ctx is done, then
// returns nil. It returns an error only if it cannot start listening.
//
// It runs in rounds of timing.refresh, each with a fresh zeroconf
// Resolver: a Resolver reports each instance once and stops querying
// after the first answer, so only a new one asks again and hears the
// answers that keep live entries from expiring.
func Browse(ctx context.Context, cfg BrowseConfig) error {
	ifaces, err := interfaces(cfg.Ifaces)
	if err != nil {
		return fmt.Errorf("browsing: %w", err)
	}
	zones := zoneNames(ifaces)
	maxTTL, refresh := timing.maxTTL, timing.refresh

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	byes := make(chan string)
	gl, err := listenGoodbyes(ctx, ifaces, byes)
	if err != nil {
		return fmt.Errorf("browsing: listening for goodbyes on %s: %w", ifaceNames(ifaces), err)
	}
	defer func() {
		cancel() // unblocks a reader waiting to hand over a goodbye
		gl.close()
	}()

	t := newTable()
	changed := func(c bool) {
		if c && cfg.OnChange != nil {
			cfg.OnChange(t.list())
		}
	}
	expiry := time.NewTimer(0)
	defer expiry.Stop()
	armExpiry := func() {
		expiry.Stop()
		if next, ok := t.next(); ok {
			expiry.Reset(time.Until(next))
		}
	}

	for ctx.Err() == nil {
		entries := make(chan *zeroconf.ServiceEntry)
		roundCtx, endRound := context.WithTimeout(ctx, refresh)
		if err := startRound(roundCtx, ifaces, entries); err != nil {
			endRound()
			return fmt.Errorf("browsing on %s: %w", ifaceNames(ifaces), err)
		}
		// The library closes entries when roundCtx ends (or when its own
		// querying fails); until then every entry must be read, or its
		// goroutine blocks for good.
		for open := true; open; {
			select {
			case e, ok := <-entries:
				if !ok {
					open = false
					break
				}
				if e.TTL == 0 { // a goodbye, should a later zeroconf pass them on
					changed(t.remove(e.Instance))
				} else {
					changed(t.put(e.Instance, peerFromEntry(e, time.Now(), maxTTL, zones)))
				}
			case inst := <-byes:
				changed(t.remove(inst))
			case <-expiry.C:
				changed(t.expire(time.Now()))
			}
			armExpiry()
		}
		endRound()
	}
	return nil
}

// startRound creates the round's Resolver and starts browsing. If Browse
// fails after starting its loop, the loop still closes entries when
// roundCtx ends, and the caller drains it; if NewResolver fails nothing
// was started.
func startRound(roundCtx context.Context, ifaces []net.Interface, entries chan *zeroconf.ServiceEntry) error {
	r, err := zeroconf.NewResolver(zeroconf.SelectIfaces(ifaces))
	if err != nil {
		return fmt.Errorf("joining mDNS groups: %w", err)
	}
	if err := r.Browse(roundCtx, Service, "local.", entries); err != nil {
		// The library has cancelled its loop, which closes entries; drain
		// it so that loop can finish.
		for range entries {
		}
		return fmt.Errorf("sending query: %w", err)
	}
	return nil
}

// Sentinel errors from Find, for callers that branch on them.
var (
	ErrNotFound  = errors.New("no such device")
	ErrAmbiguous = errors.New("several devices match")
)

// settle is how long Find keeps listening after the first match, so that
// a second device with the same name, answering the same query a little
// later, makes the choice ambiguous instead of losing a race.
const settle = 750 * time.Millisecond

// Find browses until exactly one peer matches nameOrFingerprint (see
// Peer.Matches) and no other has appeared shortly after, or until ctx
// ends. It returns ErrNotFound (with what it did see) or ErrAmbiguous
// (with the candidates), wrapped.
func Find(ctx context.Context, ifaces []string, nameOrFingerprint string) (Peer, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lists := make(chan []Peer)
	done := make(chan error, 1)
	go func() {
		done <- Browse(ctx, BrowseConfig{Ifaces: ifaces, OnChange: func(p []Peer) {
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
				if p.Matches(nameOrFingerprint) {
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
			return Peer{}, fmt.Errorf("finding %q: %w: no Ferry devices seen", query, ErrNotFound)
		}
		return Peer{}, fmt.Errorf("finding %q: %w; seen: %s", query, ErrNotFound, peerList(seen))
	default:
		return Peer{}, fmt.Errorf("finding %q: %w: %s; use the fingerprint", query, ErrAmbiguous, peerList(matches))
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
// ends first it returns what it saw with ctx's error.
func List(ctx context.Context, ifaces []string, wait time.Duration) ([]Peer, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var last []Peer
	if err := Browse(wctx, BrowseConfig{Ifaces: ifaces, OnChange: func(p []Peer) { last = p }}); err != nil {
		return nil, err
	}
	return last, ctx.Err()
}
