package guess

import (
	"math"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
)

// attack is a guesser against one device's budget, on a simulated
// clock: it sends wrong codes as fast as the budget checks them, and
// adds up its odds: for each checked wrong code, 1/10^d, d the digits of
// the codes the device showed then.
type attack struct {
	t       *testing.T
	clock   *testkit.Clock
	store   *memStore
	b       *Budget
	odds    float64
	checked int
}

func newAttack(t *testing.T) *attack {
	a := &attack{t: t, clock: testkit.NewClock(), store: &memStore{}}
	a.start(true)
	return a
}

// start is the receiver starting, by a person (or what a front end
// takes for one: a script typing ferry receive) or not.
func (a *attack) start(byPerson bool) {
	a.b = NewBudget(Config{Store: a.store, ByPerson: byPerson, Now: a.clock.Now})
}

// feed guesses until the budget stops or until end.
func (a *attack) feed(end time.Time) {
	for !a.b.Stopped() && a.clock.Now().Before(end) {
		if at := next(a.b.rec); at.After(a.clock.Now()) {
			if !at.Before(end) {
				a.clock.Add(end.Sub(a.clock.Now()))
				return
			}
			a.clock.Add(at.Sub(a.clock.Now()))
		}
		d := Digits(a.b.rec.Wrong)
		g, _ := a.b.Guess(func() bool { return false })
		if !g.Checked {
			a.t.Fatalf("a guess the schedule allows at %v was held: %+v", a.clock.Now(), g)
		}
		a.odds += math.Pow10(-d)
		a.checked++
	}
}

// wait lets the clock run to end.
func (a *attack) wait(end time.Time) {
	if a.clock.Now().Before(end) {
		a.clock.Add(end.Sub(a.clock.Now()))
	}
}

const (
	day  = 24 * time.Hour
	year = 365 * day
)

// restartLoop: a start counted as a person's the moment the budget
// stops (a wrapper that restarts ferry receive after exit 6), for span.
func restartLoop(a *attack, span time.Duration) {
	end := a.clock.Now().Add(span)
	for a.clock.Now().Before(end) {
		a.feed(end)
		a.start(true)
	}
}

// The arithmetic of SECURITY.md and the package doc, run: whatever
// starts the receiver and however the guesses are paced, the odds over
// a year stay at or under 1e-4, and under 2e-5 for four starts by hand
// each fed wrong codes until the budget stops.
func TestOdds(t *testing.T) {
	four := newAttack(t)
	for range 4 {
		four.feed(four.clock.Now().Add(day))
		four.start(true)
	}
	if four.odds >= 2e-5 || four.checked != 4*StopAt {
		t.Errorf("four starts by hand fed until each stops: %d checked, odds %.4g; want 48 and under 2e-5", four.checked, four.odds)
	}
	t.Logf("four starts by hand: %d checked, odds %.4g", four.checked, four.odds)

	for _, span := range []struct {
		name string
		d    time.Duration
	}{{"30 days", 30 * day}, {"a year", year}} {
		// A daily CLI user: a start by hand each day, fed until it stops.
		daily := newAttack(t)
		for range int(span.d / day) {
			end := daily.clock.Now().Add(day)
			daily.feed(end)
			daily.wait(end)
			daily.start(true)
		}
		// An app left running: started once, at login after that, no
		// person's act.
		app := newAttack(t)
		app.feed(app.clock.Now().Add(span.d))
		// The same app, guessed at eleven at a time, each eleven after
		// the count fell back: it never stops.
		paced := newAttack(t)
		for end := paced.clock.Now().Add(span.d); paced.clock.Now().Before(end); {
			for range StopAt - 1 {
				paced.clock.Add(time.Minute)
				if g, _ := paced.b.Guess(func() bool { return false }); g.Checked {
					paced.odds += 1e-6
					paced.checked++
				}
			}
			paced.wait(paced.clock.Now().Add(FallBack))
		}
		// A restart loop.
		loop := newAttack(t)
		restartLoop(loop, span.d)
		// The worst pacing: twelve at 6 digits, then quiet until the
		// count falls back, again and again; a restart loop in the last
		// window. Each count of windows is tried.
		worst, worstWindows := 0.0, 0
		for windows := 1; time.Duration(windows-1)*(FallBack+time.Hour) < span.d; windows++ {
			a := newAttack(t)
			end := a.clock.Now().Add(span.d)
			for range windows - 1 {
				a.feed(end)
				a.clock.Add(FallBack + time.Hour)
				a.start(true)
			}
			restartLoop(a, end.Sub(a.clock.Now()))
			if a.odds > worst {
				worst, worstWindows = a.odds, windows
			}
		}
		for _, r := range []struct {
			name string
			odds float64
			n    int
		}{{"daily CLI user", daily.odds, daily.checked}, {"app left running", app.odds, app.checked},
			{"app left running, paced under the stop", paced.odds, paced.checked},
			{"restart loop", loop.odds, loop.checked}, {"worst pacing", worst, worstWindows}} {
			t.Logf("%s, %s: odds %.3g (%d)", span.name, r.name, r.odds, r.n)
			if r.odds > 1e-4 {
				t.Errorf("%s, %s: odds %.3g, over 1e-4", span.name, r.name, r.odds)
			}
		}
	}
}
