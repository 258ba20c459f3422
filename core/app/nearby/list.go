package nearby

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/ferry-project/ferry/core/discovery"
)

// Where a Receiver was heard of.
const (
	SourceMDNS     = "mdns"     // Ferry's own mDNS browse
	SourcePlatform = "platform" // another DNS-SD browser's answer, relayed (a phone's)
)

// Receiver is one entry of the list of receivers nearby, as every front
// end shows it. Its JSON form is the one front ends hand on (mobile's
// "peers" list).
type Receiver struct {
	Key         string   `json:"key"`         // what names it in the list: the instance name
	Name        string   `json:"name"`        // device name from TXT, else the instance name
	Fingerprint string   `json:"fingerprint"` // "" if the TXT had none usable
	Version     int      `json:"version"`     // protocol version from TXT, 0 if missing
	Compatible  bool     `json:"compatible"`  // Version is the one this build speaks
	Host        string   `json:"host,omitempty"`
	Port        int      `json:"port"`
	Addrs       []string `json:"addrs"`  // "host:port" to dial, in order
	Source      string   `json:"source"` // SourceMDNS or SourcePlatform
}

// ReceiverOf is the list's entry for a Peer that source found.
func ReceiverOf(p Peer, source string) Receiver {
	return receiverAt(p, p.DialAddrs(), source)
}

func receiverAt(p Peer, addrs []string, source string) Receiver {
	return Receiver{
		Key: p.Instance, Name: p.Name, Fingerprint: p.Fingerprint, Version: p.Version,
		Compatible: p.Compatible(), Host: p.Host, Port: p.Port, Addrs: addrs, Source: source,
	}
}

// Same reports whether r and o list the same.
func (r Receiver) Same(o Receiver) bool {
	return r.Key == o.Key && r.Name == o.Name && r.Fingerprint == o.Fingerprint &&
		r.Version == o.Version && r.Host == o.Host && r.Port == o.Port &&
		r.Source == o.Source && slices.Equal(r.Addrs, o.Addrs)
}

// Reported reads a receiver that another DNS-SD browser (a phone's
// NsdManager or NWBrowser) found and resolved: its instance name and
// host raw, its port, its addresses comma-separated (IPv4 or IPv6, an
// IPv6 link-local one with its zone, Android's "host/10.0.0.1" form
// too), and its TXT either as a JSON object of strings or, when not
// empty, in DNS wire form. It is all peer input, read by the rules a
// browse uses (NewPeer); a receiver without a name, a port in range or
// a usable address is an error, a TXT that says little is not.
func Reported(instance, host string, port int, addrs, txtJSON string, txtRecord []byte) (Receiver, error) {
	if port <= 0 || port > 65535 {
		return Receiver{}, fmt.Errorf("port %d out of range", port)
	}
	var txt []string
	var err error
	if len(txtRecord) > 0 {
		txt, err = discovery.TXTFromRecord(txtRecord)
	} else {
		txt, err = discovery.TXTFromJSON(txtJSON)
	}
	if err != nil {
		return Receiver{}, err
	}
	p := NewPeer(instance, host, txt)
	if p.Instance == "" {
		return Receiver{}, errors.New("no instance name")
	}
	p.Port = port
	dial, err := dialAddrs(addrs, port)
	if err != nil {
		return Receiver{}, err
	}
	return receiverAt(p, dial, SourcePlatform), nil
}

// dialAddrs parses a comma-separated address list into host:port
// strings, IPv4 first, duplicates dropped, order otherwise kept.
func dialAddrs(list string, port int) ([]string, error) {
	var v4, v6 []string
	seen := map[netip.Addr]bool{}
	for _, s := range SplitList(list) {
		// Android's InetAddress.toString() gives "/192.168.1.5" or
		// "host/192.168.1.5"; take what follows the slash.
		if i := strings.LastIndexByte(s, '/'); i >= 0 {
			s = s[i+1:]
		}
		a, err := netip.ParseAddr(strings.Trim(s, "[]"))
		if err != nil {
			return nil, fmt.Errorf("address %q: %w", s, err)
		}
		a = a.Unmap()
		if !a.IsValid() || a.IsUnspecified() || a.IsMulticast() || seen[a] {
			continue
		}
		seen[a] = true
		hp := netip.AddrPortFrom(a, uint16(port)).String()
		if a.Is4() {
			v4 = append(v4, hp)
		} else {
			v6 = append(v6, hp)
		}
	}
	if len(v4)+len(v6) == 0 {
		return nil, errors.New("no usable address")
	}
	return append(v4, v6...), nil
}

