package mobile

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/ferry-project/ferry/core/app/nearby"
)

// Sources of a peer, as PeersJSON reports them.
const (
	sourceMDNS     = "mdns"     // Ferry's own mDNS browse (StartBrowse)
	sourcePlatform = "platform" // reported by the app (PeerFound)
)

// PlatformPeer is a Ferry receiver that the platform's service discovery
// found and resolved: NsdManager on Android, NWBrowser (or NetService) on
// iOS. The app reports it with Node.PeerFound and its loss with
// Node.PeerLost. Create it with NewPlatformPeer (Kotlin: PlatformPeer(),
// Swift: MobilePlatformPeer()).
type PlatformPeer struct {
	// InstanceName is the service's instance name; it is the peer's Key.
	InstanceName string
	// Host is the advertised host name, for display; may be empty.
	Host string
	// Port is the resolved port.
	Port int
	// Addrs are the resolved addresses, comma-separated, IPv4 or IPv6,
	// an IPv6 link-local one with its zone ("fe80::1%wlan0").
	Addrs string
	// TxtJSON is the TXT record as a JSON object of strings (from
	// NsdServiceInfo.attributes, decoding each value as UTF-8; null for
	// a key without a value), in the record's order where the platform
	// keeps it. Either TxtJSON or TxtRecord.
	TxtJSON string
	// TxtRecord is the TXT record in DNS wire form (NWTxtRecord.data,
	// NetService.txtRecordData()).
	TxtRecord []byte
}

// NewPlatformPeer returns an empty PlatformPeer.
func NewPlatformPeer() *PlatformPeer { return &PlatformPeer{} }

// peer is one entry of the list the app sees. The exported fields are
// its JSON form.
type peer struct {
	Key         string   `json:"key"`         // what SendOptions.Peer takes: the instance name
	Name        string   `json:"name"`        // device name from TXT, else the instance name
	Fingerprint string   `json:"fingerprint"` // "" if the TXT had none usable
	Version     int      `json:"version"`     // protocol version from TXT, 0 if missing
	Compatible  bool     `json:"compatible"`  // Version is the one this build speaks
	Host        string   `json:"host,omitempty"`
	Port        int      `json:"port"`
	Addrs       []string `json:"addrs"`  // "host:port" to dial, in order
	Source      string   `json:"source"` // "mdns" or "platform"
}

// peerTable merges the peers of both sources. A platform report shadows
// an mDNS one of the same instance name: on a phone the platform is the
// authority. Platform peers stay until PeerLost; mDNS peers follow
// core/discovery's browse, which expires them by TTL.
type peerTable struct {
	mu       sync.Mutex
	mdns     map[string]peer
	platform map[string]peer
	mdnsRun  uint64 // the browse run whose results mdns holds; 0 for none
	version  uint64 // bumped on every change

	onChange func() // told after every change, outside the lock; must not wait
}

func newPeerTable(onChange func()) *peerTable {
	return &peerTable{mdns: map[string]peer{}, platform: map[string]peer{}, onChange: onChange}
}

// get returns the peer with the given key.
func (t *peerTable) get(key string) (peer, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, ok := t.platform[key]; ok {
		return p, true
	}
	p, ok := t.mdns[key]
	return p, ok
}

// update changes the table under its lock and, if change reports a
// change, tells onChange once the lock is released. Nothing reaches the
// app from here: onChange only queues (see outbox.peersChanged), so the
// app may change the table again from inside a "peers" event.
func (t *peerTable) update(change func() bool) {
	t.mu.Lock()
	if !change() {
		t.mu.Unlock()
		return
	}
	t.version++
	t.mu.Unlock()
	t.onChange()
}

// snapshot returns the table's version and its list as JSON.
func (t *peerTable) snapshot() (uint64, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.version, t.jsonLocked()
}

func (t *peerTable) json() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.jsonLocked()
}

// jsonLocked lists the peers sorted by name, then fingerprint, then key.
func (t *peerTable) jsonLocked() string {
	list := make([]peer, 0, len(t.platform)+len(t.mdns))
	for _, p := range t.platform {
		list = append(list, p)
	}
	for k, p := range t.mdns {
		if _, shadowed := t.platform[k]; !shadowed {
			list = append(list, p)
		}
	}
	slices.SortFunc(list, func(a, b peer) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Fingerprint, b.Fingerprint), cmp.Compare(a.Key, b.Key))
	})
	b, _ := json.Marshal(list) // strings, ints and bools always encode
	return string(b)
}

