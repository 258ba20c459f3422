package ui

import (
	"context"
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// receiving is the Receive view's side of the Node's receiver. One
// Receiver (app.Receiver) is kept for as long as the settings stay the
// same: across transfers and the tray's listening again, so that its
// guess budget, the device's one, is never handed out afresh. It is
// listened again only when the settings change while it waits; that
// Receiver takes the same budget from the Node.
//
// The loop goroutine owns the Receiver; the UI goroutine reaches it
// through the values handed to it with do.
type receiving struct {
	again    chan struct{} // wakes the loop to wait for a sender again
	relisten chan struct{} // the settings changed: listen again before the next wait

	// Set on the UI goroutine.
	lis  int           // the receiver now listening, counted from 1
	gen  int           // the waits for a sender, counted from 1
	port int           // its port
	r    *app.Receiver // the receiver, while one listens
	// cancelServe ends the receiver's serving with a cause: errRestart
	// (stopMany), or, one sender at a time, errReceiverCancelled, which
	// cancels that sender's transfer as a person's Cancel did when the
	// receiver served one transfer per wait, and serves again.
	cancelServe context.CancelCauseFunc
	busy        bool // one at a time: a sender is connected, settings wait for its end
	// texts are the last transfer's texts (Result.Texts).
	texts []string
	// The config the receiver listened with: what it answers without
	// asking (every offer, or a trusted device's).
	listened app.ReceiveConfig
	// The offer was accepted without asking: its start and end are
	// desktop notifications (tray.go).
	autoAccepted bool
	// wantReady: Receive more was pressed between two waits.
	wantReady bool
}

func (r *receiving) init() {
	r.again, r.relisten = make(chan struct{}, 1), make(chan struct{}, 1)
}

func (v *receiveView) start() {
	v.u.goroutine(func() { v.loop(v.u.ctx) })
}

// listenAgain shows the code again after a result (the receiver is
// waiting already), or wakes the receive loop after an error.
func (v *receiveView) listenAgain() {
	if v.waiting() && (v.many || !v.busy && len(v.relisten) == 0) { // waiting still
		v.show(v.ready)
		return
	}
	v.wantReady = true // the next wait shows the code (after new settings: its own)
	select {
	case v.again <- struct{}{}:
	default:
	}
}

// settingsChanged restarts a waiting receiver so that it uses the new name,
// folder and policy; a busy one picks them up when its transfer ends.
func (v *receiveView) settingsChanged() {
	v.saveTo.SetText("Saving to " + v.u.settings.downloadDir())
	v.u.cfg.Node.SetName(v.u.settings.deviceName())
	select {
	case v.relisten <- struct{}{}:
	default:
	}
	v.restartIfIdle()
}

// restartIfIdle ends the receiver's wait, when no transfer runs and the
// settings changed, so that the loop listens again with them.
func (v *receiveView) restartIfIdle() {
	if v.waiting() && len(v.relisten) > 0 && !v.busy && len(v.running()) == 0 {
		v.stopMany()
	}
}

// waiting says the receiver waits for senders (and serves them).
func (v *receiveView) waiting() bool { return v.stopMany != nil }

// relistenWanted says, once, whether the settings changed since the
// receiver listened.
func (v *receiveView) relistenWanted() bool {
	select {
	case <-v.relisten:
		return true
	default:
		return false
	}
}

// loop waits for one sender after another until ctx ends. After a
// transfer it waits for the next at once, with the same receiver, while
// the result stays on screen until the person presses Receive more (or
// the next sender connects): the app receives whenever it is open.
func (v *receiveView) loop(ctx context.Context) {
	var rc *app.Receiver
	stop := func() {
		if rc != nil {
			rc.Close()
			rc = nil
		}
	}
	defer stop()
	show := true // the code, in place of what the view shows
	for lis := 0; ctx.Err() == nil; {
		if v.relistenWanted() {
			stop()
		}
		var err error
		if rc == nil {
			lis++
			if rc, err = v.listen(lis); err != nil {
				err = fmt.Errorf("starting the receiver: %w", err)
			}
		}
		restart := false
		if err == nil {
			restart, err = v.serve(ctx, rc, show)
		}
		switch {
		case ctx.Err() != nil:
			return
		case restart:
			stop()
			show = false // as it was: the code if it showed, a result if one did
			continue
		case err == nil:
			show = false
			continue
		}
		stop()
		v.u.do(func() {
			v.busy = false
			v.failText.SetText(explain(err).Advice + "\n\n" + sentence(err.Error()))
			v.show(v.failed)
		})
		select {
		case <-v.again:
			show = true
		case <-ctx.Done():
			return
		}
	}
}

// listen starts receiver lis with the settings as they are now.
func (v *receiveView) listen(lis int) (*app.Receiver, error) {
	cfg, err := v.u.settings.receiveConfig()
	if err != nil {
		return nil, err
	}
	cfg.Listen, cfg.Advertise = v.u.cfg.Listen, v.u.cfg.Advertise
	cfg.OnEvent = func(t *app.Transfer, ev event.Event) {
		switch ev.(type) {
		case event.Done, event.Error:
			return // the loop shows the end, with the result
		}
		v.u.do(func() { v.handle(lis, t, ev) })
	}
	v.u.cfg.Node.SetName(v.u.settings.deviceName())
	rc, err := v.u.cfg.Node.Listen(cfg)
	if err != nil {
		return nil, err
	}
	many := cfg.MaxConcurrent > 1
	name, port, dir := v.u.cfg.Node.Name(), rc.Port(), rc.Dir()
	v.u.do(func() {
		v.lis, v.r, v.port = lis, rc, port
		v.many, v.atOnce = many, cfg.MaxConcurrent
		v.listened = cfg
		v.name.SetText("This device appears to others as “" + name + "”.")
		v.saveTo.SetText("Saving to " + dir)
	})
	return rc, nil
}

// serve serves senders on rc, one at a time or several at once (the
// Node's ReceiveMany, with MaxConcurrent 1 for one), until ctx ends, the
// settings change while no transfer runs (restart), or rc fails. The
// code takes the view when show is set, or when it shows already.
func (v *receiveView) serve(ctx context.Context, rc *app.Receiver, show bool) (restart bool, err error) {
	mctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	code, port, name := rc.Code(), rc.Port(), v.u.cfg.Node.Name()
	// Shown before the wait begins: an event of the wait (CodesStopped,
	// said at once) comes after it.
	v.u.do(func() {
		v.gen++
		v.busy = false
		v.codes.Hide()
		v.stopMany, v.cancelServe = func() { stop(errRestart) }, stop
		if show || v.many || v.wantReady || v.ready.Visible() {
			v.show(v.ready)
		}
		v.wantReady = false
		v.showReady(name, code, port, rc.Dir(), v.u.cfg.Hosts(), v.u.fingerprint())
		v.u.refreshTray()
		v.restartIfIdle() // the settings changed just now
	})
	err = rc.ReceiveMany(mctx)
	v.u.do(func() {
		v.stopMany, v.cancelServe = nil, nil
		v.u.refreshTray()
	})
	switch {
	case ctx.Err() != nil:
		return false, nil
	case errors.Is(context.Cause(mctx), errRestart):
		return true, nil
	case mctx.Err() != nil:
		return false, nil // the one sender's transfer was cancelled
	}
	return false, err
}

// askNewCode is the person's click on New code after the receiver
// stopped taking codes: the Node picks a new code and takes codes
// again; its CodeChanged shows the code. Off the UI goroutine: the
// event is delivered before NewCode returns.
func (v *receiveView) askNewCode() {
	r := v.r
	if r == nil {
		return
	}
	v.newCode.Disable()
	v.u.goroutine(func() { r.NewCode() })
}
