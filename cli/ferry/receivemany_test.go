package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

func TestParseMaxTransfers(t *testing.T) {
	for _, tc := range []struct {
		arg string
		n   int // 0: a usage error
	}{{"1", 1}, {"2", 2}, {"4", 4}, {"0", 0}, {"5", 0}, {"-1", 0}} {
		o, err := parseReceive([]string{"--max-transfers", tc.arg})
		switch {
		case tc.n == 0 && (err == nil || !strings.Contains(err.Error(), "bad --max-transfers")):
			t.Errorf("--max-transfers %s: %v, want a usage error", tc.arg, err)
		case tc.n != 0 && (err != nil || o.maxTransfers != tc.n):
			t.Errorf("--max-transfers %s: %d, %v", tc.arg, o.maxTransfers, err)
		}
	}
	if o, err := parseReceive(nil); err != nil || o.maxTransfers != 1 {
		t.Errorf("default: %d, %v", o.maxTransfers, err)
	}
}

// Two real senders at once to one real receiver of two: both complete,
// every event of theirs carries its transfer's number (two numbers), and
// their files of the same name end as same.txt and "same (1).txt".
func TestE2EReceiveFromTwo(t *testing.T) {
	dest := t.TempDir()
	recv, addr := startReceiver(t, dest, "515151", "--max-transfers", "2", "--yes", "--keep")
	contents := []string{strings.Repeat("first ", 200000), strings.Repeat("second ", 200000)}
	var wg sync.WaitGroup
	for i, c := range contents {
		src := filepath.Join(t.TempDir(), "same.txt")
		if err := os.WriteFile(src, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, stderr, code := sendRun(t, "--name", []string{"ann", "bob"}[i], "--to", addr, "--code", "515151", src)
			if code != 0 {
				t.Errorf("sender %d exit %d:\n%s", i, code, stderr)
			}
		}()
	}
	wg.Wait()
	recv.Signal(syscall.SIGTERM)
	ids := map[float64][]string{} // transfer: its events
	for ev := range recv.Events {
		id, ok := ev["transfer"].(float64)
		name, _ := ev["event"].(string)
		switch {
		case name == "listening":
		case !ok:
			t.Errorf("event without a transfer number: %v", ev)
		case id != 0:
			ids[id] = append(ids[id], name)
		}
	}
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Errorf("receiver exit %d; stderr:\n%s", c, recv.StderrText())
	}
	if len(ids) != 2 {
		t.Fatalf("transfers %v, want two", ids)
	}
	for id, evs := range ids {
		if evs[0] != "connected" || evs[len(evs)-1] != "done" {
			t.Errorf("transfer %v: events %v", id, evs)
		}
	}
	var got []string
	for _, name := range []string{"same.txt", "same (1).txt"} {
		b, err := os.ReadFile(filepath.Join(dest, name))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	slices.Sort(got)
	if !slices.Equal(got, contents) {
		t.Error("the two files do not hold the two senders' contents")
	}
}

// The question for an offer whose sender claims the name of another in
// progress names both fingerprints; any other question is as before.
func TestSameNameQuestion(t *testing.T) {
	o := event.Offer{PeerName: "ann", PeerFingerprint: "AAAA-1111", SameNameAs: []string{"BBBB-2222"}}
	q := sameNameAs(o)
	for _, want := range []string{"AAAA-1111", "BBBB-2222", `"ann"`, "posing"} {
		if !strings.Contains(q, want) {
			t.Errorf("question addition %q lacks %q", q, want)
		}
	}
	if q := sameNameAs(event.Offer{PeerName: "ann", PeerFingerprint: "AAAA-1111"}); q != "" {
		t.Errorf("question addition without a clash: %q", q)
	}
}
