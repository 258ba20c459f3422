// Package deadline is a net.Conn or net.Listener deadline for types that
// wait on channels rather than on the operating system: the page
// server's listener of upgraded WebSockets (core/web) and the page's
// browser WebSocket (gui/page/wasm). It lies under core/app, and imports
// nothing of Ferry's, so that both may use it.
package deadline

import (
	"sync"
	"time"
)

// A Deadline is a point in time that a wait may pass. Its zero value is
// not ready: make one with New.
type Deadline struct {
	mu    sync.Mutex
	timer *time.Timer
	ch    chan struct{}
}

// New returns a Deadline that is not set: Done never closes until Set.
func New() *Deadline { return &Deadline{ch: make(chan struct{})} }

// Done returns a channel closed once the deadline has passed. A later
// Set gives a new channel: take Done again for each wait.
func (d *Deadline) Done() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ch
}

// Set moves the deadline to t; the zero time removes it, and a time
// already past closes Done at once. A deadline that had passed starts
// fresh, as net.Conn's do.
func (d *Deadline) Set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	select {
	case <-d.ch:
		d.ch = make(chan struct{})
	default:
	}
	if t.IsZero() {
		return
	}
	ch := d.ch
	dur := time.Until(t)
	if dur <= 0 {
		close(ch)
		return
	}
	d.timer = time.AfterFunc(dur, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		select {
		case <-ch:
		default:
			close(ch)
		}
	})
}
