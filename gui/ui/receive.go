package ui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
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
// while a receiver waits, the offer dialog, the progress, and the result.
type receiveView struct {
	u    *UI
	root *fyne.Container

	ready    *fyne.Container
	codeText *canvas.Text
	name     *widget.Label
	addrs    *widget.Label
	fp       *widget.Label
	saveTo   *widget.Label
	qr       *canvas.Image
	link     string

	// The last refused code-less sender, while the receiver goes on
	// waiting: one notice, replaced by the next refusal, never a dialog
	// (anyone on the network can provoke one).
	notice     *fyne.Container
	noticeHead *widget.Label
	noticeText *widget.Label
	refusals   int // refused senders since the notice was last cleared

	// The guess budget's state while the receiver waits: wrong codes
	// hold codes back for a while (CodesHeld), then stop them until the
	// person asks for a new one here (CodesStopped).
	codes     *fyne.Container
	codesHead *widget.Label
	codesText *widget.Label
	newCode   *widget.Button

	failed   *fyne.Container
	failText *widget.Label

	prog     *progressPanel
	progCard *fyne.Container

	offer   *dialog.CustomDialog
	accept  *widget.Button
	decline *widget.Button
	offers  int // offer dialogs shown, ever
	// offerText is what the dialog says, headline then fingerprint line.
	offerText string

	again chan struct{} // wakes the receive loop to listen again

	// Set on the UI goroutine for the receiver now running.
	gen    int
	code   string
	r      Receiver
	cancel context.CancelCauseFunc
	busy   bool // a peer is connected: settings wait for the next receiver
	texts  []string
	// What the receiver decides without asking: everything (Policy), or
	// offers from trusted devices.
	policy     transfer.Policy
	autoPaired bool
	// The offer was accepted without asking: its start and end are
	// desktop notifications (tray.go).
	autoAccepted bool
}

func newReceiveView(u *UI) *receiveView {
	v := &receiveView{u: u, again: make(chan struct{}, 1)}

	v.codeText = canvas.NewText("······", theme.Color(theme.ColorNameForeground))
	v.codeText.TextSize = 60
	v.codeText.TextStyle = fyne.TextStyle{Bold: true}
	v.name = &widget.Label{Truncation: fyne.TextTruncateEllipsis}
	v.addrs = &widget.Label{Selectable: true, SizeName: theme.SizeNameCaptionText}
	v.fp = &widget.Label{SizeName: theme.SizeNameCaptionText}
	v.saveTo = &widget.Label{Truncation: fyne.TextTruncateEllipsis}
	openBtn := widget.NewButtonWithIcon("Open folder", theme.FolderOpenIcon(), v.openFolder)
	v.qr = newQRCanvas()

	title := &widget.Label{Text: "Ready to receive", TextStyle: fyne.TextStyle{Bold: true}, SizeName: theme.SizeNameHeadingText}
	codeBox := container.NewVBox(
		&widget.Label{Text: "Code", TextStyle: fyne.TextStyle{Bold: true}},
		v.codeText,
		&widget.Label{Text: "Type it on the sending device,\nor scan the QR code with a phone.", Wrapping: fyne.TextWrapOff},
		v.addrs,
		v.fp,
	)
	body := container.NewBorder(nil, nil, container.NewPadded(v.qr), nil, container.NewPadded(codeBox))
	foot := container.NewBorder(widget.NewSeparator(), nil, nil, openBtn, v.saveTo)
	v.noticeHead = &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, Importance: widget.WarningImportance}
	v.noticeText = &widget.Label{Wrapping: fyne.TextWrapWord}
	dismiss := widget.NewButtonWithIcon("", theme.CancelIcon(), v.clearRefusals)
	dismiss.Importance = widget.LowImportance
	v.notice = container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil,
		widget.NewIcon(theme.NewWarningThemedResource(theme.WarningIcon())), dismiss,
		container.NewVBox(v.noticeHead, v.noticeText)))
	v.notice.Hide()
	v.codesHead = &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, Importance: widget.WarningImportance}
	v.codesText = &widget.Label{Wrapping: fyne.TextWrapWord}
	v.newCode = widget.NewButtonWithIcon("New code", theme.ViewRefreshIcon(), v.askNewCode)
	v.newCode.Importance = widget.HighImportance
	v.codes = container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil,
		widget.NewIcon(theme.NewWarningThemedResource(theme.WarningIcon())), nil,
		container.NewVBox(v.codesHead, v.codesText, container.NewHBox(layout.NewSpacer(), v.newCode))))
	v.codes.Hide()
	v.ready = centred(640, card(container.NewVBox(title, v.name, body, v.codes, v.notice, foot)))

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

