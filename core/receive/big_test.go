package receive

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/testkit"
)

// TestBigSparseFile streams 2 GiB (of zeros, from a sparse file) through
// the cipher, hashes and writes it. It takes tens of seconds on a small
// shared machine, so -short skips it (CI runs without -short).
func TestBigSparseFile(t *testing.T) {
	if testing.Short() {
		t.Skip("2 GiB transfer: run without -short")
	}
	size := int64(2 << 30)
	if raceEnabled {
		size = 128 << 20
	}
	src := testkit.SparseFile(t, filepath.Join(t.TempDir(), "sparse.img"), size)
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, Diag: true})
	p.send.Diag = true
	ssum, serr, rsum, rerr := p.run(t.Context(), event.Item{Path: src})
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	fi, err := os.Stat(filepath.Join(p.r.cfg.Dir, "sparse.img"))
	if err != nil || fi.Size() != size {
		t.Fatalf("received file: %v, %v", fi, err)
	}
	if ssum.Bytes != size || rsum.Bytes != size {
		t.Errorf("bytes: sent %d, received %d", ssum.Bytes, rsum.Bytes)
	}
	progs := eventsOf[event.Progress](p.sev)
	if last := progs[len(progs)-1]; last.Done != size || last.Total != size {
		t.Errorf("last progress %d/%d, want %d", last.Done, last.Total, size)
	}
	for i := 1; i < len(progs); i++ {
		if progs[i].Done < progs[i-1].Done {
			t.Fatalf("progress went backwards: %d after %d", progs[i].Done, progs[i-1].Done)
		}
	}
	t.Logf("%d progress events, %d diagnostics events on the sender, %d on the receiver",
		len(progs), len(eventsOf[event.Diag](p.sev)), len(eventsOf[event.Diag](p.rev)))
	t.Logf("%d MiB in %v; %s; peak RSS of this process (both ends): %s", size>>20, ssum.Duration, ssum.Verdict, vmHWM())
}

// vmHWM reads the process's peak resident set size.
func vmHWM() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown on " + runtime.GOOS
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
