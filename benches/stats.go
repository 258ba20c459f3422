package benches

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Series is one figure's repeated measurements, in the order they were
// taken. A failed run is kept as NaN, so it is counted and printed but
// never moves the median.
type Series struct {
	Name   string
	Values []float64
	Errors []string // one per failed run, for the report
}

// Add records a run's value, or its failure.
func (s *Series) Add(v float64, err error) {
	if err != nil {
		s.Values = append(s.Values, math.NaN())
		s.Errors = append(s.Errors, err.Error())
		return
	}
	s.Values = append(s.Values, v)
}

// ok returns the successful runs, sorted.
func (s *Series) ok() []float64 {
	var v []float64
	for _, x := range s.Values {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	slices.Sort(v)
	return v
}

// Median of the successful runs (NaN if none).
func (s *Series) Median() float64 {
	v := s.ok()
	if len(v) == 0 {
		return math.NaN()
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// Range returns the smallest and largest successful run.
func (s *Series) Range() (lo, hi float64) {
	v := s.ok()
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	return v[0], v[len(v)-1]
}

// Failed counts failed runs.
func (s *Series) Failed() int { return len(s.Values) - len(s.ok()) }

// Ratio pairs b[i]/a[i]: run i of b against run i of a, taken next to it.
// A pair with a failed side is a failed ratio.
func Ratio(name string, b, a *Series) *Series {
	r := &Series{Name: name}
	for i := range min(len(a.Values), len(b.Values)) {
		x, y := b.Values[i], a.Values[i]
		if math.IsNaN(x) || math.IsNaN(y) || y == 0 {
			r.Add(0, fmt.Errorf("run %d failed", i+1))
			continue
		}
		r.Add(x/y, nil)
	}
	return r
}

// Row formats a series as one table row: median, range, every run, with
// the given number format ("%.2f").
func (s *Series) Row(format string) string {
	lo, hi := s.Range()
	runs := make([]string, len(s.Values))
	for i, v := range s.Values {
		if math.IsNaN(v) {
			runs[i] = "FAIL"
		} else {
			runs[i] = fmt.Sprintf(format, v)
		}
	}
	fail := ""
	if n := s.Failed(); n > 0 {
		fail = fmt.Sprintf(" (%d failed)", n)
	}
	return fmt.Sprintf("| %s | "+format+" | "+format+"–"+format+" | %s%s |",
		s.Name, s.Median(), lo, hi, strings.Join(runs, " "), fail)
}

// Table formats series as a Markdown table, one Row each, under a header
// whose first column is head: "| head | median | range | runs |".
func Table(head, format string, rows ...*Series) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | median | range | runs |\n|---|---|---|---|\n", head)
	for _, s := range rows {
		b.WriteString(s.Row(format) + "\n")
	}
	return b.String()
}
