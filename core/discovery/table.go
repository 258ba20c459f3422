package discovery

import (
	"cmp"
	"net"
	"slices"
	"strings"
)

// table is a browse's current view, kept across its rounds (see the
// package doc, "Liveness"): one entry per receiver, keyed by its instance
// name (ASCII case folded, as DNS compares names). It is owned by one
// goroutine and does no locking. Every method that changes the view
// reports whether the listing changed.
//
// A receiver is listed while it was heard in the current round or the
// one before (as of the round's sweep); so is each of its addresses. A receiver that shares
// several networks with the browser may be heard with different
// addresses in different rounds (zeroconf passes on the first complete
// answer of a round and drops the rest), so the table lists the union of
// what the last two rounds heard, and an address drops out two rounds
// after its network stops carrying it.
//
// The table holds at most maxPeers receivers, so that a flood of spoofed
// answers (thousands of made-up instances a round) costs a bounded
// memory and a bounded listing. A newcomer to a full table takes the
// place of the stalest receiver, the one heard longest ago, only if that
// one was not heard in the current round; otherwise the newcomer is left
// out until a later round has room. So a receiver that answers every
// round, as a real one does at the round's start, is never pushed out by
// names a flood makes up after it.
type table struct {
	round int
	seq   uint64 // counts puts, to order receivers heard in one round
	peers map[string]*tracked
}

// maxPeers bounds a browse's list: far more Ferry receivers than one
// network holds, and a list a person still scrolls.
const maxPeers = 256

type tracked struct {
	p     Peer   // as last heard, with Addrs the union below
	heard int    // the last round it was heard in
	seq   uint64 // when, within that round (table.seq)
	addrs []heardAddr
}

type heardAddr struct {
	ip    net.IP
	round int
}

func newTable() *table { return &table{peers: map[string]*tracked{}} }

func peerKey(p Peer) string { return strings.ToLower(p.Instance) }

// put records that p was heard in the current round. A peer heard again
// with nothing new (Expires aside) is not a change; nor is a newcomer the
// full table leaves out. It costs no copy of the list.
func (t *table) put(p Peer) bool {
	key := peerKey(p)
	tr, existed := t.peers[key]
	if !existed {
		if len(t.peers) >= maxPeers && !t.evictStalest() {
			return false
		}
		tr = &tracked{}
		t.peers[key] = tr
	}
	old := tr.p
	t.seq++
	tr.heard, tr.seq = t.round, t.seq
	for _, ip := range p.Addrs {
		if i := slices.IndexFunc(tr.addrs, func(h heardAddr) bool { return h.ip.Equal(ip) }); i >= 0 {
			tr.addrs[i].round = t.round
		} else {
			tr.addrs = append(tr.addrs, heardAddr{ip, t.round})
		}
	}
	tr.p = p
	tr.p.Addrs = tr.union()
	return !existed || !samePeer(old, tr.p)
}

// evictStalest drops the receiver heard longest ago, unless it was heard
// in the current round; false when it was (nothing is dropped).
func (t *table) evictStalest() bool {
	var key string
	var stalest *tracked
	for k, tr := range t.peers {
		if stalest == nil || tr.heard < stalest.heard || tr.heard == stalest.heard && tr.seq < stalest.seq {
			key, stalest = k, tr
		}
	}
	if stalest == nil || stalest.heard >= t.round {
		return false
	}
	delete(t.peers, key)
	return true
}

// union is every address still listed, IPv4 first, otherwise in the order
// first heard.
func (tr *tracked) union() []net.IP {
	out := make([]net.IP, len(tr.addrs))
	for i, h := range tr.addrs {
		out[i] = h.ip
	}
	slices.SortStableFunc(out, func(a, b net.IP) int {
		return boolInt(a.To4() == nil) - boolInt(b.To4() == nil)
	})
	return out
}

// sweep drops every peer heard neither in the current round nor in the
// one before, and every address likewise. Browse sweeps once a round's
// answers are in (settleWindow), not at its end, so a peer that vanished
// goes a round sooner.
func (t *table) sweep() bool {
	changed := false
	for key, tr := range t.peers {
		if tr.heard < t.round-1 {
			delete(t.peers, key)
			changed = true
			continue
		}
		n := len(tr.addrs)
		tr.addrs = slices.DeleteFunc(tr.addrs, func(h heardAddr) bool { return h.round < t.round-1 })
		if len(tr.addrs) != n {
			tr.p.Addrs = tr.union()
			changed = true
		}
	}
	return changed
}

// advance starts the next round.
func (t *table) advance() { t.round++ }

// list returns the peers sorted by Name, then Fingerprint, then Instance,
// so the order is total and a listing does not jump around.
func (t *table) list() []Peer {
	out := make([]Peer, 0, len(t.peers))
	for _, tr := range t.peers {
		p := tr.p
		p.Addrs = slices.Clone(p.Addrs)
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Peer) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.Fingerprint, b.Fingerprint),
			cmp.Compare(a.Instance, b.Instance))
	})
	return out
}
