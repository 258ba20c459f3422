package discovery

import (
	"strings"
	"testing"
)

func TestInterfaces(t *testing.T) {
	_, err := interfaces([]string{"no-such-if0"})
	if err == nil || !strings.Contains(err.Error(), `"no-such-if0"`) || !strings.Contains(err.Error(), "lo") {
		t.Errorf("unknown interface: %v, want an error naming it and listing lo", err)
	}
	got, err := interfaces([]string{"lo", "lo"})
	if err != nil || len(got) != 1 || got[0].Name != "lo" {
		t.Errorf("interfaces(lo, lo) = %v, %v; want lo once", got, err)
	}
}

func TestAdvertiseRefusesBadConfig(t *testing.T) {
	const fp = "K7QX-M2PA-9RTE-WD4C"
	for _, cfg := range []AdvertiseConfig{
		{Name: "", Fingerprint: fp, Port: 1},
		{Name: " \t\x1b ", Fingerprint: fp, Port: 1},
		{Name: "x", Fingerprint: "K7QX", Port: 1},
		{Name: "x", Fingerprint: fp, Port: 0},
		{Name: "x", Fingerprint: fp, Port: 65536},
		{Name: "x", Fingerprint: fp, Port: 1, Ifaces: []string{"no-such-if0"}},
	} {
		if a, err := Advertise(cfg); err == nil {
			a.Close()
			t.Errorf("Advertise(%+v) succeeded", cfg)
		}
	}
}
