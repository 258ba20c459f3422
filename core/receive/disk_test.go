//go:build linux

package receive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
)

// smallDisk mounts a tmpfs of the given size and returns its path. It
// skips without root; as root a mount that fails is a failure.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Fatalf("mounting a tmpfs as root: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

func TestOfferBiggerThanDisk(t *testing.T) {
	dest := smallDisk(t, "1m")
	src := filepath.Join(t.TempDir(), "two-megs.bin")
	writeFile(t, src, pattern(2<<20, 3))
	p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll})
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	if !errors.Is(serr, transfer.ErrNoSpace) || !errors.Is(rerr, transfer.ErrNoSpace) {
		t.Fatalf("send: %v; receive: %v; want ErrNoSpace on both", serr, rerr)
	}
	t.Logf("receiver: %v", rerr)
	if n, _ := os.ReadDir(dest); len(n) != 0 {
		t.Errorf("refused offer wrote %v", n)
	}
}

// TestDiskFillsUp fills the disk after the free-space check passed: the
// write fails with ENOSPC, which must surface as ErrNoSpace, keep the
// partial file and never show a half file under its final name.
func TestDiskFillsUp(t *testing.T) {
	dest := smallDisk(t, "4m")
	src := filepath.Join(t.TempDir(), "three-megs.bin")
	writeFile(t, src, pattern(3<<20, 4))
	p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: Ask})
	p.rev.hook = func(ev event.Event) {
		if _, ok := ev.(event.Offer); ok {
			// Someone else takes most of the disk while the person decides.
			if err := os.WriteFile(filepath.Join(dest, "filler"), make([]byte, 2<<20), 0o644); err != nil {
				panic(fmt.Sprintf("filling the disk: %v", err))
			}
			p.r.Accept()
		}
	}
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	if !errors.Is(serr, transfer.ErrNoSpace) || !errors.Is(rerr, transfer.ErrNoSpace) {
		t.Fatalf("send: %v; receive: %v; want ErrNoSpace on both", serr, rerr)
	}
	t.Logf("receiver: %v", rerr)
	if !strings.Contains(rerr.Error(), "no space left") {
		t.Errorf("the error does not name the cause: %v", rerr)
	}
	if strings.Contains(serr.Error(), dest) {
		t.Errorf("the sender learnt the receiver's folder %s: %v", dest, serr)
	}
	if names := listDir(t, dest); len(names) != 1 || names[0] != "filler" {
		t.Errorf("destination holds %v", names)
	}
	parts, _ := os.ReadDir(filepath.Join(dest, place.PartialDir))
	if len(parts) != 1 {
		t.Fatalf("partial file not kept: %v", parts)
	}
	if fi, _ := parts[0].Info(); fi.Size() == 0 {
		t.Error("partial file is empty")
	}
}
