package testkit

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// WaitPartialPrefix waits until a partial file in dest's partial folder
// begins with prefix, failing t after a minute. A sender's writes having
// left it (a held connection) say nothing of what the receiver has
// written yet: a test that cancels a transfer to see its partial file
// kept waits here first. The prefix names whose partial file it is:
// other senders' files are being written beside it, and any partial
// file with bytes may be one of theirs (a CI run cancelled a session
// that had not yet begun its file, seeing another's bytes). The
// receiver writes as it reads, so there is no event to wait on that is
// not a partial file's contents; it is polled.
func WaitPartialPrefix(t testing.TB, dest string, prefix []byte) {
	t.Helper()
	dir := filepath.Join(dest, PartialFolder)
	for end := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if startsWith(filepath.Join(dir, e.Name()), prefix) {
				return
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no partial file in %s begins with the %d bytes awaited after a minute", dir, len(prefix))
		}
	}
}

func startsWith(path string, prefix []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(prefix))
	_, err = io.ReadFull(f, head)
	return err == nil && bytes.Equal(head, prefix)
}
