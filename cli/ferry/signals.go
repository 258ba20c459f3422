package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// forceAfter is how long after the first signal a second one forces an
// exit.
const forceAfter = time.Second

// errInterrupted is what errors.Is finds in the cause of a cancel that a
// signal asked for.
var errInterrupted = errors.New("interrupted")

// interrupt is the cancel cause when a signal arrives. Its text is the
// reason the engine sends to the peer, so it says who cancelled and why:
// "cancelled by the sender (interrupt)".
type interrupt struct {
	role string // "sender" or "receiver"
	sig  os.Signal
}

func (i interrupt) Error() string        { return fmt.Sprintf("cancelled by the %s (%v)", i.role, i.sig) }
func (i interrupt) Is(target error) bool { return target == errInterrupted }

// onSignals returns a context that the first signal on sigs cancels with
// an interrupt cause. A second signal means the person does not want to
// wait for a clean cancel: force is called (it exits the process). A
// second signal within forceAfter of the first does not count: wrappers
// such as timeout(1) deliver one signal twice, to the process and to its
// group, and that must not skip the clean cancel. stop ends the watching
// goroutine and waits for it.
func onSignals(parent context.Context, sigs <-chan os.Signal, role string, now func() time.Time, force func()) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var first time.Time
		for {
			select {
			case sig := <-sigs:
				switch {
				case first.IsZero():
					first = now()
					cancel(interrupt{role: role, sig: sig})
				case now().Sub(first) >= forceAfter:
					force()
					return
				}
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			cancel(context.Canceled)
		})
	}
}
