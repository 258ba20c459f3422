package errkind

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestAll: All names every kind once, in lower_snake_case, Failure last,
// and New's and Wrap's errors carry theirs however they are wrapped.
func TestAll(t *testing.T) {
	kinds := All()
	seen := map[Kind]bool{}
	for _, k := range kinds {
		if k == "" || seen[k] || strings.ToLower(string(k)) != string(k) || strings.ContainsAny(string(k), " -") {
			t.Errorf("kind %q: empty, repeated, or not lower_snake_case", k)
		}
		seen[k] = true
		if got := Of(fmt.Errorf("x: %w", New(k, "example"))); got != k {
			t.Errorf("New(%q) has kind %q", k, got)
		}
		if got := Of(errors.Join(errors.New("a"), Wrap(k, errors.New("b")))); got != k {
			t.Errorf("Wrap(%q) has kind %q", k, got)
		}
	}
	if kinds[len(kinds)-1] != Failure {
		t.Errorf("All ends with %q, not failure", kinds[len(kinds)-1])
	}
	kinds[0] = "changed"
	if All()[0] != WrongCode {
		t.Error("All returns its own list: a caller changed it")
	}
}

// TestOf: nil has no kind, an error without one is Failure, the
// context's errors are Cancelled and Timeout, and Wrap keeps the text
// and the chain.
func TestOf(t *testing.T) {
	inner := errors.New("inner")
	w := Wrap(Busy, fmt.Errorf("outer: %w", inner))
	for _, tt := range []struct {
		err  error
		want Kind
	}{
		{nil, ""},
		{errors.New("x"), Failure},
		{context.Canceled, Cancelled},
		{fmt.Errorf("waiting: %w", context.DeadlineExceeded), Timeout},
		{w, Busy},
	} {
		if got := Of(tt.err); got != tt.want {
			t.Errorf("Of(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	if w.Error() != "outer: inner" || !errors.Is(w, inner) {
		t.Errorf("Wrap changed the error: %q, Is inner %v", w, errors.Is(w, inner))
	}
	if Wrap(Busy, nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
}

// TestPrecedence: an error that wraps two kinded errors gets the kind
// that comes first in All, however it wraps them.
func TestPrecedence(t *testing.T) {
	kinds := All()
	for i := range kinds {
		for j := i + 1; j < len(kinds); j++ {
			a, b := New(kinds[i], "a"), New(kinds[j], "b")
			for _, err := range []error{
				fmt.Errorf("%w: %w", a, b), fmt.Errorf("%w: %w", b, a),
				errors.Join(a, b), errors.Join(b, a),
				fmt.Errorf("x: %w", fmt.Errorf("%w", errors.Join(b, fmt.Errorf("y: %w", a)))),
			} {
				if got := Of(err); got != kinds[i] {
					t.Fatalf("Of(%v) = %q, want %q", err, got, kinds[i])
				}
			}
		}
	}
}

// TestWords: every kind has its words, in the one form front ends build
// on (lowercase at the start but for Ferry's name, no period at the
// end), and they name no flag, button or command: those are a front
// end's. WordsOf of a kind it does not know gives Failure's.
func TestWords(t *testing.T) {
	for _, k := range All() {
		w, ok := words[k]
		if !ok || w.Message == "" || w.Hint == "" {
			t.Errorf("kind %q has no words: %+v", k, w)
			continue
		}
		if k != Failure && w.Message == words[Failure].Message {
			t.Errorf("kind %q is worded as a general failure", k)
		}
		for _, s := range []string{w.Message, w.Hint} {
			if first := s[:1]; first != strings.ToLower(first) && !strings.HasPrefix(s, "Ferry ") {
				t.Errorf("kind %q: %q starts with a capital", k, s)
			}
			if strings.HasSuffix(s, ".") || strings.TrimSpace(s) != s {
				t.Errorf("kind %q: %q ends with a period or a space", k, s)
			}
			// "ferry " is the command; Ferry, the name, may be said.
			for _, front := range []string{"--", "'ferry", "ferry ", "Press ", "press ", "click", "Click", "tick", "button", "scan", "Scan"} {
				if strings.Contains(s, front) {
					t.Errorf("kind %q: %q names a front end's affordance (%q)", k, s, front)
				}
			}
		}
	}
	for k := range words {
		if _, ok := rank[k]; !ok {
			t.Errorf("words for %q, which is not a kind", k)
		}
	}
	if WordsOf("from_the_future") != words[Failure] {
		t.Error("an unknown kind has words of its own")
	}
}