func (v *receiveView) start() {
	v.u.goroutine(func() { v.loop(v.u.ctx) })
}

// listenAgain wakes the receive loop after a result or an error.
func (v *receiveView) listenAgain() {
	select {
	case v.again <- struct{}{}:
	default:
	}
}

// settingsChanged restarts a waiting receiver so that it uses the new name,
// folder and policy; a busy one picks them up when its transfer ends.
func (v *receiveView) settingsChanged() {
	v.saveTo.SetText("Saving to " + v.u.settings.downloadDir())
	if v.busy {
		return
	}
	if v.cancel != nil {
		v.cancel(errRestart)
	}
}

// loop runs one receiver after another until ctx ends. It owns the
// receivers; the UI goroutine reaches them only through the values it was
// handed with do.
func (v *receiveView) loop(ctx context.Context) {
	for gen := 1; ctx.Err() == nil; gen++ {
		restart, err := v.serveOne(ctx, gen)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			v.u.do(func() {
				v.failText.SetText(explain(err).Advice + "\n\n" + sentence(err.Error()))
				v.show(v.failed)
			})
		}
		if restart {
			continue
		}
		select {
		case <-v.again:
		case <-ctx.Done():
			return
		}
	}
}

// serveOne runs one receiver through one transfer. restart is true when it
// ended only to start again with new settings.
func (v *receiveView) serveOne(ctx context.Context, gen int) (restart bool, err error) {
	cfg, err := v.u.settings.receiverConfig()
	if err != nil {
		return false, err
	}
	cfg.Listen = v.u.cfg.Listen
	cfg.Identity = v.u.cfg.Identity
	cfg.Budget = v.u.cfg.Budget // one for the app: a new receiver is no new allowance
	var r Receiver
	pinnedAs := "" // a paired sender's label, from Connected, for its Offered
	tlog := &transferLog{}
	cfg.OnEvent = func(ev transfer.Event) {
		if _, ok := ev.(transfer.Connected); ok {
			tlog.start = time.Now()
		}
		tlog.note(ev)
		v.u.noteCodePeer(ev)
		// A paired sender is named by its pin, not by the name it
		// claims (worded here, as it reads the trust store).
		switch e := ev.(type) {
		case transfer.Connected:
			pinnedAs = ""
			if e.Paired {
				pinnedAs = v.u.pinnedLabel(e.PeerKey, e.PeerName)
				e.PeerName = pinnedAs
				ev = e
			}
		case transfer.Offered:
			if pinnedAs != "" {
				e.Offer.PeerName = pinnedAs
				ev = e
			}
		}
		if e, ok := ev.(transfer.Refused); ok {
			// Worded here, as it reads the trust store.
			text := v.u.refusalText(e)
			v.u.do(func() { v.refused(gen, text) })
			return
		}
		v.u.do(func() { v.handle(gen, r, ev) })
	}
	r, err = v.u.cfg.Engine.NewReceiver(cfg)
	if err != nil {
		return false, fmt.Errorf("starting the receiver: %w", err)
	}
	defer r.Close()
	if adv := v.u.cfg.Advertise; adv != nil {
		stop, err := adv(cfg.Name, v.u.fingerprint(), r.Port())
		if err == nil {
			defer stop()
		}
	}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	code, port := r.Code(), r.Port()
	v.u.do(func() {
		v.gen, v.r, v.cancel, v.busy, v.texts = gen, r, cancel, false, nil
		v.codes.Hide()
		v.policy, v.autoPaired = cfg.Policy, cfg.AutoAcceptPaired
		v.showReady(cfg.Name, code, port, cfg.Dir)
	})
	sum, serveErr := r.Serve(sctx)
	if tlog.conn != nil { // a sender connected: a transfer to record
		v.u.record(v.u.receiveRecord(tlog, cfg.Dir, serveErr))
	}
	if errors.Is(context.Cause(sctx), errRestart) {
		return true, nil
	}
	if ctx.Err() != nil {
		return false, nil
	}
	v.u.do(func() { v.done(gen, sum, serveErr) })
	return false, nil
}

