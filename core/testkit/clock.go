package testkit

import (
	"sync"
	"time"
)

// Clock is a clock a test moves by hand, safe to read from any
// goroutine: a guess budget's BudgetConfig.Now, a Node's Config.Now.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock at a fixed moment (2027-01-15 08:00 UTC), so
// that runs are alike.
func NewClock() *Clock { return &Clock{now: time.Unix(1_800_000_000, 0)} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
