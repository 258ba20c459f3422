package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// "Send to a phone": the Send view serves the browser page (core/web) in
// its receiving mode on a port of its own, shows a QR code and link with a
// fresh code, and waits for a phone's browser to open it. The page is the
// receiver of an ordinary transfer: the desktop sends through the Node on
// the page the Node serves (SendConfig.Page, what `ferry send --to-browser`
// does: core counts every page that could test the twelve-digit code
// without proving it, and stops after three), so progress, cancel, errors and the result are the
// Send view's own, and so is its history record (named by the page's
// device name once it connected). Only the page may connect to that port (core/web's
// ToBrowser refuses Ferry's TCP connections); it closes when the send
// ends.

// phonePanel shows the QR code and the link while the desktop waits for
// the phone.
type phonePanel struct {
	root *fyne.Container
	qr   *canvas.Image
	link *widget.Label
	url  string // the link shown; tests read it
}

func newPhonePanel() *phonePanel {
	p := &phonePanel{qr: newQRCanvas()}
	p.link = &widget.Label{Wrapping: fyne.TextWrapBreak, Selectable: true}
	p.root = container.NewVBox(
		&widget.Label{Text: "Scan this with the phone's camera", TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter},
		container.NewCenter(p.qr),
		&widget.Label{Text: "or open this address in its browser (same Wi-Fi):", Alignment: fyne.TextAlignCenter},
		p.link,
	)
	p.root.Hide()
	return p
}

// show puts link on screen as a QR code and as text.
func (p *phonePanel) show(link string) {
	p.url = link
	p.link.SetText(link)
	if img, err := qrImage(link); err == nil {
		p.qr.Image = img
		p.qr.Refresh()
	}
	p.root.Show()
}

func (p *phonePanel) hide() { p.root.Hide() }

// startPhoneSend sends the chosen files to a phone's browser.
func (v *sendView) startPhoneSend() {
	if len(v.sel.items) == 0 || v.cancel != nil {
		return
	}
	v.u.cfg.Node.SetName(v.u.settings.deviceName())
	// The Node picks the code (twelve digits, as ferry send
	// --to-browser) and counts every page that could test it without
	// proving it (SendConfig.Page): a guesser gets three tries.
	host := "127.0.0.1"
	if hosts := v.u.cfg.Hosts(); len(hosts) > 0 {
		host = hosts[0]
	}
	page, err := v.u.cfg.Node.ServePage(v.u.cfg.Listen, []string{host})
	v.retry = v.startPhoneSend
	bytes, files, _ := v.sel.totals()
	ctx, cancel := context.WithCancelCause(v.u.ctx)
	v.prog.begin(v.prog.transferTitle(files, bytes), "To a phone's browser", v.cancelling(cancel))
	v.showProgress(true)
	if err != nil {
		cancel(nil)
		v.sendDone(event.Summary{}, fmt.Errorf("serving the page for the phone: %w", err), pinOffer{})
		return
	}
	v.cancel = cancel
	v.sentTo = ""
	v.phone.show(page.Event().Links[0])
	v.prog.current.SetText("Waiting for the phone to open the page…")
	// Cancelling while no phone has come closes the page (the send does,
	// on ctx), which ends the wait in Accept.
	cfg := v.sendConfig()
	cfg.Page, cfg.PeerName = page, "a phone's browser" // its history record, as any send's
	cfg.OnEvent = func(_ *app.Transfer, ev event.Event) {
		v.u.do(func() {
			switch e := ev.(type) {
			case event.Connected:
				v.phone.hide()
			case event.Unproven:
				if e.Guessed {
					v.prog.current.SetText(fmt.Sprintf("A page connected without the code (%d of %d tries allowed). Waiting for the phone…", e.Wrong, e.Allowed))
				}
				return
			}
			v.prog.handle(ev)
		})
	}
	v.updateReady()
	t := v.u.cfg.Node.Send(ctx, cfg)
	v.u.goroutine(func() {
		res := t.Wait()
		// A send cut after the phone proved the code leaves the page
		// served for a send again (app.Page.Again); this view sends
		// again with a new page (Retry), so it ends this one.
		page.Close()
		cancel(nil)
		if v.u.ctx.Err() != nil {
			return
		}
		v.u.do(func() {
			v.phone.hide()
			v.sendDone(res.Summary, res.Err, pinOffer{})
		})
	})
}
