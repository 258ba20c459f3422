package ui

import (
	"net"
	"testing"
)

func TestLocalHosts(t *testing.T) {
	for _, h := range LocalHosts(nil) {
		ip := net.ParseIP(h)
		if ip == nil || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
			t.Errorf("host %q: want a dialable address, not loopback or link-local", h)
		}
	}
	if got := LocalHosts([]string{"lo"}); len(got) == 0 || got[0] != "127.0.0.1" {
		t.Errorf("LocalHosts(lo) = %v, want 127.0.0.1 first", got)
	}
}
