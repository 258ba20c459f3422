package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/errkind"
)

// TestEveryKindWorded: the app shows core's words for every kind of the
// taxonomy, as sentences, and an error gets its kind's (errkind.Of), so
// the app never says of an error something another front end's kind
// contradicts.
func TestEveryKindWorded(t *testing.T) {
	generic := explain(errkind.New(errkind.Failure, "x")).Headline
	for _, k := range errkind.All() {
		w := errkind.WordsOf(k)
		p := explain(fmt.Errorf("sending: %w", errkind.New(k, "example")))
		if p.Headline == "" || p.Headline != sentence(w.Message) || !strings.HasPrefix(p.Advice, sentence(w.Hint)) || !strings.HasSuffix(p.Advice, ".") {
			t.Errorf("kind %q explained as %+v, want core's words %+v", k, p, w)
		}
		if k != errkind.Failure && p.Headline == generic {
			t.Errorf("kind %q is worded as a general failure", k)
		}
	}
	// The record that failed authentication (the engine's ErrAuth, of
	// kind damaged: core/receive/kinds_test.go) is damage on the way,
	// not a file whose hash did not match.
	if p := explain(fmt.Errorf("reading: %w", errkind.New(errkind.Damaged, "record failed authentication"))); p.Headline != sentence(errkind.WordsOf(errkind.Damaged).Message) {
		t.Errorf("ErrAuth explained as %q", p.Headline)
	}
}

// TestAffordancesKnownKinds: the app's own table names only kinds of
// core's taxonomy, each with a sentence.
func TestAffordancesKnownKinds(t *testing.T) {
	for k, a := range affordances {
		if !listed(k) || k == errkind.Failure {
			t.Errorf("affordance for %q, which is not a kind (or is the general failure)", k)
		}
		if a == "" || !strings.HasSuffix(a, ".") || sentence(a) != a {
			t.Errorf("affordance for %q is not a sentence: %q", k, a)
		}
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
