package memprofile

import "testing"

// Each profile leaves the runtime room under its budget, takes at least
// one transfer, and a development build runs under the strictest.
func TestProfiles(t *testing.T) {
	for _, p := range []Profile{IOS, Android} {
		if p.MemoryLimit <= 0 || p.MemoryLimit >= p.Budget || p.MaxTransfers < 1 || p.GCPercent <= 0 {
			t.Errorf("%s: %+v", p.Name, p)
		}
	}
	if IOS.Budget != 32*MiB {
		t.Errorf("the iOS budget is %d MiB, not an app extension's 32", IOS.Budget/MiB)
	}
	if Build.Name != "ios" {
		t.Errorf("a development build runs under %q", Build.Name)
	}
}
