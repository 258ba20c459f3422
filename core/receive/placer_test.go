package receive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lukechampine.com/blake3"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// TestPlacerFailure: a file's placing fails on the placer, after the
// session has read, written and verified the files behind it. The error
// names that file, stops the transfer as an error at that entry always
// did (an abort to the sender, an Error event), and the files before it
// are placed and confirmed, while it and those after it are neither: no
// final name holds a file that was not placed, and nothing leaves the
// destination. A sender that stops after that file, waiting for what
// the receiver says, hears the same at once, not a timeout.
func TestPlacerFailure(t *testing.T) {
	link := func(t *testing.T, dest, outside string) {
		if err := os.Symlink(outside, filepath.Join(dest, "b")); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		block func(t *testing.T, dest, outside string) // what takes folder b's place once the offer is accepted
		waits bool                                     // the sender sends a/x and b/y, then waits
	}{
		{"link to outside in the way", link, false},
		{"file in the way", func(t *testing.T, dest, outside string) {
			writeFile(t, filepath.Join(dest, "b"), []byte("not a folder"))
		}, false},
		{"link in the way, sender waits", link, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dest, outside := filepath.Join(base, "dest"), filepath.Join(base, "outside")
			os.Mkdir(dest, 0o755)
			os.Mkdir(outside, 0o755)
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			dir := func(p string) event.Entry { return event.Entry{Path: p, Kind: event.KindDir, Mode: 0o755} }
			file := func(p string) event.Entry { return event.Entry{Path: p, Kind: event.KindFile, Size: 5, Mode: 0o644} }
			// Enough files after the one that fails that the session is
			// reading them while the placer fails.
			entries := []event.Entry{dir("a"), dir("b"), file("a/x"), file("b/y")}
			for _, n := range []string{"z1", "z2", "z3", "z4", "z5", "z6", "z7", "z8", "z9"} {
				entries = append(entries, file("b/"+n))
			}
			r.send(wire.MsgOffer, wire.Offer{Version: wire.Version, Name: "raw", Total: 5 * int64(len(entries)-2), Entries: entries}.Encode())
			r.expect(wire.MsgHello)
			r.expect(wire.MsgAnswer)
			// The receiver made a and b before it answered.
			if err := os.Remove(filepath.Join(dest, "b")); err != nil {
				t.Fatal(err)
			}
			tc.block(t, dest, outside)
			last := len(entries)
			if tc.waits {
				last = 4
			}
			for i := 2; i < last; i++ {
				body := []byte(entries[i].Path[2:] + "....")[:5]
				r.send(wire.MsgBegin, wire.Begin{Index: i}.Encode())
				r.send(wire.MsgData, body)
				r.send(wire.MsgEnd, wire.End{Index: i, Hash: blake3.Sum256(body)}.Encode())
			}
			if !tc.waits {
				r.send(wire.MsgFinish, nil)
			}

			var confirmed []int
			var ab wire.Abort
			for {
				typ, b, err := r.recv()
				if err != nil {
					t.Fatalf("waiting for the abort: %v", err)
				}
				if typ == wire.MsgConfirm {
					c, err := wire.DecodeConfirm(b, len(entries))
					if err != nil {
						t.Fatal(err)
					}
					confirmed = append(confirmed, c.Index)
					continue
				}
				if typ == wire.MsgAbort {
					r.c.Close()
					if ab, err = wire.DecodeAbort(b); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
			err := p.serveErr(t)
			if err == nil || !strings.Contains(err.Error(), `"b/y"`) {
				t.Fatalf("receiver: %v, want the error of b/y", err)
			}
			t.Logf("receiver: %v; abort %d %q", err, ab.Code, ab.Reason)
			if len(confirmed) != 1 || confirmed[0] != 2 {
				t.Errorf("confirmed %v to the sender, want [2] (a/x) alone", confirmed)
			}
			var done []string
			var failed error
			for _, ev := range p.rev.all() {
				switch ev := ev.(type) {
				case event.EntryDone:
					done = append(done, ev.Entry.Path)
				case event.Error:
					failed = ev.Err
				}
			}
			if strings.Join(done, ",") != "a/x" {
				t.Errorf("entry events for %v, want a/x alone", done)
			}
			if failed == nil || failed.Error() != err.Error() {
				t.Errorf("Error event %v, want the receiver's error %v", failed, err)
			}
			if got, err := os.ReadFile(filepath.Join(dest, "a", "x")); err != nil || string(got) != "x...." {
				t.Errorf("a/x holds %q (%v), want it placed", got, err)
			}
			if names := listDir(t, dest); strings.Join(names, ",") != "a,b" {
				t.Errorf("destination holds %v, want a and what is in b's way", names)
			}
			if names, _ := os.ReadDir(filepath.Join(dest, "a")); len(names) != 1 {
				t.Errorf("a holds %d names, want a/x alone", len(names))
			}
			if out, _ := os.ReadDir(outside); len(out) != 0 {
				t.Errorf("files were written outside the destination: %v", out)
			}
			// b/y and whatever of the files after it was written are
			// partial files, in the partial folder and nowhere else.
			parts, _ := os.ReadDir(filepath.Join(dest, place.PartialDir))
			for _, pf := range parts {
				if !strings.HasSuffix(pf.Name(), ".part") {
					t.Errorf("the partial folder holds %s", pf.Name())
				}
			}
			if len(parts) == 0 && !tc.waits {
				t.Error("b/y's verified bytes are gone: its partial file should stay for resume")
			}
			if transfer.CodeOf(err) != ab.Code {
				t.Errorf("abort code %d, want the receiver's error's (%d)", ab.Code, transfer.CodeOf(err))
			}
		})
	}
}

// TestCancelMidSmallFiles: a receiver cancelled in the middle of a folder
// of small files, while the placer has files queued, ends cancelled on
// both ends; every file under its final name is whole and was reported
// done, and every file reported done is there, whole.
func TestCancelMidSmallFiles(t *testing.T) {
	src := filepath.Join(t.TempDir(), "many")
	const files = 300
	for i := range files {
		writeFile(t, filepath.Join(src, fmt.Sprintf("f%03d", i)), pattern(1000+i, byte(i)))
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll})
	done := 0
	p.rev.hook = func(ev event.Event) {
		if _, ok := ev.(event.EntryDone); ok {
			if done++; done == 40 {
				cancel(errors.New("enough"))
			}
		}
	}
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	if !errors.Is(serr, transfer.ErrCancelled) || !errors.Is(rerr, transfer.ErrCancelled) {
		t.Fatalf("send: %v; receive: %v; want ErrCancelled on both", serr, rerr)
	}
	reported := map[string]bool{}
	for _, ed := range eventsOf[event.EntryDone](p.rev) {
		reported[ed.SavedAs] = true
	}
	if len(reported) < 40 || len(reported) >= files {
		t.Fatalf("%d entries reported done, want from 40 to fewer than all", len(reported))
	}
	dst := filepath.Join(p.r.cfg.Dir, "many")
	names, err := os.ReadDir(dst)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !reported["many/"+n.Name()] {
			t.Errorf("%s is under its final name but was not reported done", n.Name())
		}
	}
	for saved := range reported {
		if saved == "many" {
			continue
		}
		want, _ := os.ReadFile(filepath.Join(src, filepath.Base(saved)))
		if got, err := os.ReadFile(filepath.Join(p.r.cfg.Dir, saved)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s was reported done but holds %d bytes (%v), want its %d", saved, len(got), err, len(want))
		}
	}
	t.Logf("%d of %d files placed before the cancellation took hold", len(reported), files)
}
