package mobile

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/app/nearby"
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

// peer is one entry of the list the app sees; its JSON form is the
// app's (see Peers).
type peer = nearby.Receiver

// peersJSON is the list the app sees, with its version (outbox).
func (n *Node) peersJSON() (uint64, string) {
	v, list := n.peers.Snapshot()
	b, _ := json.Marshal(list) // strings, ints and bools always encode
	return v, string(b)
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
	_, js := n.peersJSON()
	return js
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
	n.peers.Found(pe)
	return nil
}

// PeerLost removes a receiver the platform reported lost (by its
// instance name). Removing one not in the list does nothing.
func (n *Node) PeerLost(instanceName string) (err error) {
	defer guard("removing a peer", &err)
	if n.isClosed() {
		return fmt.Errorf("removing a peer: %w", errClosed)
	}
	n.peers.Lost(instanceName)
	return nil
}

// ForgetPlatformPeers removes every peer the app reported, for when the
// platform browse stops.
func (n *Node) ForgetPlatformPeers() (err error) {
	defer guard("forgetting peers", &err)
	if n.isClosed() {
		return fmt.Errorf("forgetting peers: %w", errClosed)
	}
	n.peers.ForgetFound()
	return nil
}

// platformPeer checks and converts what the app reported: core/app
// reads it (nearby.Reported) by the rules its own browse uses.
func platformPeer(p *PlatformPeer) (peer, error) {
	return nearby.Reported(p.InstanceName, p.Host, p.Port, p.Addrs, p.TxtJSON, p.TxtRecord)
}
