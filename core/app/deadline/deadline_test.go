package deadline_test

import (
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/deadline"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestDeadline(t *testing.T) {
	d := deadline.New()
	if closed(d.Done()) {
		t.Fatal("a deadline never set has passed")
	}
	d.Set(time.Now().Add(-time.Second))
	if !closed(d.Done()) {
		t.Fatal("a deadline in the past has not passed")
	}
	d.Set(time.Time{})
	if closed(d.Done()) {
		t.Fatal("a removed deadline has passed")
	}
	d.Set(time.Now().Add(20 * time.Millisecond))
	ch := d.Done()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("a deadline 20 ms away did not pass in 10 s")
	}
	// Moved later before it passes: the old wait does not end.
	d.Set(time.Now().Add(time.Hour))
	ch = d.Done()
	d.Set(time.Now().Add(time.Hour))
	if closed(ch) || closed(d.Done()) {
		t.Fatal("a deadline an hour away has passed")
	}
}
