package ui

// This file holds how the Receive view shows a receiver that takes
// several senders at once (the setting "Receive from up to N devices at
// once"): the same receiver and serve as one sender's (receiving.go),
// shown otherwise. The code stays on screen, and each sender that gets
// through is a card under it, with its own question, progress, Cancel
// and result. A finished card stays until the person dismisses it.

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// incoming is the Receive view's part for several senders at once. Its
// fields are the UI goroutine's.
type incoming struct {
	many     bool               // the receiver listens for several senders at once
	atOnce   int                // how many: its MaxConcurrent
	stopMany context.CancelFunc // ends ReceiveMany to listen again; nil unless it waits
	cards    map[*app.Transfer]*incomingCard
	order    []*incomingCard // as they came; finished ones until dismissed

	readyBox  fyne.CanvasObject // the code's card, centred
	compact   *fyne.Container   // the code in one line, in place of the QR code while cards show
	codeLine  *widget.Label
	waitLine  *widget.Label
	cardBox   *fyne.Container   // the cards, one under the other
	manyPanel fyne.CanvasObject // the cards, scrolled
	manyView  fyne.CanvasObject // the code's card above manyPanel
}

// incomingCard is one sender of several: its question while it is open,
// then its progress panel, which ends in its result.
type incomingCard struct {
	t       *app.Transfer
	root    fyne.CanvasObject
	prog    *progressPanel
	ask     *fyne.Container
	askText *widget.Label
	askFP   *widget.Label
	accept  *widget.Button
	decline *widget.Button
	dismiss *widget.Button // once it ended
	from    *widget.Label  // the sender, over the result
	ended   bool
	auto    bool // the settings accepted its offer: its end is a notification
}

// initIncoming builds the code's one line, shown while cards are; the
// cards go under the code's card once setReadyBox has it.
func (v *receiveView) initIncoming() {
	v.cards = make(map[*app.Transfer]*incomingCard)
	v.codeLine = &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, SizeName: theme.SizeNameSubHeadingText}
	v.waitLine = &widget.Label{Truncation: fyne.TextTruncateEllipsis}
	v.compact = container.NewBorder(nil, nil, container.NewHBox(&widget.Label{Text: "Code"}, v.codeLine), nil, v.waitLine)
	v.compact.Hide()
	v.cardBox = container.NewVBox()
	v.manyPanel = container.NewVScroll(centred(640, v.cardBox))
}

// setReadyBox takes the code's card: the Receive view's ready panel
// shows it alone, or above the cards.
func (v *receiveView) setReadyBox(ready fyne.CanvasObject) {
	v.readyBox = ready
	v.manyView = container.NewBorder(ready, nil, nil, nil, v.manyPanel)
	v.ready = container.NewStack(ready)
}

// layoutCards shows the code's card alone when there are no cards; when
// there are, the card shrinks to the code in one line, and the cards
// scroll under it.
func (v *receiveView) layoutCards() {
	if len(v.order) == 0 {
		v.compact.Hide()
		v.body.Show()
		v.name.Show()
		v.foot.Show()
		v.ready.Objects = []fyne.CanvasObject{v.readyBox}
		v.ready.Refresh()
		return
	}
	v.codeLine.SetText(v.code)
	wait := fmt.Sprintf("Waiting for more: up to %d devices at once", v.atOnce)
	if len(v.running()) >= v.atOnce {
		wait = fmt.Sprintf("%d devices are sending: others are told to wait", v.atOnce)
	}
	v.waitLine.SetText(wait)
	v.body.Hide()
	v.name.Hide()
	v.foot.Hide() // each verified card has its Open folder
	v.compact.Show()
	v.ready.Objects = []fyne.CanvasObject{v.manyView}
	v.ready.Refresh()
}

// running counts the cards whose transfer has not ended.
func (v *receiveView) running() []*incomingCard {
	var out []*incomingCard
	for _, c := range v.order {
		if !c.ended {
			out = append(out, c)
		}
	}
	return out
}

// cardEvent shows an event of transfer t: its first, Connected, makes
// its card.
func (v *receiveView) cardEvent(t *app.Transfer, ev event.Event) {
	c := v.cards[t]
	if c == nil {
		if e, ok := ev.(event.Connected); ok {
			c := v.newCard(t, e)
			v.awaitEnd(t, func(res app.Result, pin pinOffer) { v.cardDone(c, res, pin) })
		}
		return
	}
	switch e := ev.(type) {
	case event.Offer:
		v.cardOffer(c, e)
	case event.Accepted, event.Progress:
		c.ask.Hide()
		c.prog.root.Show()
	}
	c.prog.handle(ev)
}

