package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/ferry-project/ferry/benches"
)

// The report goes to stdout as Markdown as it is made, and is kept (the
// Markdown, and everything in it as JSON) for benches/results/.

var (
	markdown bytes.Buffer
	out      io.Writer = io.MultiWriter(os.Stdout, &markdown)
)

func say(format string, a ...any) { fmt.Fprintf(out, format, a...) }

// progress tells the person waiting what is running; it is not part of
// the report.
func progress(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "ferrybench: "+format+"\n", a...)
}

// report is the JSON file.
type report struct {
	Date      string         `json:"date"`
	Commit    string         `json:"commit"`
	Dirty     bool           `json:"dirty"`
	Mode      string         `json:"mode"`
	Waited    string         `json:"waited_for_load,omitempty"`
	Options   map[string]any `json:"options"`
	Machine   machine        `json:"machine"`
	Ferry     *binInfo       `json:"ferry,omitempty"`
	Croc      *binInfo       `json:"croc,omitempty"`
	Figures   []*figureJSON  `json:"figures"`
	Seconds   float64        `json:"seconds"`
	LoadAfter [3]float64     `json:"load_after"`
}

// binInfo describes a program the harness ran.
type binInfo struct {
	Path      string `json:"path"`
	Version   string `json:"version,omitempty"`
	GoVersion string `json:"go_version,omitempty"`
	Settings  string `json:"build_settings,omitempty"`
}

type figureJSON struct {
	Key     string       `json:"key"`
	Title   string       `json:"title"`
	Load    [3]float64   `json:"load_at_start"`
	Seconds float64      `json:"seconds"`
	Skipped string       `json:"skipped,omitempty"`
	Rows    []*rowJSON   `json:"rows,omitempty"`
	Tables  []*tableJSON `json:"tables,omitempty"`
	Notes   []string     `json:"notes,omitempty"`
}

type tableJSON struct {
	Head   string        `json:"head"`
	Series []*seriesJSON `json:"series"`
}

// seriesJSON is a benches.Series; a failed run is null.
type seriesJSON struct {
	Name   string     `json:"name"`
	Values []*float64 `json:"values"`
	Median *float64   `json:"median"`
	Min    *float64   `json:"min"`
	Max    *float64   `json:"max"`
	Failed int        `json:"failed"`
	Errors []string   `json:"errors,omitempty"`
}

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func seriesOf(s *benches.Series) *seriesJSON {
	lo, hi := s.Range()
	j := &seriesJSON{Name: s.Name, Median: num(s.Median()), Min: num(lo), Max: num(hi), Failed: s.Failed(), Errors: s.Errors}
	for _, v := range s.Values {
		j.Values = append(j.Values, num(v))
	}
	return j
}

var (
	rep     = &report{}
	current *figureJSON // the figure being run
)

// printTable prints series as a Markdown table and records it in the
// current figure.
func printTable(head, format string, rows ...*benches.Series) {
	say("%s", benches.Table(head, format, rows...))
	if current == nil {
		return
	}
	t := &tableJSON{Head: head}
	for _, s := range rows {
		t.Series = append(t.Series, seriesOf(s))
	}
	current.Tables = append(current.Tables, t)
}

// skip reports a figure or a row that could not run, and why.
func skip(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	say("Skipped: %s.\n", msg)
	progress("skipped: %s", msg)
	if current != nil {
		if current.Skipped != "" {
			current.Skipped += "; "
		}
		current.Skipped += msg
	}
}

// save writes the JSON and the Markdown to dir as name.json and name.md.
func save(dir, name string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the results: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("making %s: %w", dir, err)
	}
	base := filepath.Join(dir, name)
	if err := os.WriteFile(base+".json", append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the results: %w", err)
	}
	if err := os.WriteFile(base+".md", markdown.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the results: %w", err)
	}
	progress("results in %s.json and %s.md", base, base)
	return nil
}

// cell formats a median with its range: "1.23 (1.10–1.40)".
func cell(format string, s *benches.Series) string {
	if len(s.Values) == 0 {
		return "—"
	}
	m := s.Median()
	if math.IsNaN(m) {
		return "FAIL"
	}
	lo, hi := s.Range()
	if lo == hi {
		return fmt.Sprintf(format, m)
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", m, lo, hi)
}

// mdEscape keeps a value from breaking a Markdown table.
func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
