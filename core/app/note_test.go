//go:build !js

package app

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/history"

	"github.com/ferry-project/ferry/core/testkit/testid"
)

// A transfer with a code notes its peer as recently authenticated while
// its history record is written, before the front end's AfterCode,
// which then takes that note's outcome instead of writing the trust file
// again; a Result no transfer recorded is noted by AfterCode, as before.
func TestRecordNotesRecent(t *testing.T) {
	n := newNode(t)
	rec := newRecorder()
	rc := listen(t, n, rec, ReceiveConfig{AcceptAll: true})
	tr, err := rc.Receive(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := sendText(t, testid.New(t), rc, rc.Code(), "hello"); err != nil {
		t.Fatalf("send: %v", err)
	}
	res := tr.Wait()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	recent, err := n.Trust().Recent()
	if err != nil || len(recent) != 1 || !bytes.Equal(recent[0].Key, res.Peer.Key) || recent[0].Name != "phone" {
		t.Fatalf("recent devices when the transfer ended: %+v, %v", recent, err)
	}
	trustFile := filepath.Join(n.cfg.ConfigDir, "trusted.json")
	// The trust file is replaced (a new file renamed over it) at every
	// write.
	before, err := os.Stat(trustFile)
	if err != nil {
		t.Fatal(err)
	}
	step, err := n.AfterCode(res, false, false)
	if err != nil || step.Do != PinHint || step.Peer.Name != "phone" {
		t.Fatalf("AfterCode: %+v, %v", step, err)
	}
	if after, err := os.Stat(trustFile); err != nil || !os.SameFile(before, after) {
		t.Errorf("AfterCode wrote the trust file again (%v)", err)
	}
	if len(n.noted) != 0 {
		t.Errorf("notes left after AfterCode: %v", n.noted)
	}
	// Asked again, or of a Result no transfer recorded, it notes itself.
	if _, err := n.AfterCode(res, false, false); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(trustFile); err != nil || os.SameFile(before, after) {
		t.Errorf("a second AfterCode did not note the peer (%v)", err)
	}
}

// BenchmarkTransferEnd: what a Node writes at the end of a transfer
// with a code (its history record, then the front end's AfterCode),
// with the trust store's note beside the history's write (record) and,
// as a baseline, after it (the order before noteEarly). On the disk
// that holds the test's temporary folder: each write is synced.
func BenchmarkTransferEnd(b *testing.B) {
	for _, early := range []bool{true, false} {
		b.Run(map[bool]string{true: "beside", false: "after"}[early], func(b *testing.B) {
			n, err := New(Config{Name: "desk", ConfigDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer n.Close()
			res := Result{Peer: stores.Device{Name: "phone", Key: testid.New(b).Public()}}
			r := history.Record{Direction: history.Received}
			b.ReportAllocs()
			for b.Loop() {
				if early {
					n.record(r, res, time.Now())
					if _, err := n.AfterCode(res, false, false); err != nil {
						b.Fatal(err)
					}
					continue
				}
				// The history's write, then AfterCode's own note.
				<-n.warmed
				if _, err := n.rec.Add(r); err != nil {
					b.Fatal(err)
				}
				if _, err := n.AfterCode(res, false, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
