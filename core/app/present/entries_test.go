package present

import (
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
)

func done(kind event.Kind) event.EntryDone {
	return event.EntryDone{Entry: event.Entry{Kind: kind}}
}

func TestFiles(t *testing.T) {
	dir, file, text := done(event.KindDir), done(event.KindFile), done(event.KindText)
	tests := []struct {
		es        []event.EntryDone
		files     int
		onlyTexts bool
	}{
		{nil, 0, false},
		{[]event.EntryDone{dir}, 0, false},
		{[]event.EntryDone{dir, file, file}, 2, false},
		{[]event.EntryDone{text}, 1, true},
		{[]event.EntryDone{text, text}, 2, true},
		{[]event.EntryDone{text, file}, 2, false},
		{[]event.EntryDone{dir, text}, 1, false},
	}
	for i, tt := range tests {
		if got := Files(tt.es); got != tt.files {
			t.Errorf("%d: Files = %d, want %d", i, got, tt.files)
		}
		if got := OnlyTexts(tt.es); got != tt.onlyTexts {
			t.Errorf("%d: OnlyTexts = %v, want %v", i, got, tt.onlyTexts)
		}
	}
}

func TestRecord(t *testing.T) {
	tests := []struct {
		r       event.History
		who     string
		more    int
		hasSize bool
	}{
		{event.History{}, "", 0, false},
		{event.History{PeerAddr: "10.0.0.2:4000", Names: []string{"a"}}, "10.0.0.2:4000", 0, false},
		{event.History{PeerFingerprint: "K7QX", PeerAddr: "x", Names: []string{"a", "b"}, Files: 2}, "K7QX", 1, true},
		{event.History{PeerName: "desk", PeerFingerprint: "K7QX", Names: []string{"a", "b", "c"}, MoreNames: 4, Texts: 1}, "desk", 6, true},
		{event.History{PeerName: "desk", Bytes: 1}, "desk", 0, true},
	}
	for i, tt := range tests {
		if got := Who(tt.r); got != tt.who {
			t.Errorf("%d: Who = %q, want %q", i, got, tt.who)
		}
		if got := MoreNames(tt.r); got != tt.more {
			t.Errorf("%d: MoreNames = %d, want %d", i, got, tt.more)
		}
		if got := HasSize(tt.r); got != tt.hasSize {
			t.Errorf("%d: HasSize = %v, want %v", i, got, tt.hasSize)
		}
	}
}
