//go:build !js

package nearby

import (
	"strings"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
)

// TrustWords says how a receiver advertising name and fingerprint
// relates to the trusted devices in store, in the two forms lists use:
// status as --json and events name it ("trusted", "key changed" or ""),
// and mark as a list for a person shows it (stores.TrustStatus.Mark:
// "trusted", "", or for a trusted name with another key that it is NOT
// the trusted device, with both fingerprints). A nil store (no usable
// trust file), or one that cannot be read, marks nothing.
func TrustWords(store *stores.Trust, name, fingerprint string) (status, mark string) {
	if store == nil {
		return "", ""
	}
	st, d, err := store.Classify(name, fingerprint)
	if err != nil {
		return "", ""
	}
	if st != stores.TrustUnknown {
		status = st.String()
	}
	return status, st.Mark(d, fingerprint)
}

// Event is p as the event schema lists a receiver found (--json's
// "peer"), with how it relates to store's trusted devices: "trusted",
// "key_changed" or "".
func (p Peer) Event(store *stores.Trust) event.Peer {
	status, _ := TrustWords(store, p.Name, p.Fingerprint)
	addrs := p.DialAddrs()
	if addrs == nil {
		addrs = []string{} // a list, never null
	}
	return event.Peer{
		Name: p.Name, Fingerprint: p.Fingerprint, Version: p.Version, Host: p.Host, Port: p.Port,
		Addresses: addrs, Trust: strings.ReplaceAll(status, " ", "_"),
	}
}
