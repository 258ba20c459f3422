package ui

import (
	"net"

	"github.com/ferry-project/ferry/core/app/instance"
)

// One app per person (and per config folder): a second `ferry-gui FILE...`
// (a file manager's "Send with Ferry" on a desktop where Ferry is open)
// hands its files to the running app, which selects them and comes to the
// front, and exits. The socket, the claim and the message are
// core/app/instance's; what the app does with a hand-off is here.

// ServeInstance takes hand-offs from other ferry-gui processes on l (from
// instance.Claim) until Close. Each one selects its files (or opens its
// link) and raises the window.
func (u *UI) ServeInstance(l net.Listener) {
	u.goroutine(func() { instance.Serve(u.ctx, l, u.takeHandoff) })
}

// takeHandoff gives m to the UI and reports whether it took it.
func (u *UI) takeHandoff(m instance.Handoff) bool {
	took := make(chan struct{})
	u.do(func() {
		defer close(took)
		switch {
		case m.Link != "":
			u.OpenLink(m.Link)
		case len(m.Files) > 0:
			u.OpenFiles(m.Files)
		}
		u.ShowWindow() // out of the tray, if it hides there
	})
	select {
	case <-took:
		return true
	case <-u.ctx.Done():
		return false
	}
}
