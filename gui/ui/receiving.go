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
	t    *app.Transfer // waiting or running; nil once it ended
	busy bool          // a sender is connected: settings wait for the next wait
	// texts are the last transfer's texts (Result.Texts).
	texts []string
	// What the receiver decides without asking (the settings it was
	// listened with): every offer, or a trusted device's.
	askFirst, autoTrusted bool
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
	if v.many && v.stopMany != nil { // waiting still, under the cards
		v.show(v.ready)
		return
	}
	if v.t != nil && !v.busy && len(v.relisten) == 0 {
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
	if v.t != nil && !v.busy {
		v.t.Cancel(errRestart)
	}
	if v.stopMany != nil && len(v.running()) == 0 {
		v.stopMany()
	}
}

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
	var (
		rc   *app.Receiver
		many bool // rc takes several senders at once
	)
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
			if rc, many, err = v.listen(lis); err != nil {
				err = fmt.Errorf("starting the receiver: %w", err)
			}
		}
		restart := false
		switch {
		case err == nil && many:
			restart, err = v.receiveMany(ctx, rc)
		case err == nil:
			restart, err = v.receiveOne(ctx, rc, show)
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
			v.t, v.busy = nil, false
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

// listen starts receiver lis with the settings as they are now; many
// says it takes several senders at once.
func (v *receiveView) listen(lis int) (rc *app.Receiver, many bool, err error) {
	cfg, err := v.u.settings.receiveConfig()
	if err != nil {
		return nil, false, err
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
	rc, err = v.u.cfg.Node.Listen(cfg)
	if err != nil {
		return nil, false, err
	}
	many = cfg.MaxConcurrent > 1
	name, port, dir := v.u.cfg.Node.Name(), rc.Port(), rc.Dir()
	v.u.do(func() {
		v.lis, v.r, v.port = lis, rc, port
		v.many, v.atOnce = many, cfg.MaxConcurrent
		v.askFirst, v.autoTrusted = !cfg.AcceptAll, cfg.AcceptTrusted
		v.name.SetText("This device appears to others as “" + name + "”.")
		v.saveTo.SetText("Saving to " + dir)
	})
	return rc, many, nil
}

// receiveOne waits for one sender on rc and shows its transfer to the
// end; the code takes the view when show is set, or when it shows
// already. restart is true when it ended only to start again with new
// settings.
func (v *receiveView) receiveOne(ctx context.Context, rc *app.Receiver, show bool) (restart bool, err error) {
	code, port, name := rc.Code(), rc.Port(), v.u.cfg.Node.Name()
	// Shown before the wait begins: an event of the wait (CodesStopped,
	// said at once) comes after it.
	v.u.do(func() {
		v.gen++
		v.busy = false
		v.codes.Hide()
		if show || v.ready.Visible() {
			v.show(v.ready)
		}
		v.showReady(name, code, port, rc.Dir(), v.u.cfg.Hosts(), v.u.fingerprint())
	})
	t, err := rc.Receive(ctx)
	if err != nil {
		return false, err
	}
	v.u.do(func() {
		v.t = t
		if v.wantReady {
			v.show(v.ready)
			v.wantReady = false
		}
		v.u.refreshTray()
		if len(v.relisten) > 0 && !v.busy { // the settings changed just now
			t.Cancel(errRestart)
		}
	})
	res := t.Wait()
	if errors.Is(context.Cause(t.Context()), errRestart) {
		return true, nil
	}
	if ctx.Err() != nil {
		return false, nil
	}
	if res.Err != nil && len(res.Peer.Key) == 0 {
		// No sender got through: the receiver itself failed (its port,
		// say). Waiting again at once would fail again at once.
		return false, res.Err
	}
	pin := v.u.pinOfferFor(res)
	v.u.do(func() { v.done(res, pin) })
	return false, nil
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
