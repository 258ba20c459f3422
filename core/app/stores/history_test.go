//go:build !js

package stores

import (
	"reflect"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
)

// A record added as the schema's History reads back the same.
func TestHistoryStoreDoor(t *testing.T) {
	h, err := OpenHistory(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := event.History{At: "2026-12-03T10:00:00Z", Direction: HistorySent, PeerName: "desk", PeerFingerprint: "ABCD-EFGH-IJKL-MNOP",
		Auth: HistoryByCode, Files: 2, Bytes: 10, Names: []string{"a", "b"}, Folder: "/src", Paths: []string{"/src/a", "/src/b"},
		Outcome: HistoryFailed, ErrorKind: "wrong_code", Error: "wrong code", DurationMS: 1500}
	if _, err := h.Add(rec); err != nil {
		t.Fatal(err)
	}
	recs, aside, err := h.List()
	if err != nil || aside != nil || len(recs) != 1 || !reflect.DeepEqual(recs[0], rec) {
		t.Fatalf("List = %+v %v %v, want %+v", recs, aside, err, rec)
	}
	if got := recs[0].Time(); !got.Equal(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("Time() = %v", got)
	}
	if n, _, err := h.Clear(); err != nil || n != 1 {
		t.Errorf("Clear = %d, %v", n, err)
	}
	if outcome, kind := HistoryOutcome(secure.ErrWrongCode); outcome != HistoryFailed || kind != "wrong_code" {
		t.Errorf("HistoryOutcome(secure.ErrWrongCode) = %s %s", outcome, kind)
	}
}