// SplitList splits a comma-separated list (of addresses, or of
// interfaces), trimming spaces and dropping empty elements.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// List is the list of receivers nearby from both sources, for a front
// end that hears of receivers from its platform as well as from Ferry's
// own browse (a phone). A platform report shadows an mDNS one of the
// same Key: where a platform has a DNS-SD service, it is the authority.
// Platform receivers stay until Lost; mDNS ones follow the browse, which
// expires them by TTL.
//
// Browses come in runs, numbered by StartRun; the list takes results
// only from the run it holds, so a stopped run may go on a little while
// its sockets close, and whatever it still says is ignored: stopping
// need not wait for it.
type List struct {
	mu       sync.Mutex
	mdns     map[string]Receiver
	platform map[string]Receiver
	run      uint64 // the browse run whose results mdns holds; 0 for none
	runs     uint64 // the last run StartRun numbered
	version  uint64 // bumped on every change

	onChange func() // told after every change, outside the lock; must not wait
}

// NewList returns an empty List that calls onChange after every change,
// outside its lock, so onChange may read the List (and a caller may
// change it again from what onChange sets off); it must not wait.
func NewList(onChange func()) *List {
	return &List{mdns: map[string]Receiver{}, platform: map[string]Receiver{}, onChange: onChange}
}

// update changes the list under its lock and, if change reports a
// change, tells onChange once the lock is released.
func (l *List) update(change func() bool) {
	l.mu.Lock()
	if !change() {
		l.mu.Unlock()
		return
	}
	l.version++
	l.mu.Unlock()
	l.onChange()
}

// Get returns the receiver with the given key.
func (l *List) Get(key string) (Receiver, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.platform[key]; ok {
		return r, true
	}
	r, ok := l.mdns[key]
	return r, ok
}

// Snapshot returns the list's version, bumped on every change, and the
// receivers sorted by name, then fingerprint, then key; never nil.
func (l *List) Snapshot() (uint64, []Receiver) {
	l.mu.Lock()
	defer l.mu.Unlock()
	list := make([]Receiver, 0, len(l.platform)+len(l.mdns))
	for _, r := range l.platform {
		list = append(list, r)
	}
	for k, r := range l.mdns {
		if _, shadowed := l.platform[k]; !shadowed {
			list = append(list, r)
		}
	}
	slices.SortFunc(list, func(a, b Receiver) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Fingerprint, b.Fingerprint), cmp.Compare(a.Key, b.Key))
	})
	return l.version, list
}

// Found adds or updates a receiver the platform reported (Reported).
func (l *List) Found(r Receiver) {
	l.update(func() bool {
		old, had := l.platform[r.Key]
		l.platform[r.Key] = r
		return !had || !old.Same(r)
	})
}

// Lost removes a receiver the platform reported lost; one not in the
// list is no change.
func (l *List) Lost(key string) {
	l.update(func() bool {
		_, had := l.platform[key]
		delete(l.platform, key)
		return had
	})
}

// ForgetFound removes every receiver the platform reported, for when its
// browse stops.
func (l *List) ForgetFound() {
	l.update(func() bool {
		had := len(l.platform) > 0
		clear(l.platform)
		return had
	})
}

// StartRun numbers a new browse run and makes it the one whose results
// the list takes, dropping the previous run's.
func (l *List) StartRun() uint64 {
	var run uint64
	l.update(func() bool {
		l.runs++
		run, l.run = l.runs, l.runs
		had := len(l.mdns) > 0
		clear(l.mdns)
		return had
	})
	return run
}

// EndRun drops run's receivers, if the list still holds that run.
func (l *List) EndRun(run uint64) {
	l.update(func() bool {
		if l.run != run {
			return false
		}
		l.run = 0
		had := len(l.mdns) > 0
		clear(l.mdns)
		return had
	})
}

// Heard takes what run's browse now sees (BrowseConfig.OnChange's
// list); a stopped run's late news changes nothing.
func (l *List) Heard(run uint64, ps []Peer) {
	found := make(map[string]Receiver, len(ps))
	for _, p := range ps {
		r := ReceiverOf(p, SourceMDNS)
		found[r.Key] = r
	}
	l.update(func() bool {
		if l.run != run {
			return false
		}
		same := maps.EqualFunc(l.mdns, found, Receiver.Same)
		l.mdns = found
		return !same
	})
}

// Merge is the list a person picks a receiver from: the found ones
// first, then each typed one (added by its address) that a browse has
// not found since at that address. at says where a receiver is, best
// first; a typed receiver is at its first address.
func Merge[R any](found, typed []R, at func(R) []string) []R {
	seen := map[string]bool{}
	out := make([]R, 0, len(found)+len(typed))
	for _, r := range found {
		out = append(out, r)
		for _, a := range at(r) {
			seen[a] = true
		}
	}
	for _, r := range typed {
		if addrs := at(r); len(addrs) > 0 && seen[addrs[0]] {
			continue
		}
		out = append(out, r)
	}
	return out
}
