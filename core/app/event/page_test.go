package event

import "testing"

// A page request is cut at the list's ends, and empty past them.
func TestPageOf(t *testing.T) {
	for _, c := range []struct{ n, start, count, lo, hi int }{
		{10, 0, 3, 0, 3}, {10, 8, 5, 8, 10}, {10, 10, 1, 10, 10}, {10, 12, 3, 10, 10},
		{10, -2, 3, 0, 3}, {10, 2, 0, 2, 2}, {10, 2, -1, 2, 2}, {0, 0, 5, 0, 0},
	} {
		if lo, hi := PageOf(c.n, c.start, c.count); lo != c.lo || hi != c.hi {
			t.Errorf("PageOf(%d, %d, %d) = %d, %d; want %d, %d", c.n, c.start, c.count, lo, hi, c.lo, c.hi)
		}
	}
}

// An array of events is their Marshal forms in order; none is "[]".
func TestMarshalArray(t *testing.T) {
	b, err := MarshalArray([]HistoryCleared{{Count: 2}, {Count: 0}})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := Marshal(HistoryCleared{Count: 2})
	two, _ := Marshal(HistoryCleared{Count: 0})
	if want := "[" + string(one) + "," + string(two) + "]"; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if b, _ := MarshalArray([]HistoryCleared(nil)); string(b) != "[]" {
		t.Errorf("none: %s", b)
	}
}
