package main

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
)

// cli/README.md's event table documents every event of the schema
// (core/app/event) and every field of each, and no event that the schema
// does not have.
func TestREADMEEvents(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		rows[name] = line
	}
	schema := map[string]bool{}
	for _, ev := range event.All() {
		schema[ev.Type()] = true
		row, ok := rows[ev.Type()]
		if !ok {
			t.Errorf("README does not document the %q event", ev.Type())
			continue
		}
		if strings.Contains(row, "the same fields") { // as the row before: trusted
			row = rows["trusted"]
		}
		for _, f := range jsonFields(reflect.TypeOf(ev)) {
			if !strings.Contains(row, "`"+f+"`") {
				t.Errorf("README's %q row does not name its field %q", ev.Type(), f)
			}
		}
	}
	// The table's first rows are the events; other tables (exit codes)
	// start with a digit, not a backquoted word.
	for name := range rows {
		if !schema[name] && isEventName(name) {
			t.Errorf("README documents an event %q that the schema does not have", name)
		}
	}
}

// isEventName tells an event row from the README's other backquoted rows
// (flags start with "-").
func isEventName(s string) bool {
	return s != "" && !strings.HasPrefix(s, "-") && strings.ToLower(s) == s && !strings.ContainsAny(s, " .=/")
}

// jsonFields are the JSON field names of t's struct, embedded ones
// flattened, Go-only ones left out.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && tag == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		out = append(out, strings.Split(tag, ",")[0])
	}
	return out
}
