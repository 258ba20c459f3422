package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
)

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
// wait for a clean cancel: force is called (it exits the process). stop
// ends the watching goroutine and waits for it.
func onSignals(parent context.Context, sigs <-chan os.Signal, role string, force func()) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		first := true
		for {
			select {
			case sig := <-sigs:
				if !first {
					force()
					return
				}
				first = false
				cancel(interrupt{role: role, sig: sig})
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
