package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/secure"
)

// TestEveryKindWorded: the GUI has a sentence for every kind of core's
// taxonomy, and an error gets the sentence of its kind (errkind.Of), so
// the GUI never says of an error something another front end's kind
// contradicts.
func TestEveryKindWorded(t *testing.T) {
	generic := words[errkind.Failure].headline
	for _, k := range errkind.All() {
		w, ok := words[k]
		if !ok || w.headline == "" || !strings.HasSuffix(w.advice, ".") {
			t.Errorf("kind %q has no headline and advice: %+v", k, w)
			continue
		}
		if k != errkind.Failure && w.headline == generic {
			t.Errorf("kind %q is worded as a general failure", k)
		}
		err := fmt.Errorf("sending: %w", errkind.New(k, "example"))
		if p := explain(err); p.Headline != w.headline {
			t.Errorf("an error of kind %q explained as %q, want %q", k, p.Headline, w.headline)
		}
	}
	for k := range words {
		if !listed(k) {
			t.Errorf("words for %q, which is not a kind", k)
		}
	}
	// The record that failed authentication is damage on the way, not
	// a file whose hash did not match.
	if p := explain(fmt.Errorf("reading: %w", secure.ErrAuth)); p.Headline != words[errkind.Damaged].headline {
		t.Errorf("ErrAuth explained as %q", p.Headline)
	}
}

func listed(k errkind.Kind) bool {
	for _, l := range errkind.All() {
		if l == k {
			return true
		}
	}
	return false
}