// Peers returns the receivers nearby as a JSON array, sorted by name:
//
//	[{"key": "Zoë's laptop (K7QX)", "name": "Zoë's laptop",
//	  "fingerprint": "K7QX-M2PA-9RTE-WD4C", "version": 1, "compatible": true,
//	  "host": "zoes-laptop", "port": 40123,
//	  "addrs": ["192.168.1.20:40123", "[fe80::1%wlan0]:40123"],
//	  "source": "mdns"}]
//
// A peer whose "compatible" is false speaks another protocol version:
// show it, but a transfer to it will fail. Pass "key" as SendOptions.Peer.
func (n *Node) Peers() string {
	defer quiet()
	return n.peers.json()
}

// PeerFound adds or updates a receiver that the platform's discovery
// found and resolved. A peer without a usable address or port is an
// error; a TXT that says little is not (the peer is listed with what it
// says, as core/discovery does).
func (n *Node) PeerFound(found *PlatformPeer) (err error) {
	defer guard("adding a peer", &err)
	if found == nil {
		return errors.New("adding a peer: nil")
	}
	pe, err := platformPeer(found)
	if err != nil {
		return fmt.Errorf("adding a peer: %w", err)
	}
	if n.isClosed() {
		return fmt.Errorf("adding a peer: %w", errClosed)
	}
	n.peers.update(func() bool {
		old, had := n.peers.platform[pe.Key]
		n.peers.platform[pe.Key] = pe
		return !had || !samePeer(old, pe)
	})
	return nil
}

// PeerLost removes a receiver the platform reported lost (by its
// instance name). Removing one not in the list does nothing.
func (n *Node) PeerLost(instanceName string) (err error) {
	defer guard("removing a peer", &err)
	if n.isClosed() {
		return fmt.Errorf("removing a peer: %w", errClosed)
	}
	n.peers.update(func() bool {
		_, had := n.peers.platform[instanceName]
		delete(n.peers.platform, instanceName)
		return had
	})
	return nil
}

// ForgetPlatformPeers removes every peer the app reported, for when the
// platform browse stops.
func (n *Node) ForgetPlatformPeers() (err error) {
	defer guard("forgetting peers", &err)
	if n.isClosed() {
		return fmt.Errorf("forgetting peers: %w", errClosed)
	}
	n.peers.update(func() bool {
		had := len(n.peers.platform) > 0
		clear(n.peers.platform)
		return had
	})
	return nil
}

// platformPeer checks and converts what the app reported. The platform's
// results are peer input relayed: core/discovery reads the names and TXT
// by the rules its browse uses; addresses are parsed here.
func platformPeer(p *PlatformPeer) (peer, error) {
	if p.Port <= 0 || p.Port > 65535 {
		return peer{}, fmt.Errorf("port %d out of range", p.Port)
	}
	var txt []string
	var err error
	if len(p.TxtRecord) > 0 {
		txt, err = txtFromRecord(p.TxtRecord)
	} else {
		txt, err = txtFromJSON(p.TxtJSON)
	}
	if err != nil {
		return peer{}, err
	}
	d := nearby.NewPeer(p.InstanceName, p.Host, txt)
	if d.Instance == "" {
		return peer{}, errors.New("no instance name")
	}
	d.Port = p.Port
	addrs, err := dialAddrs(p.Addrs, p.Port)
	if err != nil {
		return peer{}, err
	}
	return listed(d, addrs, sourcePlatform), nil
}

// listed is the app's entry for a peer as core/app describes it,
// dialled at addrs.
func listed(p nearby.Peer, addrs []string, source string) peer {
	return peer{
		Key:         p.Instance,
		Name:        p.Name,
		Fingerprint: p.Fingerprint,
		Version:     p.Version,
		Compatible:  p.Compatible(),
		Host:        p.Host,
		Port:        p.Port,
		Addrs:       addrs,
		Source:      source,
	}
}

// dialAddrs parses a comma-separated address list into host:port
// strings, IPv4 first, duplicates dropped, order otherwise kept.
func dialAddrs(list string, port int) ([]string, error) {
	var v4, v6 []string
	seen := map[netip.Addr]bool{}
	for _, s := range splitList(list) {
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

// samePeer reports whether a and b list the same.
func samePeer(a, b peer) bool {
	return a.Key == b.Key && a.Name == b.Name && a.Fingerprint == b.Fingerprint &&
		a.Version == b.Version && a.Host == b.Host && a.Port == b.Port &&
		a.Source == b.Source && slices.Equal(a.Addrs, b.Addrs)
}

// splitList splits a comma-separated list, trimming spaces and dropping
// empty elements.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
