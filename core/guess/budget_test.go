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
	err    error // given to Update's f once, as a damaged record would be
	saves  int
	failOn bool // writes fail
}

func (m *memStore) Update(f func(Record, error) Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, err := m.rec, m.err
	if err != nil {
		rec = Record{}
	}
	next := f(rec, err)
	if m.failOn {
		return errors.New("disk on fire")
	}
	m.rec, m.err = next, nil
	m.saves++
	return nil
}

func (m *memStore) load() Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rec
}

// The budget's schedule, on a clock of its own: six at once, then 0.5 s,
// 1 s, 2 s ... after the last wrong code, and a stop at twelve that no
// time lifts, only a person's act; the act lifts the stop and nothing
// more: the next block has six at once again, then waits from 16 s, and
// stops at 24, with codes two digits longer from each stop on. Typos
// spread over days add up too.
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
	block := func(first int, wait time.Duration) {
		t.Helper()
		for i := range Free {
			guess(first+i, true)
		}
		for p := Free; p < StopAt; p++ {
			w := wait << (p - Free)
			clock.Add(w - time.Millisecond)
			guess(first+p, false)
			clock.Add(time.Millisecond)
			guess(first+p, true)
		}
	}
	if b.Digits() != 6 {
		t.Fatalf("a fresh budget's codes have %d digits", b.Digits())
	}
	block(1, Wait)
	clock.Add(FallBack - time.Minute)
	if guess(StopAt+1, false); !b.Stopped() || b.Wrong() != StopAt || b.Digits() != 8 {
		t.Fatalf("89 days on: stopped %v, %d wrong, %d digits; want stopped at %d, 8 digits", b.Stopped(), b.Wrong(), b.Digits(), StopAt)
	}
	b.Reset()
	if b.Stopped() || b.Wrong() != StopAt {
		t.Fatalf("a person's act: stopped %v, %d wrong; want the stop lifted and the count kept", b.Stopped(), b.Wrong())
	}
	block(StopAt+1, LongWait)
	if !b.Stopped() || b.Digits() != 10 {
		t.Fatalf("after 24: stopped %v, %d digits", b.Stopped(), b.Digits())
	}
	b.Reset()
	block(2*StopAt+1, LongWait)
	if !b.Stopped() || b.Digits() != MaxDigits || b.Wrong() != 3*StopAt {
		t.Fatalf("after 36: stopped %v, %d digits, %d wrong", b.Stopped(), b.Digits(), b.Wrong())
	}
	// A right code is checked and not counted.
	b.Reset()
	if g, _ := b.Guess(func() bool { return true }); !g.Checked || !g.Right || b.Wrong() != 3*StopAt || b.Stopped() {
		t.Fatalf("a right code: %+v, %d wrong after it", g, b.Wrong())
	}
	// A right code that would have been the block's last does not stop.
	b = NewBudget(Config{Now: clock.Now, Store: &memStore{rec: Record{Wrong: StopAt - 1, Last: clock.Now().Add(-time.Hour)}}})
	if g, _ := b.Guess(func() bool { return true }); !g.Right || b.Stopped() || b.Wrong() != StopAt-1 {
		t.Fatalf("a right 12th: %+v, stopped %v, %d wrong", g, b.Stopped(), b.Wrong())
	}
	// Typos spread over days add up: the budget stops at twelve.
	b = NewBudget(Config{Now: clock.Now})
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

// The count falls back to none, and the codes to 6 digits, only after
// FallBack without a wrong code; a stop stays until a person acts.
func TestFallBack(t *testing.T) {
	clock := testkit.NewClock()
	m := &memStore{rec: Record{Wrong: 2*StopAt + 3, Last: clock.Now()}}
	b := NewBudget(Config{Store: m, Now: clock.Now})
	clock.Add(FallBack - time.Second)
	if b.Wrong() != 2*StopAt+3 || b.Digits() != 10 {
		t.Fatalf("a second before the fall back: %d wrong, %d digits", b.Wrong(), b.Digits())
	}
	b.Guess(func() bool { return false })
	clock.Add(FallBack - time.Second)
	if b.Wrong() != 2*StopAt+4 {
		t.Fatalf("a wrong code restarts the wait: %d wrong", b.Wrong())
	}
	clock.Add(time.Second)
	if b.Wrong() != 0 || b.Digits() != 6 || m.load().Wrong != 0 {
		t.Fatalf("after %v without a wrong code: %d wrong, %d digits, the store %+v", FallBack, b.Wrong(), b.Digits(), m.load())
	}
	m.rec = Record{Wrong: StopAt, Last: clock.Now(), Stopped: true}
	clock.Add(2 * FallBack)
	if !b.Stopped() || b.Wrong() != 0 {
		t.Fatalf("a stop after the fall back: stopped %v, %d wrong; want stopped, none", b.Stopped(), b.Wrong())
	}
}

// A store's record is the budget: a count kept from before a restart
// goes on, a start by a person too (it lifts a stop, nothing more); a
// record the store cannot read starts the budget stopped and is written
// back stopped; a wrong code is saved before it is checked, and a right
// one taken back.
func TestBudgetStore(t *testing.T) {
	clock := testkit.NewClock()
	m := &memStore{rec: Record{Wrong: 5, Last: clock.Now()}}
	b := NewBudget(Config{Store: m, Now: clock.Now})
	if b.Wrong() != 5 || b.Stopped() {
		t.Fatalf("kept count: %d wrong, stopped %v", b.Wrong(), b.Stopped())
	}
	var during Record
	b.Guess(func() bool { during = m.load(); return false })
	if during.Wrong != 6 || m.rec.Wrong != 6 {
		t.Fatalf("while checked the store held %+v, after %+v: want the wrong code saved before it is checked", during, m.rec)
	}
	clock.Add(time.Second)
	b.Guess(func() bool { during = m.load(); return true })
	if during.Wrong != 7 || m.rec.Wrong != 6 {
		t.Fatalf("a right code: %+v while checked, %+v after; want 7 then 6", during, m.rec)
	}
	// A person's start keeps the count (it refilled it before issue 32)
	// and lifts a stop.
	m.rec.Stopped = true
	if b := NewBudget(Config{Store: m, ByPerson: true, Now: clock.Now}); b.Wrong() != 6 || b.Stopped() || m.rec.Wrong != 6 || m.rec.Stopped {
		t.Fatalf("a person's start left %+v", m.rec)
	}
	// A start that no person made keeps a stop.
	m.rec.Stopped = true
	if !NewBudget(Config{Store: m, Now: clock.Now}).Stopped() {
		t.Fatal("a start at login lifted the stop")
	}

	var warned []error
	warn := func(err error) { warned = append(warned, err) }
	m.err = errors.New("damaged")
	b = NewBudget(Config{Store: m, Warn: warn})
	if !b.Stopped() || !m.rec.Stopped || m.err != nil || len(warned) != 1 || !strings.Contains(warned[0].Error(), "damaged") {
		t.Fatalf("a damaged record: stopped %v, saved %+v, warned %v", b.Stopped(), m.rec, warned)
	}
	m.err, warned = errors.New("damaged"), nil
	if b = NewBudget(Config{Store: m, Warn: warn, ByPerson: true}); b.Stopped() || len(warned) != 1 {
		t.Fatalf("a damaged record opened by a person: stopped %v, warned %v", b.Stopped(), warned)
	}
	// A write that fails is told, and the count goes on in memory.
	m.failOn, warned = true, nil
	if g, err := b.Guess(func() bool { return false }); !g.Checked || err == nil || g.Wrong != 1 {
		t.Fatalf("a failed write: %+v, %v", g, err)
	}
}
