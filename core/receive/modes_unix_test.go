//go:build unix

package receive

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// withUmask runs the test under umask m and restores the old one. The
// tests that use it are not parallel, so no other test creates files
// meanwhile.
func withUmask(t *testing.T, m int) {
	old := syscall.Umask(m)
	t.Cleanup(func() { syscall.Umask(old) })
}

func modeOf(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func timeOf(t *testing.T, p string) time.Time {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// chmodTime sets p's mode and time, as a sender's file might have them.
func chmodTime(t *testing.T, p string, m fs.FileMode, when time.Time) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

// TestModesOnlyWhereCreated is issue 13's case: the sender's folder
// Projects is 0777, the receiver already has Projects at 0700. The
// existing folder keeps its mode and is not given the sender's time;
// what the transfer creates gets the sender's mode less the receiver's
// umask, and the sender's time.
func TestModesOnlyWhereCreated(t *testing.T) {
	for _, tc := range []struct {
		umask                     int
		file, exe, sub, subOwnerX fs.FileMode
	}{
		// file: sent 0666; exe: sent 0777; sub: a created folder sent 0777;
		// subOwnerX: a created folder sent 0055 (the owner's rwx is kept).
		{0o022, 0o644, 0o755, 0o755, 0o755},
		{0o077, 0o600, 0o700, 0o700, 0o700},
		{0o002, 0o664, 0o775, 0o775, 0o755},
	} {
		t.Run(fmt.Sprintf("umask %03o", tc.umask), func(t *testing.T) {
			withUmask(t, tc.umask)
			senderTime := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
			src := filepath.Join(t.TempDir(), "Projects")
			writeFile(t, filepath.Join(src, "notes.txt"), []byte("notes"))
			writeFile(t, filepath.Join(src, "run.sh"), []byte("#!/bin/sh\n"))
			writeFile(t, filepath.Join(src, "sub", "a.txt"), []byte("a"))
			if err := os.Mkdir(filepath.Join(src, "open"), 0o700); err != nil {
				t.Fatal(err)
			}
			chmodTime(t, filepath.Join(src, "notes.txt"), 0o666, senderTime)
			chmodTime(t, filepath.Join(src, "run.sh"), 0o777, senderTime)
			chmodTime(t, filepath.Join(src, "sub", "a.txt"), 0o666, senderTime)
			chmodTime(t, filepath.Join(src, "sub"), 0o777, senderTime)
			chmodTime(t, filepath.Join(src, "open"), 0o055, senderTime)
			chmodTime(t, src, 0o777, senderTime)

			dest := t.TempDir()
			mine := filepath.Join(dest, "Projects")
			if err := os.Mkdir(mine, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(mine, 0o700); err != nil { // whatever the umask
				t.Fatal(err)
			}
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll})
			if _, serr, _, rerr := p.run(t.Context(), event.Item{Path: src}); serr != nil || rerr != nil {
				t.Fatalf("send: %v; receive: %v", serr, rerr)
			}
			if m := modeOf(t, mine); m != 0o700 {
				t.Errorf("existing Projects became %v, want it kept at 0700", m)
			}
			if timeOf(t, mine).Equal(senderTime) {
				t.Errorf("existing Projects was given the sender's time")
			}
			for _, c := range []struct {
				rel  string
				want fs.FileMode
			}{
				{"notes.txt", tc.file},
				{"run.sh", tc.exe},
				{"sub", tc.sub},
				{"sub/a.txt", tc.file},
				{"open", tc.subOwnerX},
			} {
				got := filepath.Join(mine, filepath.FromSlash(c.rel))
				if m := modeOf(t, got); m != c.want {
					t.Errorf("created %s: mode %v, want %v", c.rel, m, c.want)
				}
				if w := timeOf(t, got); !w.Equal(senderTime) {
					t.Errorf("created %s: time %v, want the sender's %v", c.rel, w, senderTime)
				}
			}
		})
	}
}

// TestExistingFolderUntouched: when everything offered is already there,
// the merged folder keeps its mode and its time exactly.
func TestExistingFolderUntouched(t *testing.T) {
	withUmask(t, 0o022)
	senderTime := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	src := filepath.Join(t.TempDir(), "Projects")
	writeFile(t, filepath.Join(src, "a.txt"), []byte("same"))
	chmodTime(t, src, 0o777, senderTime)

	dest := t.TempDir()
	mine := filepath.Join(dest, "Projects")
	writeFile(t, filepath.Join(mine, "a.txt"), []byte("same"))
	myTime := time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC)
	chmodTime(t, mine, 0o700, myTime)

	p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll})
	_, serr, rsum, rerr := p.run(t.Context(), event.Item{Path: src})
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	if rsum.SkippedBytes != 4 {
		t.Fatalf("skipped %d bytes, want the identical a.txt skipped", rsum.SkippedBytes)
	}
	if m := modeOf(t, mine); m != 0o700 {
		t.Errorf("Projects became %v, want 0700", m)
	}
	if w := timeOf(t, mine); !w.Equal(myTime) {
		t.Errorf("Projects' time became %v, want %v", w, myTime)
	}
}
