package discovery

import (
	"cmp"
	"maps"
	"net"
	"slices"
	"time"
)

// table is a browse's current view: peers by their raw instance name (as
// miekg/dns spells it, escapes and all, which is also how goodbyes name
// them). It is owned by one goroutine and does no locking. Every method
// that changes the view reports whether the listing changed.
//
// A receiver that shares several networks with the browser answers on
// each with that network's addresses only, so the table keeps what each
// interface heard (views) and lists the union: otherwise the entry would
// flip between address sets with every answer, and a dial would try only
// the last set heard.
type table struct {
	peers map[string]Peer
	views map[string]map[string]Peer // instance -> interface it was heard on -> what it said
}

func newTable() *table {
	return &table{peers: map[string]Peer{}, views: map[string]map[string]Peer{}}
}

// put adds or refreshes a peer heard on no interface in particular. A
// refresh that changes nothing but Expires is not a change.
func (t *table) put(key string, p Peer) bool { return t.putVia(key, "", p, time.Time{}) }

// putVia adds or refreshes what interface via heard of a peer at now, and
// lists the peer as the union of what every interface heard and has not
// let lapse: the newest answer's name, version, host and port, every
// address (each interface's in the order of the interfaces' names, IPv4
// first), every zone, and the latest expiry.
func (t *table) putVia(key, via string, p Peer, now time.Time) bool {
	views := t.views[key]
	if views == nil {
		views = map[string]Peer{}
		t.views[key] = views
	}
	views[via] = p
	merged := p
	merged.Addrs, merged.zones = nil, nil
	for _, v := range slices.Sorted(maps.Keys(views)) {
		vp := views[v]
		if v != via && !vp.Expires.After(now) {
			delete(views, v)
			continue
		}
		for _, ip := range vp.Addrs {
			if !slices.ContainsFunc(merged.Addrs, ip.Equal) {
				merged.Addrs = append(merged.Addrs, ip)
			}
		}
		for _, z := range vp.zones {
			if !slices.Contains(merged.zones, z) {
				merged.zones = append(merged.zones, z)
			}
		}
		if vp.Expires.After(merged.Expires) {
			merged.Expires = vp.Expires
		}
	}
	slices.SortStableFunc(merged.Addrs, func(a, b net.IP) int {
		return boolInt(a.To4() == nil) - boolInt(b.To4() == nil)
	})
	old, ok := t.peers[key]
	t.peers[key] = merged
	return !ok || !samePeer(old, merged)
}

// remove drops a peer, after a goodbye.
func (t *table) remove(key string) bool {
	_, ok := t.peers[key]
	delete(t.peers, key)
	delete(t.views, key)
	return ok
}

// expire drops every peer whose lifetime ended at or before now.
func (t *table) expire(now time.Time) bool {
	changed := false
	for k, p := range t.peers {
		if !p.Expires.After(now) {
			delete(t.peers, k)
			delete(t.views, k)
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
