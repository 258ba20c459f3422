package ui

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

var (
	// errRestart ends a waiting receiver so that it starts again with new
	// settings; it never reaches a peer, as nobody is connected.
	errRestart = errors.New("receiver restarting")
	// errReceiverCancelled is the reason the sender is told when the
	// person presses Cancel here.
	errReceiverCancelled = errors.New("the receiver cancelled")
)

// receiveView is the Receive tab. It shows this device's code and QR code
// while the receiver waits (readyPanel), the offer dialog, the progress,
// and the result. The receiver itself is the Node's (receiving.go).
type receiveView struct {
	u    *UI
	root *fyne.Container

	readyPanel
	refusalNotice
	codesNotice
	offerDialog

	failed   *fyne.Container
	failText *widget.Label

	prog     *progressPanel
	progCard *fyne.Container

	receiving
	incoming // several senders at once (receive_cards.go)
}

func newReceiveView(u *UI) *receiveView {
	v := &receiveView{u: u}
	v.receiving.init()
	v.readyPanel = newReadyPanel(v.openFolder)
	v.refusalNotice = newRefusalNotice(v.clearRefusals)
	v.codesNotice = newCodesNotice(v.askNewCode)
	v.initIncoming()
	v.setReadyBox(centred(640, card(container.NewVBox(v.readyTitle(), v.name, v.body, v.compact, v.codes, v.notice, v.foot))))

	failTitle := &widget.Label{Text: "Can't receive", TextStyle: fyne.TextStyle{Bold: true}, SizeName: theme.SizeNameSubHeadingText}
	v.failText = &widget.Label{Wrapping: fyne.TextWrapWord}
	retry := widget.NewButtonWithIcon("Try again", theme.ViewRefreshIcon(), v.listenAgain)
	retry.Importance = widget.HighImportance
	v.failed = centred(520, card(container.NewVBox(
		container.NewBorder(nil, nil, widget.NewIcon(theme.NewErrorThemedResource(theme.ErrorIcon())), nil, failTitle),
		v.failText, container.NewHBox(layout.NewSpacer(), retry))))

	v.prog = newProgressPanel(false)
	v.progCard = centred(560, card(v.prog.root))

	v.root = container.NewStack(v.ready, v.failed, v.progCard)
	v.show(v.ready)
	return v
}

func (v *receiveView) show(o fyne.CanvasObject) {
	for _, x := range v.root.Objects {
		if x == o {
			x.Show()
		} else {
			x.Hide()
		}
	}
}

// handle shows one event of receiver lis; events of an older receiver
// are late and dropped. t is the transfer it belongs to (nil between
// transfers).
func (v *receiveView) handle(lis int, t *app.Transfer, ev event.Event) {
	if lis != v.lis {
		return
	}
	if v.many && t != nil {
		v.cardEvent(t, ev)
		return
	}
	switch e := ev.(type) {
	case event.CodeChanged:
		v.setCode(e.Code, v.port, v.u.cfg.Hosts(), v.u.fingerprint())
		v.codeLine.SetText(e.Code)
		v.u.refreshTray()
		if e.Reason == "renewed" {
			v.codes.Hide()
		}
		return
	case event.CodesHeld:
		v.codesHeld(e)
		return
	case event.Notice: // words of core's, shown as they are (CodeLonger)
		v.showNotice(sentence(e.Notice()))
		return
	case event.CodesStopped:
		v.codesStopped(e)
		v.codeText.Color = theme.Color(theme.ColorNameDisabled)
		v.codeText.Refresh()
		return
	case event.Refused:
		v.refused(v.u.refusalText(e))
		return
	case event.Connected:
		v.connected(t, e)
		return
	case event.Offer:
		// Every offer is reported; a person answers only those the
		// receiver did not answer by itself.
		v.offerArrived(t, e)
	case event.Accepted, event.Progress:
		v.closeOffer()
	}
	v.prog.handle(ev)
}

// connected shows a sender that got through: the progress, named by its
// pin when it is a trusted device.
func (v *receiveView) connected(t *app.Transfer, e event.Connected) {
	if e.Paired {
		e.PeerName = pinnedLabel(e.PinnedName, e.PeerName)
	}
	v.busy, v.texts = true, nil
	// Whatever was refused before, a sender got through: the notice is
	// history.
	v.clearRefusals()
	// One sender at a time, its transfer is the receiver's serving: Cancel
	// ends that, whether the offer waits or files flow (a transfer's own
	// Cancel declines an offer that waits), and the receiver serves again.
	stop := v.cancelServe
	v.prog.begin("Receiving", "From "+connLine(e), func() {
		v.prog.cancel.Disable()
		v.prog.current.SetText("Cancelling…")
		v.closeOffer()
		if stop != nil {
			stop(errReceiverCancelled)
		}
	})
	v.show(v.progCard)
	v.u.ShowReceive()
	v.prog.handle(e)
	v.u.refreshTray()
	if t != nil {
		v.awaitEnd(t, v.done)
	}
}