// showReady shows the code, the QR code and where files will go.
func (v *receiveView) showReady(name, code string, port int, dir string) {
	v.name.SetText("This device appears to others as “" + name + "”.")
	v.fp.SetText("Fingerprint " + v.u.fingerprint())
	v.saveTo.SetText("Saving to " + dir)
	hosts := v.u.cfg.Hosts()
	var addrs []string
	for _, h := range hosts {
		addrs = append(addrs, net.JoinHostPort(h, strconv.Itoa(port)))
	}
	if len(addrs) == 0 {
		v.addrs.SetText("No network address: connect to a network to receive")
	} else {
		if len(addrs) > 3 {
			addrs = addrs[:3]
		}
		v.addrs.SetText("Address " + strings.Join(addrs, ", "))
	}
	v.setCode(code, port, hosts)
	v.show(v.ready)
}

// setCode shows a code and the matching QR code.
func (v *receiveView) setCode(code string, port int, hosts []string) {
	v.code = code
	v.codeText.Text = code
	v.codeText.Color = theme.Color(theme.ColorNameForeground)
	v.codeText.Refresh()
	v.u.refreshTray()
	host := "127.0.0.1"
	if len(hosts) > 0 {
		host = hosts[0]
	}
	v.link = web.Link(host, port, code, v.u.fingerprint())
	if img, err := qrImage(v.link); err == nil {
		v.qr.Image = img
		v.qr.Refresh()
	}
}

// handle shows one event of receiver gen; events of an older one are late
// and dropped.
func (v *receiveView) handle(gen int, r Receiver, ev transfer.Event) {
	if gen != v.gen {
		return
	}
	switch e := ev.(type) {
	case transfer.CodeChanged:
		v.setCode(e.Code, r.Port(), v.u.cfg.Hosts())
		if e.Reason == transfer.CodeRenewed {
			v.codes.Hide()
		}
		return
	case transfer.CodesHeld:
		v.codesHead.SetText(fmt.Sprintf("%s tried", plural(e.Wrong, "wrong code", "wrong codes")))
		v.codesText.SetText(fmt.Sprintf("No code is checked before %s: someone who types the right one sooner is asked to wait. If these were not your mistakes, someone nearby may be guessing the code.",
			e.Until.Local().Format("15:04:05")))
		v.newCode.Hide()
		v.codes.Show()
		return
	case transfer.CodesStopped:
		v.codesHead.SetText("Stopped taking codes")
		v.codesText.SetText(fmt.Sprintf("%s were tried since you last asked for a code: someone on the network may be guessing the code. No code works until you ask for a new one; trusted devices can still send.",
			plural(e.Wrong, "wrong code", "wrong codes")))
		v.codeText.Color = theme.Color(theme.ColorNameDisabled)
		v.codeText.Refresh()
		v.newCode.Show()
		v.newCode.Enable()
		v.codes.Show()
		return
	case transfer.Connected:
		v.busy = true
		// Whatever was refused before, a sender got through: the notice
		// is history.
		v.clearRefusals()
		v.prog.begin("Receiving", "From "+connLine(e), func() {
			v.prog.cancel.Disable()
			v.prog.current.SetText("Cancelling…")
			v.closeOffer()
			if v.cancel != nil {
				v.cancel(errReceiverCancelled)
			}
		})
		v.show(v.progCard)
		v.u.ShowReceive()
	case transfer.Offered:
		// The engine reports every offer; it waits for an answer only
		// when it asks.
		v.offerArrived(r, e.Offer)
	case transfer.Accepted:
		v.closeOffer()
	case transfer.Progress:
		v.closeOffer()
	case transfer.TextReceived:
		v.texts = append(v.texts, e.Text)
	}
	v.prog.handle(ev)
	if _, ok := ev.(transfer.Connected); ok {
		v.u.refreshTray()
	}
}

// askNewCode is the person's click on New code after the receiver
// stopped taking codes: the engine picks a new code and takes codes
// again; its CodeChanged shows the code. Off the UI goroutine: the
// engine delivers that event before NewCode returns.
func (v *receiveView) askNewCode() {
	r := v.r
	if r == nil {
		return
	}
	v.newCode.Disable()
	v.u.goroutine(func() { r.NewCode() })
}

