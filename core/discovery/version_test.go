package discovery

import (
	"testing"

	"github.com/ferry-project/ferry/core/secure"
)

// TestOneProtocolVersion: what discovery advertises is what the
// handshake speaks (core/transfer's test checks that its messages speak
// the same), so that a front end marks a peer incompatible exactly when
// the handshake would refuse it.
func TestOneProtocolVersion(t *testing.T) {
	if ProtocolVersion != int(secure.ProtocolVersion) {
		t.Errorf("discovery advertises %d, the handshake speaks %d", ProtocolVersion, secure.ProtocolVersion)
	}
}
