package discovery

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"

	"github.com/ferry-project/ferry/core/transfer"
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
	// OnSkip, if set, is told once per interface and address family that
	// cannot carry mDNS; the browse goes on with the others. It is
	// called from Browse or its readers, never after Browse returns.
	OnSkip SkipFunc
}

// timing holds a browse's clocks. Tests shorten them.
var timing = struct {
	maxTTL  time.Duration // longest lifetime granted to an entry
	refresh time.Duration // time between queries, after the first two
}{
	maxTTL:  120 * time.Second,
	refresh: 30 * time.Second,
}

// secondQuery is when the second query goes out, in case the first was
// lost (RFC 6762 section 5.2 starts with one second, then backs off).
const secondQuery = time.Second

// Browse watches the network for Ferry receivers until ctx is done, then
// returns nil. It returns an error only if it cannot listen on any
// interface; interfaces that fail are reported through cfg.OnSkip and
// skipped.
//
// It asks at once on every link, again after a second, then every
// timing.refresh, so the answers keep live entries from expiring.
func Browse(ctx context.Context, cfg BrowseConfig) error {
	ifaces, err := interfaces(cfg.Ifaces)
	if err != nil {
		return fmt.Errorf("browsing: %w", err)
	}
	links, err := openLinks(ifaces, len(cfg.Ifaces) > 0, newReporter(cfg.OnSkip))
	if err != nil {
		return fmt.Errorf("browsing: %w", err)
	}
	maxTTL, refresh := timing.maxTTL, timing.refresh

	ctx, cancel := context.WithCancel(ctx)
	packets := make(chan packet)
	var readers sync.WaitGroup
	readLinks(links, &readers, func(p packet) {
		select {
		case packets <- p:
		case <-ctx.Done():
		}
	})
	defer func() {
		cancel() // unblocks a reader waiting to hand over a packet
		closeLinks(links)
		readers.Wait()
	}()

	query := new(dns.Msg)
	query.SetQuestion(serviceFQDN, dns.TypePTR)
	query.Id, query.RecursionDesired = 0, false
	qbytes, err := query.Pack()
	if err != nil {
		return fmt.Errorf("browsing: packing the query: %w", err)
	}
	ask := time.NewTimer(0)
	defer ask.Stop()
	asked := 0

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

	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ask.C:
			for _, l := range links {
				l.send(qbytes)
			}
			if asked++; asked == 1 {
				ask.Reset(secondQuery)
			} else {
				ask.Reset(refresh)
			}
		case p := <-packets:
			for _, inst := range goodbyes(p.data) {
				changed(t.remove(inst))
			}
			var zones []string
			if p.link.ifi.Flags&net.FlagLoopback == 0 {
				zones = []string{p.link.ifi.Name}
			}
			now := time.Now()
			for _, e := range entries(p.data) {
				changed(t.putVia(e.Instance, p.link.ifi.Name, peerFromEntry(e, now, maxTTL, zones), now))
			}
		case <-expiry.C:
			changed(t.expire(time.Now()))
		}
		armExpiry()
	}
}

// Sentinel errors from Find, for callers that branch on them.
var (
	ErrNotFound  = transfer.NewError(transfer.KindNoSuchDevice, "no such device")
	ErrAmbiguous = transfer.NewError(transfer.KindAmbiguous, "several devices match")
)

// settle is how long Find keeps listening after the first match, so that
// a second device with the same name, answering the same query a little
// later, makes the choice ambiguous instead of losing a race.
const settle = 750 * time.Millisecond

// Find browses until exactly one peer matches nameOrFingerprint (see
// Peer.Matches) and no other has appeared shortly after, or until ctx
// ends. It returns ErrNotFound (with what it did see) or ErrAmbiguous
// (with the candidates), wrapped.
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
// ends first it returns what it saw with ctx's error. onSkip is as for
// Find.
func List(ctx context.Context, ifaces []string, wait time.Duration, onSkip SkipFunc) ([]Peer, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var last []Peer
	if err := Browse(wctx, BrowseConfig{Ifaces: ifaces, OnSkip: onSkip, OnChange: func(p []Peer) { last = p }}); err != nil {
		return nil, err
	}
	return last, ctx.Err()
}
