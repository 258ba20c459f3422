package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// declinedByPerson is why a declined offer was declined, in the result
// and the history.
const declinedByPerson = "you said no"

// offerDialog asks the person whether to take what a sender offers.
type offerDialog struct {
	offer   *dialog.CustomDialog
	accept  *widget.Button
	decline *widget.Button
	offers  int // offer dialogs shown, ever
	// offerText is what the dialog says, headline then fingerprint line.
	offerText string
}

// offerCame handles what every offer gets, the one sender's or one of
// several's (whose panel is p): it is named by its pin when paired; when
// the settings accepted it (every offer, or a trusted device's), a
// notification says so, as the files are already on their way to the
// download folder; otherwise the window comes out of the tray to ask. It
// returns the offer as the person sees it, and whether to ask.
func (v *receiveView) offerCame(p *progressPanel, o event.Offer) (event.Offer, bool) {
	if p.conn.Paired {
		o.PeerName = p.conn.PeerName // named by its pin (connected, newCard)
	}
	if !v.listened.Asks(p.conn.Paired) {
		v.u.notify("Receiving from "+whoOf(o.PeerName),
			fmt.Sprintf("%s (%s), into %s", offerWhat(o), formatBytes(o.TotalBytes), v.u.settings.downloadDir()))
		return o, false
	}
	if v.u.tray.hidden {
		v.u.ShowWindow()
	}
	return o, true
}

// offerArrived asks about the one sender's offer in a dialog, unless the
// settings accepted it (offerCame).
func (v *receiveView) offerArrived(t *app.Transfer, o event.Offer) {
	o, ask := v.offerCame(v.prog, o)
	if !ask {
		v.autoAccepted = true
		return
	}
	v.showOffer(t, o)
}

// showOffer asks whether to take what is coming.
func (v *receiveView) showOffer(t *app.Transfer, o event.Offer) {
	v.closeOffer()
	headText, fpText := offerLines(o, v.prog.conn.Paired)
	head := &widget.Label{Text: headText, Wrapping: fyne.TextWrapWord, TextStyle: fyne.TextStyle{Bold: true}}
	fp := &widget.Label{Text: fpText, SizeName: theme.SizeNameCaptionText}
	where := &widget.Label{Text: "They will be saved in " + v.u.settings.downloadDir(), Wrapping: fyne.TextWrapWord}
	content := container.NewVBox(head, fp, offerList(o), where)

	d := dialog.NewCustomWithoutButtons("Incoming transfer", content, v.u.cfg.Window)
	v.decline = widget.NewButtonWithIcon("Decline", theme.CancelIcon(), func() {
		v.closeOffer()
		if t != nil {
			t.Decline(declinedByPerson)
		}
	})
	v.accept = widget.NewButtonWithIcon("Accept", theme.ConfirmIcon(), func() {
		v.closeOffer()
		v.prog.current.SetText("Starting…")
		if t != nil {
			t.Accept()
		}
	})
	v.accept.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{v.decline, v.accept})
	v.offer = d
	v.offers++
	v.offerText = head.Text + "\n" + fp.Text
	d.Show()
}

// offerLines are what an offer question says: "desk wants to send you 3
// files (2 MB)." and the sender's fingerprint, or that it is the trusted
// device.
func offerLines(o event.Offer, paired bool) (head, fp string) {
	who := whoOf(o.PeerName)
	what := plural(o.Files, "file", "files")
	if o.Folders > 0 {
		what += " in " + plural(o.Folders, "folder", "folders")
	}
	switch {
	case o.Texts > 0 && o.Files == 0:
		what = plural(o.Texts, "text", "texts")
	case o.Texts > 0:
		what += " and " + plural(o.Texts, "text", "texts")
	}
	if paired {
		who += ", a trusted device,"
	}
	head = fmt.Sprintf("%s wants to send you %s (%s).", who, what, formatBytes(o.TotalBytes))
	fp = "Fingerprint " + o.PeerFingerprint
	if paired {
		fp = "Trusted device: its key is the one you paired with  ·  " + fp
	}
	return head, fp
}

// offerList lists the offer's files with their sizes, six rows high.
func offerList(o event.Offer) fyne.CanvasObject {
	var names []string
	for _, e := range o.Entries {
		if e.Kind == event.KindDir {
			continue
		}
		names = append(names, e.Path+"  —  "+formatBytes(e.Size))
	}
	list := widget.NewList(func() int { return len(names) },
		func() fyne.CanvasObject { return &widget.Label{Truncation: fyne.TextTruncateEllipsis} },
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(names[i]) })
	return container.NewGridWrap(fyne.NewSize(440, min(float32(len(names)), 6)*40+4), list)
}

func (d *offerDialog) closeOffer() {
	if d.offer != nil {
		d.offer.Hide()
		d.offer = nil
	}
}
