package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
)

// TestOfferEventListsAtMost checks the offer event's cap at the boundary:
// every entry up to event.MaxOfferEntries, the first event.MaxOfferEntries beyond,
// and the totals saying so.
func TestOfferEventListsAtMost(t *testing.T) {
	for _, n := range []int{0, 1, event.MaxOfferEntries - 1, event.MaxOfferEntries, event.MaxOfferEntries + 1, 100_000} {
		o := event.Offer{Entries: make([]event.Entry, n)}
		for i := range o.Entries {
			o.Entries[i] = event.Entry{Path: fmt.Sprintf("f%d", i), Kind: event.KindFile, Size: 1}
		}
		b, err := event.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Entries       []event.Entry `json:"entries"`
			EntriesTotal  *int          `json:"entries_total"`
			EntriesListed *int          `json:"entries_listed"`
		}
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatal(err)
		}
		want := min(n, event.MaxOfferEntries)
		if ev.EntriesTotal == nil || *ev.EntriesTotal != n || ev.EntriesListed == nil || *ev.EntriesListed != want || len(ev.Entries) != want {
			t.Errorf("%d entries: total %v, listed %v, %d in the list; want %d, %d, %d", n, ev.EntriesTotal, ev.EntriesListed, len(ev.Entries), n, want, want)
			continue
		}
		if ev.Entries == nil {
			t.Errorf("%d entries: the list is null, want []", n)
		}
		if want > 0 && ev.Entries[want-1].Path != fmt.Sprintf("f%d", want-1) {
			t.Errorf("%d entries: the list does not keep the offer's order: last %q", n, ev.Entries[want-1].Path)
		}
	}
}