// awaitEnd shows the end of t with show when it comes, the one sender's
// (done) or a card's (cardDone), waiting for it off the UI goroutine.
func (v *receiveView) awaitEnd(t *app.Transfer, show func(app.Result, pinOffer)) {
	v.u.goroutine(func() {
		res := t.Wait()
		pin := v.u.pinOfferFor(res)
		if v.u.ctx.Err() != nil {
			return
		}
		v.u.do(func() { show(res, pin) })
	})
}

// done shows the end of a transfer: what arrived, or why not, with the
// texts received and the box that trusts a sender a code authenticated.
func (v *receiveView) done(res app.Result, pin pinOffer) {
	v.closeOffer()
	v.busy = false
	v.gen++ // the receiver waits for the next sender
	v.texts = res.Texts
	more := widget.NewButtonWithIcon("Receive more", theme.DownloadIcon(), v.listenAgain)
	if res.Err != nil {
		more.Importance = widget.HighImportance
	}
	v.ended(v.prog, res, pin, more, v.autoAccepted)
	v.autoAccepted = false
	v.show(v.progCard)
	if v.u.tray.hidden {
		v.listenAgain() // nobody can press Receive more in the tray
	}
	v.restartIfIdle() // new settings wait for the transfer to end
}

// ended shows the end of a transfer in p, the one sender's or one of
// several's, in the app's words: what arrived, with Open folder, or why
// not, beside back; the texts received; the box that trusts a sender a
// code authenticated; the tray's list; and, for a transfer the settings
// accepted (auto), a notification.
func (v *receiveView) ended(p *progressPanel, res app.Result, pin pinOffer, back *widget.Button, auto bool) {
	if res.Err == nil {
		open := widget.NewButtonWithIcon("Open folder", theme.FolderOpenIcon(), v.openFolder)
		open.Importance = widget.HighImportance
		p.finish(res.Summary, nil, back, open)
	} else {
		p.finish(res.Summary, res.Err, back)
	}
	v.showTextsIn(p, res)
	if res.Err == nil {
		v.u.offerTrust(p, pin)
	}
	v.u.recorded()
	v.u.noteTransfer(false, p.conn, res.Summary, res.Err)
	if auto {
		who := whoOf(p.conn.PeerName)
		if res.Err != nil {
			v.u.notify("Transfer from "+who+" failed", explain(res.Err).Headline)
		} else {
			v.u.notify("Received from "+who, summaryWhat(res.Summary)+", verified, in "+v.u.settings.downloadDir())
		}
	}
}

// textCard shows a received text snippet with a Copy button; copied says
// it was put on the clipboard already (clipboard.go).
func textCard(app fyne.App, text string, copied bool) fyne.CanvasObject {
	body := &widget.Label{Text: text, Wrapping: fyne.TextWrapWord, Selectable: true}
	copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), nil)
	if copied {
		copyBtn.SetText("On the clipboard")
	}
	copyBtn.OnTapped = func() {
		app.Clipboard().SetContent(text)
		copyBtn.SetText("Copied")
	}
	return container.NewBorder(nil, nil, nil, container.NewVBox(copyBtn), body)
}

func (v *receiveView) openFolder() {
	dir := v.u.settings.downloadDir()
	if err := v.u.cfg.OpenFolder(dir); err != nil {
		dialog.ShowError(fmt.Errorf("couldn't open %s: %w", dir, unwrapAll(err)), v.u.cfg.Window)
	}
}

// unwrapAll keeps the innermost cause, which is what a person can act on
// ("executable file not found").
func unwrapAll(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// offerWhat is "3 files" or "2 files and 1 text".
func offerWhat(o event.Offer) string {
	var parts []string
	if o.Files > 0 || o.Texts == 0 {
		parts = append(parts, plural(o.Files, "file", "files"))
	}
	if o.Texts > 0 {
		parts = append(parts, plural(o.Texts, "text", "texts"))
	}
	return strings.Join(parts, " and ")
}
