package mobile

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// call is one Events call as a recorder saw it.
type call struct {
	method string
	id     int64
	arg    string // a short rendering of the arguments
	offer  *Offer
	sum    *Summary
	fail   *Failure
	until  time.Time // OnCodesHeld's
}

// recorder is an Events that keeps every call and lets a test wait for
// one. onCall, if set, runs inside the callback, as an app's handler
// would (to accept an offer, say).
type recorder struct {
	mu     sync.Mutex
	calls  []call
	wake   chan struct{}
	onCall func(call)
}

func newRecorder() *recorder { return &recorder{wake: make(chan struct{}, 1)} }

func (r *recorder) add(c call) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	if r.onCall != nil {
		r.onCall(c)
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// wait returns the first call that match accepts, waiting up to d.
func (r *recorder) wait(t testing.TB, d time.Duration, match func(call) bool) call {
	t.Helper()
	return r.waitFrom(t, d, 0, match)
}

// mark is where the next call will be in the list, for waitFrom.
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// waitFrom is wait for the calls from mark from on.
func (r *recorder) waitFrom(t testing.TB, d time.Duration, from int, match func(call) bool) call {
	t.Helper()
	c, ok := r.find(d, from, match)
	if !ok {
		t.Fatalf("no matching event within %v; got %v", d, r.list())
	}
	return c
}

// find is waitFrom without a test to fail, for the child processes: it
// reports false if no matching call came within d.
func (r *recorder) find(d time.Duration, from int, match func(call) bool) (call, bool) {
	deadline := time.After(d)
	for {
		r.mu.Lock()
		for _, c := range r.calls[min(from, len(r.calls)):] {
			if match(c) {
				r.mu.Unlock()
				return c, true
			}
		}
		r.mu.Unlock()
		select {
		case <-r.wake:
		case <-deadline:
			return call{}, false
		}
	}
}

// ended matches a transfer's OnFinished or OnFailed.
func ended(id int64) func(call) bool {
	return func(c call) bool {
		return c.id == id && (c.method == "finished" || c.method == "failed")
	}
}

// terminal waits for a transfer's OnFinished or OnFailed.
func (r *recorder) terminal(t testing.TB, id int64, d time.Duration) call {
	t.Helper()
	return r.wait(t, d, ended(id))
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.calls))
	for i, c := range r.calls {
		out[i] = fmt.Sprintf("%s(%d, %s)", c.method, c.id, c.arg)
	}
	return out
}

func (r *recorder) count(id int64, method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		if c.id == id && c.method == method {
			n++
		}
	}
	return n
}

func (r *recorder) OnPeers(js string) { r.add(call{method: "peers", arg: js}) }
func (r *recorder) OnConnected(id int64, name, fp, addr string) {
	r.add(call{method: "connected", id: id, arg: name + " " + fp + " " + addr})
}
func (r *recorder) OnOffer(id int64, o *Offer) {
	r.add(call{method: "offer", id: id, arg: fmt.Sprint(o.Files, o.TotalBytes), offer: o})
}
func (r *recorder) OnAccepted(id int64, total int64) {
	r.add(call{method: "accepted", id: id, arg: fmt.Sprint(total)})
}
func (r *recorder) OnProgress(id int64, p *Progress) {
	r.add(call{method: "progress", id: id, arg: fmt.Sprint(p.Done, "/", p.Total)})
}
func (r *recorder) OnEntryDone(id int64, path, outcome, savedAs string) {
	r.add(call{method: "entry", id: id, arg: path + " " + outcome + " " + savedAs})
}
func (r *recorder) OnText(id int64, name, text string) {
	r.add(call{method: "text", id: id, arg: name + " " + text})
}
func (r *recorder) OnCodeChanged(id int64, code string) {
	r.add(call{method: "code", id: id, arg: code})
}
func (r *recorder) OnCodesHeld(id int64, until int64, wrong int) {
	r.add(call{method: "held", id: id, arg: fmt.Sprint(wrong), until: time.UnixMilli(until)})
}
func (r *recorder) OnCodesStopped(id int64, wrong int) {
	r.add(call{method: "stopped", id: id, arg: fmt.Sprint(wrong)})
}
func (r *recorder) OnFinished(id int64, s *Summary) {
	r.add(call{method: "finished", id: id, arg: fmt.Sprint(s.Entries, s.Bytes), sum: s})
}
func (r *recorder) OnFailed(id int64, f *Failure) {
	r.add(call{method: "failed", id: id, arg: f.Kind + ": " + f.Message, fail: f})
}
