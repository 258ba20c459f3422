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
