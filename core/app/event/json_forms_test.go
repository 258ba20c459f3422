package event_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
)

// The JSON forms that --json prints and mobile hands over, checked on
// event's own types: these were the CLI's tests, but they build engine
// figures (diag's splits) and call nothing of the CLI's, so they live
// beside the events.

func TestJSONEvents(t *testing.T) {
	var split diag.Split
	split[diag.DiskRead] = diag.StageTotal{Time: time.Second, Bytes: 10, Calls: 1}
	entry := event.Entry{Path: "a/b.txt", Kind: event.KindFile, Size: 5}
	offer := event.Offer{Entries: []event.Entry{entry}, Files: 1, TotalBytes: 5, PeerName: "laptop"}
	sum := event.Summary{Entries: []event.EntryDone{{Entry: entry, Outcome: event.Received}}, Bytes: 5,
		Duration: 2 * time.Second, Local: split, Wall: 2 * time.Second, Verdict: "slowest stage: sender disk read (busy 50% of the time)"}
	tests := []struct {
		ev    event.Event
		event string
		field string // one more field that must be there
	}{
		{event.Connected{PeerName: "laptop", Addr: "127.0.0.1:1"}, "connected", "peer_name"},
		{offer, "offer", "entries"},
		{event.Accepted{By: event.ByPeer, Offer: offer, TotalBytes: 5}, "accepted", "total_bytes"},
		{event.Progress{Done: 1, Total: 5, ETA: 1}, "progress", "eta"},
		{event.EntryDone{Entry: entry, Outcome: event.Received, SavedAs: "a/b (1).txt"}, "entry", "saved_as"},
		{event.Text{Name: "text.txt", Text: "hi"}, "text", "text"},
		{event.CodeChanged{Code: "654321", Reason: event.CodeRetired}, "code_changed", "code"},
		{event.NewDiag(event.Sender, split, 5*time.Second), "diag", "stages"},
		{event.Unproven{Addr: "10.0.0.2:1", Guessed: true, Wrong: 1, Allowed: 3, Message: "wrong code"}, "unproven", "allowed"},
		{event.Listening{Code: "123456", Port: 1}, "listening", "addresses"},
		{event.Accepted{By: "flag"}, "accepted", "by"},
		{event.NewDone(sum, "sender", true), "done", "verdict"},
		{event.Error{Kind: "usage", ExitCode: 2, Message: "x"}, "error", "exit_code"},
		{event.Peer{Name: "laptop"}, "peer", "fingerprint"},
		{event.Refused{Kind: "not_paired", Reason: "pin_mismatch"}, "refused", "dropped"},
	}
	for _, tt := range tests {
		b, err := event.Marshal(tt.ev)
		if err != nil {
			t.Fatalf("%T: %v", tt.ev, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m["event"] != tt.event {
			t.Errorf("%s: event field %v, want %q", b, m["event"], tt.event)
		}
		if _, ok := m[tt.field]; !ok {
			t.Errorf("%s: no %q field", b, tt.field)
		}
	}
}

func TestDoneEventDiag(t *testing.T) {
	var split diag.Split
	split[diag.DiskWrite] = diag.StageTotal{Time: time.Second}
	d := event.NewDone(event.Summary{Local: split, Wall: 4 * time.Second}, "receiver", true)
	if d.Local == nil || d.Remote != nil || d.Verdict != "" {
		t.Fatalf("receiver done event: %+v", d)
	}
	if got := d.Local.Stages[3]; got.Stage != "disk write" || got.Busy != 0.25 {
		t.Errorf("disk write stage: %+v", got)
	}
	if d.Local.CPU != nil {
		t.Errorf("CPU figures from an end that measured none: %+v", d.Local.CPU)
	}
	d = event.NewDone(event.Summary{Local: split, Wall: 4 * time.Second, LocalCPU: diag.CPU{Used: 3 * time.Second, Waited: time.Second, Cores: 2}}, "receiver", true)
	if c := d.Local.CPU; c == nil || *c != (event.CPU{Busy: 1, CoresUsed: 0.75, CoresWaiting: 0.25, Cores: 2}) {
		t.Errorf("receiver's CPU: %+v", c)
	}
	if want := "; CPU busy 100% of the time: 0.8 of 2 cores in use, 0.2 more waiting for a core"; !strings.HasSuffix(d.Local.Line, want) {
		t.Errorf("line %q does not end %q", d.Local.Line, want)
	}
	if d := event.NewDone(event.Summary{}, "sender", false); d.Local != nil || d.Remote != nil {
		t.Errorf("no --diag, yet splits: %+v", d)
	}
}