// refused shows that receiver gen refused a sender without a code, in
// place of the previous notice. The receiver is still waiting, with the
// same code; the view stays where it is.
func (v *receiveView) refused(gen int, text string) {
	if gen != v.gen {
		return
	}
	v.refusals++
	head := "Refused a sender without a code"
	if v.refusals > 1 {
		head = fmt.Sprintf("Refused %d senders without a code; the latest:", v.refusals)
	}
	v.noticeHead.SetText(head)
	v.noticeText.SetText(text)
	v.notice.Show()
}

func (v *receiveView) clearRefusals() {
	v.refusals = 0
	v.notice.Hide()
}

// showOffer asks whether to take what is coming.
func (v *receiveView) showOffer(r Receiver, o transfer.Offer) {
	v.closeOffer()
	who := o.PeerName
	if who == "" {
		who = "A device"
	}
	var parts []string
	if o.Files > 0 || o.Texts == 0 {
		files := plural(o.Files, "file", "files")
		if o.Dirs > 0 {
			files += " in " + plural(o.Dirs, "folder", "folders")
		}
		parts = append(parts, files)
	}
	if o.Texts > 0 {
		parts = append(parts, plural(o.Texts, "text", "texts"))
	}
	what := strings.Join(parts, " and ")
	paired := v.prog.conn.Paired
	if paired {
		who += ", a trusted device,"
	}
	head := &widget.Label{Text: fmt.Sprintf("%s wants to send you %s (%s).", who, what, formatBytes(o.TotalBytes)), Wrapping: fyne.TextWrapWord, TextStyle: fyne.TextStyle{Bold: true}}
	fpText := "Fingerprint " + o.PeerFingerprint
	if paired {
		fpText = "Trusted device: its key is the one you paired with  ·  " + fpText
	}
	fp := &widget.Label{Text: fpText, SizeName: theme.SizeNameCaptionText}
	var names []string
	for _, e := range o.Entries {
		if e.Kind == transfer.KindDir {
			continue
		}
		names = append(names, e.Path+"  —  "+formatBytes(e.Size))
	}
	list := widget.NewList(func() int { return len(names) },
		func() fyne.CanvasObject { return &widget.Label{Truncation: fyne.TextTruncateEllipsis} },
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(names[i]) })
	listBox := container.NewGridWrap(fyne.NewSize(440, min(float32(len(names)), 6)*40+4), list)
	where := &widget.Label{Text: "They will be saved in " + v.u.settings.downloadDir(), Wrapping: fyne.TextWrapWord}
	content := container.NewVBox(head, fp, listBox, where)

	d := dialog.NewCustomWithoutButtons("Incoming transfer", content, v.u.cfg.Window)
	v.decline = widget.NewButtonWithIcon("Decline", theme.CancelIcon(), func() {
		v.closeOffer()
		r.Decline()
	})
	v.accept = widget.NewButtonWithIcon("Accept", theme.ConfirmIcon(), func() {
		v.closeOffer()
		v.prog.current.SetText("Starting…")
		r.Accept()
	})
	v.accept.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{v.decline, v.accept})
	v.offer = d
	v.offers++
	v.offerText = head.Text + "\n" + fp.Text
	d.Show()
}

func (v *receiveView) closeOffer() {
	if v.offer != nil {
		v.offer.Hide()
		v.offer = nil
	}
}

// done shows the end of receiver gen's transfer.
func (v *receiveView) done(gen int, sum transfer.Summary, err error) {
	if gen != v.gen {
		return
	}
	v.closeOffer()
	v.busy, v.cancel, v.r = false, nil, nil
	more := widget.NewButtonWithIcon("Receive more", theme.DownloadIcon(), v.listenAgain)
	if err == nil {
		open := widget.NewButtonWithIcon("Open folder", theme.FolderOpenIcon(), v.openFolder)
		open.Importance = widget.HighImportance
		v.prog.finish(sum, nil, more, open)
	} else {
		more.Importance = widget.HighImportance
		v.prog.finish(sum, err, more)
	}
	v.showTexts(err)
	if err == nil {
		v.u.offerTrust(v.prog)
	}
	v.show(v.progCard)
	v.transferEnded(sum, err)
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