// newCard shows a sender that got through, named by its pin when it is
// a trusted device.
func (v *receiveView) newCard(t *app.Transfer, e event.Connected) *incomingCard {
	if e.Paired {
		e.PeerName = pinnedLabel(e.PinnedName, e.PeerName)
	}
	c := &incomingCard{t: t, prog: newProgressPanel(false)}
	c.prog.begin("Receiving", "From "+connLine(e), func() {
		c.prog.cancel.Disable()
		c.prog.current.SetText("Cancelling…")
		t.Cancel(errReceiverCancelled)
	})
	c.prog.handle(e)
	// Shorter than the one transfer's panel: the current file and the
	// figures beside Cancel, no rule.
	p := c.prog
	p.running.Objects = []fyne.CanvasObject{p.title, p.peer, p.bar,
		container.NewBorder(nil, nil, nil, container.NewVBox(p.cancel), container.NewVBox(p.current, p.stats))}
	// The result names its sender: several show at once.
	c.from = &widget.Label{SizeName: theme.SizeNameCaptionText, Truncation: fyne.TextTruncateEllipsis}
	p.result.Objects = append([]fyne.CanvasObject{c.from}, p.result.Objects...)
	c.askText = &widget.Label{Wrapping: fyne.TextWrapWord, TextStyle: fyne.TextStyle{Bold: true}}
	c.askFP = &widget.Label{SizeName: theme.SizeNameCaptionText, Truncation: fyne.TextTruncateEllipsis}
	c.decline = widget.NewButtonWithIcon("Decline", theme.CancelIcon(), func() {
		c.decline.Disable()
		c.accept.Disable()
		t.Decline(declinedByPerson)
	})
	c.accept = widget.NewButtonWithIcon("Accept", theme.ConfirmIcon(), func() {
		c.ask.Hide()
		c.prog.root.Show()
		c.prog.current.SetText("Starting…")
		t.Accept()
	})
	c.accept.Importance = widget.HighImportance
	c.ask = container.NewVBox(c.askText,
		container.NewBorder(nil, nil, nil, container.NewHBox(c.decline, c.accept), c.askFP))
	c.ask.Hide()
	c.root = card(container.NewVBox(c.ask, c.prog.root))
	v.cards[t] = c
	v.order = append(v.order, c)
	v.cardBox.Add(c.root)
	// A sender got through: the refusals before it are history.
	v.clearRefusals()
	v.layoutCards()
	v.show(v.ready)
	v.u.ShowReceive()
	v.u.refreshTray()
	return c
}

// cardOffer asks the person about an offer on its card, or says with a
// notification that the settings accepted it.
func (v *receiveView) cardOffer(c *incomingCard, o event.Offer) {
	o, ask := v.offerCame(c.prog, o)
	if !ask {
		c.auto = true
		return
	}
	head, fp := offerLines(o, c.prog.conn.Paired)
	c.askText.SetText(head + sameNameLine(o))
	c.askFP.SetText(fp)
	c.prog.root.Hide()
	c.ask.Show()
}

// sameNameLine is what an offer card adds when its sender claims the
// name of another sender in progress with another key, in core's words.
func sameNameLine(o event.Offer) string {
	if w := o.SameNameWarning(); w != "" {
		return "\n" + sentence(w)
	}
	return ""
}

// cardDone shows the end of a card's transfer in the app's words, with
// the texts received and the box that trusts a sender a code
// authenticated; the card stays until dismissed.
func (v *receiveView) cardDone(c *incomingCard, res app.Result, pin pinOffer) {
	c.ended = true
	delete(v.cards, c.t)
	c.ask.Hide()
	c.prog.root.Show()
	c.from.SetText("From " + c.prog.peer.Text)
	c.dismiss = widget.NewButtonWithIcon("Dismiss", theme.CancelIcon(), func() { v.dismissCard(c) })
	v.ended(c.prog, res, pin, c.dismiss, c.auto)
	v.layoutCards()
	v.restartIfIdle() // new settings wait for the last transfer to end
}

// dismissCard takes a finished card away.
func (v *receiveView) dismissCard(c *incomingCard) {
	for i, x := range v.order {
		if x == c {
			v.order = append(v.order[:i], v.order[i+1:]...)
			break
		}
	}
	v.cardBox.Remove(c.root)
	v.layoutCards()
}

// manyStatus is the tray's line while several senders may be received:
// "Receiving from desk", "Receiving from 3 devices", or the code.
func (v *receiveView) manyStatus() string {
	run := v.running()
	switch {
	case len(run) == 1 && run[0].prog.conn.PeerName != "":
		return "Receiving from " + run[0].prog.conn.PeerName
	case len(run) == 1:
		return "Receiving from a device"
	case len(run) > 1:
		return fmt.Sprintf("Receiving from %d devices", len(run))
	case v.waiting() && v.code != "":
		return "Code " + v.code
	}
	return "Not receiving"
}

// whoOf is a sender's name, or "A device" for one without.
func whoOf(name string) string {
	if name == "" {
		return "A device"
	}
	return name
}
