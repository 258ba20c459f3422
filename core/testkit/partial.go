package testkit

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// WaitPartialBytes waits until a partial file in dest's partial folder
// holds bytes, failing t after a minute. A sender's writes having left
// it (a held connection) say nothing of what the receiver has written
// yet: a test that cancels a transfer to see its partial file kept waits
// here first. The receiver writes as it reads, so there is no event to
// wait on that is not a partial file's size; it is polled.
func WaitPartialBytes(t testing.TB, dest string) {
	t.Helper()
	dir := filepath.Join(dest, PartialFolder)
	for end := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && fi.Size() > 0 {
				return
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no partial file with bytes in %s after a minute", dir)
		}
	}
}
