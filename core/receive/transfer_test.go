package receive

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/transfer"
)

func TestTreeRoundTrip(t *testing.T) {
	ctx := t.Context()
	src := filepath.Join(t.TempDir(), "album")
	writeFile(t, filepath.Join(src, "empty.txt"), nil)
	writeFile(t, filepath.Join(src, "with space", "naïve café ✓.bin"), pattern(3*transfer.MaxChunk+17, 1))
	writeFile(t, filepath.Join(src, "a", "b", "c", "d", "e", "deep.txt"), []byte("deep"))
	writeFile(t, filepath.Join(src, "chunk.bin"), pattern(transfer.MaxChunk, 2))
	for _, d := range []string{"empty dir", "a/b/also empty"} {
		if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(src, "chunk.bin"), 0o600)
	os.Chmod(filepath.Join(src, "empty dir"), 0o750)
	old := time.Date(2001, 2, 3, 4, 5, 6, 7000, time.UTC)
	os.Chtimes(filepath.Join(src, "a", "b", "c", "d", "e", "deep.txt"), old, old)
	os.Chtimes(filepath.Join(src, "a", "b"), old, old)

	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, SaveText: false})
	ssum, serr, rsum, rerr := p.run(ctx, event.Item{Path: src}, event.Item{Text: "hello there", Name: "note.txt"})
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	sameTree(t, src, p.r.cfg.Dir)
	if ssum.Bytes != rsum.Bytes || ssum.Bytes == 0 {
		t.Errorf("bytes: sender %d, receiver %d", ssum.Bytes, rsum.Bytes)
	}
	if len(ssum.Entries) != len(rsum.Entries) {
		t.Errorf("entries: sender %d confirmed, receiver %d", len(ssum.Entries), len(rsum.Entries))
	}
	texts := eventsOf[event.Text](p.rev)
	if len(texts) != 1 || texts[0].Text != "hello there" || texts[0].Name != "note.txt" {
		t.Errorf("texts: %+v", texts)
	}
	if _, err := os.Stat(filepath.Join(p.r.cfg.Dir, "note.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("text saved without SaveText: %v", err)
	}
	conns := eventsOf[event.Connected](p.sev)
	if len(conns) != 1 || conns[0].PeerName != "receiver-box" {
		t.Errorf("sender's event.Connected: %+v", conns)
	}
	rconns := eventsOf[event.Connected](p.rev)
	if len(rconns) != 1 || rconns[0].PeerName != "sender-box" {
		t.Errorf("receiver's event.Connected: %+v", rconns)
	}
	if ssum.Verdict == "" || ssum.RemoteWall == 0 {
		t.Errorf("no verdict or remote split: %q %v", ssum.Verdict, ssum.RemoteWall)
	}
	if len(eventsOf[event.Done](p.sev)) != 1 || len(eventsOf[event.Done](p.rev)) != 1 {
		t.Error("Finished not emitted once on each end")
	}
	if progs := eventsOf[event.Progress](p.sev); len(progs) == 0 || progs[len(progs)-1].Done != ssum.Bytes {
		t.Errorf("sender's last progress does not cover the bytes sent")
	}
	if strings.Contains(strings.Join(listDir(t, p.r.cfg.Dir), ","), "(1)") {
		t.Errorf("unexpected clash names: %v", listDir(t, p.r.cfg.Dir))
	}
}
