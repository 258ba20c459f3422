package discovery

import (
	"cmp"
	"slices"
	"time"
)

// table is a browse's current view: peers by their raw instance name (as
// miekg/dns spells it, escapes and all, which is also how goodbyes name
// them). It is owned by one goroutine and does no locking. Every method
// that changes the view reports whether the listing changed.
type table struct {
	peers map[string]Peer
}

func newTable() *table { return &table{peers: map[string]Peer{}} }

// put adds or refreshes a peer. A refresh that changes nothing but Expires
// is not a change.
func (t *table) put(key string, p Peer) bool {
	old, ok := t.peers[key]
	t.peers[key] = p
	return !ok || !samePeer(old, p)
}

// remove drops a peer, after a goodbye.
func (t *table) remove(key string) bool {
	_, ok := t.peers[key]
	delete(t.peers, key)
	return ok
}

// expire drops every peer whose lifetime ended at or before now.
func (t *table) expire(now time.Time) bool {
	changed := false
	for k, p := range t.peers {
		if !p.Expires.After(now) {
			delete(t.peers, k)
			changed = true
		}
	}
	return changed
}

// next returns the earliest expiry, or false if the table is empty.
func (t *table) next() (time.Time, bool) {
	var first time.Time
	for _, p := range t.peers {
		if first.IsZero() || p.Expires.Before(first) {
			first = p.Expires
		}
	}
	return first, !first.IsZero()
}

// list returns the peers sorted by Name, then Fingerprint, then Instance,
// so the order is total and a listing does not jump around.
func (t *table) list() []Peer {
	out := make([]Peer, 0, len(t.peers))
	for _, p := range t.peers {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Peer) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.Fingerprint, b.Fingerprint),
			cmp.Compare(a.Instance, b.Instance))
	})
	return out
}
