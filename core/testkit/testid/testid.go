// Package testid makes the device identities (static key pairs) that
// tests need, without a key file. It is a subpackage of testkit because
// it imports core/secure, whose own tests use testkit.
package testid

import (
	"testing"

	"github.com/ferry-project/ferry/core/secure"
)

// New returns a fresh identity, stopping t if the system's random source
// fails.
func New(t testing.TB) *secure.Identity {
	t.Helper()
	id, err := secure.NewIdentity()
	if err != nil {
		t.Fatalf("making an identity: %v", err)
	}
	return id
}
