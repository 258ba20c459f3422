package benches

import (
	"errors"
	"math"
	"testing"
)

func TestSeriesKeepsFailures(t *testing.T) {
	var a, b Series
	for _, v := range []float64{1, 2, 3, 4} {
		a.Add(v, nil)
	}
	b.Add(2, nil)
	b.Add(0, errors.New("timed out"))
	b.Add(6, nil)
	b.Add(4, nil)
	if m := a.Median(); m != 2.5 {
		t.Fatalf("median %v, want 2.5", m)
	}
	r := Ratio("b/a", &b, &a)
	if r.Failed() != 1 || len(r.Values) != 4 {
		t.Fatalf("ratio kept %d runs with %d failed, want 4 with 1", len(r.Values), r.Failed())
	}
	if m := r.Median(); m != 2 {
		t.Fatalf("ratio median %v, want 2 (of 2, 2, 1)", m)
	}
	if lo, hi := r.Range(); lo != 1 || hi != 2 {
		t.Fatalf("range %v–%v, want 1–2", lo, hi)
	}
	var none Series
	none.Add(0, errors.New("x"))
	if !math.IsNaN(none.Median()) {
		t.Fatal("median of only failures should be NaN")
	}
}

func TestTable(t *testing.T) {
	a := &Series{Name: "a"}
	a.Add(1, nil)
	b := &Series{Name: "b"}
	b.Add(0, errors.New("timed out"))
	want := "| run | median | range | runs |\n|---|---|---|---|\n" + a.Row("%.1f") + "\n" + b.Row("%.1f") + "\n"
	if got := Table("run", "%.1f", a, b); got != want {
		t.Errorf("Table =\n%s\nwant\n%s", got, want)
	}
	if got := Table("ratio", "%.3f"); got != "| ratio | median | range | runs |\n|---|---|---|---|\n" {
		t.Errorf("empty Table = %q", got)
	}
}
