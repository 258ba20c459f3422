package present

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShown(t *testing.T) {
	long := strings.Repeat("a", 200) + ".txt"
	tests := []struct {
		in        string
		max       int
		keepLines bool
		want      string
	}{
		{"laptop", 0, false, "laptop"},
		{"Ana’s Pixel 8 — café 📱", 0, false, "Ana’s Pixel 8 — café 📱"},
		{"a\x1b[2Jb", 0, false, `a\x1b[2Jb`},
		{"a\nline", 0, false, `a\x0aline`},
		{"a\rb\tc\x00d\x7fe", 0, false, `a\x0db\x09c\x00d\x7fe`},
		{"a\u009b31m", 0, false, "aU+009B31m"},
		{"evil\u202egpj.exe", 0, false, "evilU+202Egpj.exe"},
		{"de\u200bsk\ufeff", 0, false, "deU+200BskU+FEFF"},
		{"a\u2028b\u2029", 0, false, "aU+2028bU+2029"},
		{"a\xffb\xc3", 0, false, `a\xffb\xc3`},
		{"one\ttwo\nthree\x1b\r\n", 0, true, "one\ttwo\nthree\\x1b\\x0d\n"},
		{long, 120, false, strings.Repeat("a", 60) + "…" + strings.Repeat("a", 55) + ".txt"},
		{"a-very-long-file-name-indeed.iso", 10, false, "a-ver….iso"},
		{"short", 10, false, "short"},
	}
	for _, tt := range tests {
		if got := Shown(tt.in, tt.max, tt.keepLines); got != tt.want {
			t.Errorf("Shown(%q, %d, %v) = %q, want %q", tt.in, tt.max, tt.keepLines, got, tt.want)
		}
		if got := Printable(tt.in, tt.keepLines); got != (Shown(tt.in, 0, tt.keepLines) == tt.in) {
			t.Errorf("Printable(%q, %v) = %v, but Shown changes it: %v", tt.in, tt.keepLines, got, !got)
		}
	}
}

// The cap counts printed characters and never cuts an escape in two.
func TestShownCapKeepsEscapesWhole(t *testing.T) {
	got := Shown(strings.Repeat("\x1b", 100), 50, false)
	if n := utf8.RuneCountInString(got); n > 50 {
		t.Errorf("100 ESC capped at 50 print as %d characters", n)
	}
	if rest := strings.ReplaceAll(strings.ReplaceAll(got, `\x1b`, ""), "…", ""); rest != "" {
		t.Errorf("an escape was cut: %q (left %q)", got, rest)
	}
}
