package guess

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
)

// memStore is a Store in memory, counting its writes. The file
// store (File) has tests of its own with real files.
type memStore struct {
	mu     sync.Mutex
	rec    Record
	err    error // returned by Load
	saves  int
	failOn bool // Save fails
}

func (m *memStore) Load() (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rec, m.err
}

func (m *memStore) Save(r Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failOn {
		return errors.New("disk on fire")
	}
	m.rec, m.err = r, nil
	m.saves++
	return nil
}

// The budget's schedule, on a clock of its own: six at once, then 0.5 s,
// 1 s, 2 s ... after the last wrong code, and a stop at twelve that only
// a reset lifts, however long the clock runs. Wrong codes never expire:
// typos spread over days add up to the stop too.
func TestGuessBudgetSchedule(t *testing.T) {
	clock := testkit.NewClock()
	b := NewBudget(Config{Now: clock.Now})
	wrong := func() bool { return false }
	guess := func(n int, want bool) {
		t.Helper()
		g, err := b.Guess(wrong)
		if err != nil || g.Checked != want {
			t.Fatalf("wrong code %d at %v: checked %v (%v), want %v", n, clock.Now(), g.Checked, err, want)
		}
	}
	for i := range Free {
		guess(i+1, true)
	}
	for n := Free; n < StopAt; n++ {
		wait := Wait << (n - Free)
		clock.Add(wait - time.Millisecond)
		guess(n+1, false)
		clock.Add(time.Millisecond)
		guess(n+1, true)
	}
	clock.Add(365 * 24 * time.Hour)
	if guess(StopAt+1, false); !b.Stopped() || b.Wrong() != StopAt {
		t.Fatalf("after a year: stopped %v, %d wrong; want stopped at %d", b.Stopped(), b.Wrong(), StopAt)
	}
	b.Reset()
	guess(1, true)
	// A right code is checked and not counted.
	if g, _ := b.Guess(func() bool { return true }); !g.Checked || !g.Right || b.Wrong() != 1 {
		t.Fatalf("a right code: %+v, %d wrong after it", g, b.Wrong())
	}
	// Typos spread over days add up: the budget stops at twelve.
	b.Reset()
	for day := range 30 {
		clock.Add(25 * time.Hour)
		if g, _ := b.Guess(wrong); g.Checked != (day < StopAt) {
			t.Fatalf("day %d: a typo checked %v", day, g.Checked)
		}
	}
	if !b.Stopped() || b.Wrong() != StopAt {
		t.Fatalf("thirty days of a typo each: stopped %v, %d wrong", b.Stopped(), b.Wrong())
	}
}

// A store's record is the budget: a count kept from before a restart
// goes on; a budget opened by a person starts over; a record the store
// cannot read starts the budget stopped and is written back stopped; a
// wrong code is saved before it is checked, and a right one taken back.
func TestBudgetStore(t *testing.T) {
	clock := testkit.NewClock()
	m := &memStore{rec: Record{Wrong: 5, Last: clock.Now()}}
	b := NewBudget(Config{Store: m, Now: clock.Now})
	if b.Wrong() != 5 || b.Stopped() {
		t.Fatalf("kept count: %d wrong, stopped %v", b.Wrong(), b.Stopped())
	}
	var during Record
	b.Guess(func() bool { during, _ = m.Load(); return false })
	if during.Wrong != 6 || m.rec.Wrong != 6 {
		t.Fatalf("while checked the store held %+v, after %+v: want the wrong code saved before it is checked", during, m.rec)
	}
	clock.Add(time.Second)
	b.Guess(func() bool { during, _ = m.Load(); return true })
	if during.Wrong != 7 || m.rec.Wrong != 6 {
		t.Fatalf("a right code: %+v while checked, %+v after; want 7 then 6", during, m.rec)
	}
	if NewBudget(Config{Store: m, ByPerson: true}).Wrong() != 0 || m.rec != (Record{}) {
		t.Fatalf("a person's start left %+v", m.rec)
	}
	// A count at the stop, however it was written, is stopped.
	m.rec = Record{Wrong: 40, Last: clock.Now()}
	if !NewBudget(Config{Store: m}).Stopped() {
		t.Fatal("a kept count past the stop is not stopped")
	}

	var warned []error
	warn := func(err error) { warned = append(warned, err) }
	m.err = errors.New("damaged")
	b = NewBudget(Config{Store: m, Warn: warn})
	if !b.Stopped() || !m.rec.Stopped || m.err != nil || len(warned) != 1 || !errors.Is(warned[0], m.err) && !strings.Contains(warned[0].Error(), "damaged") {
		t.Fatalf("a damaged record: stopped %v, saved %+v, warned %v", b.Stopped(), m.rec, warned)
	}
	m.err, warned = errors.New("damaged"), nil
	if b = NewBudget(Config{Store: m, Warn: warn, ByPerson: true}); b.Stopped() || len(warned) != 1 {
		t.Fatalf("a damaged record opened by a person: stopped %v, warned %v", b.Stopped(), warned)
	}
	// A write that fails is told, and the count goes on in memory.
	m.failOn, warned = true, nil
	if g, err := b.Guess(func() bool { return false }); !g.Checked || err == nil || b.Wrong() != 1 {
		t.Fatalf("a failed write: %+v, %v, %d wrong", g, err, b.Wrong())
	}
}
