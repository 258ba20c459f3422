//go:build !js

package receive

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/guess"
)

// A device where 12 wrong codes were tried shows 8-digit codes, and one
// where 24 were, 10-digit ones; the receiver says why once (CodeLonger),
// a sender who types the longer code gets through, and the code that
// replaces the used one is as long. A code fixed by a person stays as it
// is, and nothing is said.
func TestCodeGrowsLonger(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		wrong, digits int
		fixed         string
	}{{0, 6, ""}, {11, 6, ""}, {12, 8, ""}, {23, 8, ""}, {24, 10, ""}, {60, 10, ""}, {12, 6, "424242"}} {
		path := filepath.Join(t.TempDir(), "guesses.json")
		if err := guess.OpenFile(path).Save(guess.Record{Wrong: tc.wrong, Last: time.Now().Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		b := guess.NewBudget(guess.Config{Store: guess.OpenFile(path)})
		p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, Budget: b, Code: tc.fixed})
		first := p.r.Code()
		if len(first) != tc.digits {
			t.Fatalf("%d wrong codes: the code %q has %d digits, want %d", tc.wrong, first, len(first), tc.digits)
		}
		if _, serr, _, rerr := p.run(ctx, textItem("one")); serr != nil || rerr != nil {
			t.Fatalf("%d wrong codes: send %v, receive %v", tc.wrong, serr, rerr)
		}
		longer := eventsOf[event.CodeLonger](p.rev)
		want := 0
		if tc.digits > guess.BaseDigits {
			want = 1
		}
		if len(longer) != want {
			t.Fatalf("%d wrong codes: CodeLonger %+v, want %d", tc.wrong, longer, want)
		}
		if want == 1 && (longer[0].Digits != tc.digits || longer[0].Wrong != (tc.digits-6)/2*guess.StopAt || longer[0].Days != 90) {
			t.Fatalf("%d wrong codes: %+v", tc.wrong, longer[0])
		}
		if tc.fixed == "" && (len(p.r.Code()) != tc.digits || p.r.Code() == first) {
			t.Fatalf("%d wrong codes: the code after the used %q is %q", tc.wrong, first, p.r.Code())
		}
	}
}

// A person's new code on a device whose count crossed 12 while the
// receiver ran is 8 digits, and the receiver says so.
func TestNewCodeLongerAfterStop(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "guesses.json")
	if err := guess.OpenFile(path).Save(guess.Record{Wrong: 11, Last: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	b := guess.NewBudget(guess.Config{Store: guess.OpenFile(path)})
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, Budget: b})
	if len(p.r.Code()) != 6 {
		t.Fatalf("11 wrong codes: code %q", p.r.Code())
	}
	// Another process spends the twelfth.
	other := guess.NewBudget(guess.Config{Store: guess.OpenFile(path)})
	if g, _ := other.Guess(func() bool { return false }); !g.Spent {
		t.Fatalf("the twelfth: %+v", g)
	}
	code := p.r.NewCode()
	if len(code) != 8 || b.Stopped() {
		t.Fatalf("a person's new code after the stop: %q, stopped %v", code, b.Stopped())
	}
	if l := eventsOf[event.CodeLonger](p.rev); len(l) != 1 || l[0].Digits != 8 {
		t.Fatalf("CodeLonger %+v", l)
	}
	// Serve reads the count as it starts, on its own goroutine: the
	// folder is removed only once it has returned (a CI run under load
	// once removed it first, and the read brought it back).
	p.r.Close()
	<-p.served
}
