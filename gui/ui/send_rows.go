package ui

// Sending to several devices at once. Each device row has a box: ticked
// devices are sent to along with the chosen (selected) one. With more
// than one, the single code field gives way to a field per device that
// needs a code (trusted devices need none), and Send (startSend, the one
// send path, as for one device) starts one session per device (the
// Node's SendMany: its own code or pin, its own accept,
// its own progress row and result; the files are read once for all). One
// device declining or failing never stops the others. The Node gives
// each device its own history record, with its own outcome, as a send to
// it alone.

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/present"
	"github.com/ferry-project/ferry/core/app/stores"
)

// manyState is the Send view's part for several devices.
type manyState struct {
	picked   map[string]bool          // keys of ticked devices
	codes    map[string]*widget.Entry // per device key, kept while the device is a target
	codesBox *fyne.Container          // the per-device code fields
	panel    *manyPanel
	card     fyne.CanvasObject
}

func (v *sendView) initMany() {
	v.many.picked = map[string]bool{}
	v.many.codes = map[string]*widget.Entry{}
	v.many.codesBox = container.New(layout.NewFormLayout()) // a name, its code field
	v.many.codesBox.Hide()
	v.many.panel = newManyPanel()
	v.many.card = centred(560, card(v.many.panel.root))
	v.many.card.Hide()
}

// setPicked ticks or unticks a device (its row's box).
func (v *sendView) setPicked(key string, on bool) {
	if on {
		v.many.picked[key] = true
	} else {
		delete(v.many.picked, key)
	}
	v.updateReady()
}

// updatePick shows d's box as ticked or not, for the device list's rows.
// The chosen device is always a target: its box is ticked and fixed.
func (v *sendView) updatePick(d Device, box *widget.Check) {
	key := d.key()
	box.OnChanged = nil
	if key == v.chosen {
		box.SetChecked(true)
		box.Disable()
		return
	}
	box.Enable()
	box.SetChecked(v.many.picked[key])
	box.OnChanged = func(on bool) { v.setPicked(key, on) }
}

// targets are the devices a Send goes to: the chosen one, then the
// ticked ones in the list's order.
func (v *sendView) targets() []Device {
	var out []Device
	if d, ok := v.target(); ok {
		out = append(out, d)
	}
	for _, d := range v.devices {
		if v.many.picked[d.key()] && d.key() != v.chosen {
			out = append(out, d)
		}
	}
	return out
}

// manyKey is the pinned key to send to d with, in a send to several: a
// trusted device needs no code (unless it refused its pin before).
func (v *sendView) manyKey(d Device) *stores.Device {
	if d.status == stores.TrustTrusted && len(d.pin.Key) > 0 && !v.needCode[d.key()] {
		pin := d.pin
		return &pin
	}
	return nil
}

func (v *sendView) manyCode(d Device) string {
	if e := v.many.codes[d.key()]; e != nil {
		return strings.Join(strings.Fields(e.Text), "")
	}
	return ""
}

// updateReadyMany is updateReady with several targets; it reports false,
// having shown the single code field, when there are fewer.
func (v *sendView) updateReadyMany() bool {
	ts := v.targets()
	if len(ts) < 2 {
		v.many.codesBox.Hide()
		v.code.Show()
		return false
	}
	v.code.Hide()
	v.many.codesBox.Show()
	v.many.codesBox.RemoveAll()
	keep := map[string]*widget.Entry{}
	missing := ""
	for _, d := range ts {
		if v.manyKey(d) != nil {
			continue
		}
		e := v.many.codes[d.key()]
		if e == nil {
			e = widget.NewEntry()
			e.SetPlaceHolder("Code shown on " + d.Name)
			e.OnChanged = func(string) { v.updateReady() }
		}
		keep[d.key()] = e
		v.many.codesBox.Add(widget.NewLabel(shortName(d.Name)))
		v.many.codesBox.Add(e)
		if missing == "" && v.manyCode(d) == "" {
			missing = d.Name
		}
	}
	v.many.codes = keep
	_, _, counting := v.sel.totals()
	switch {
	case len(v.sel.items) == 0:
		v.hint.SetText("Add files or folders to send")
	case missing != "":
		v.hint.SetText("Type the code " + missing + " shows")
	case counting:
		v.hint.SetText("Measuring folders…")
	default:
		v.hint.SetText(fmt.Sprintf("Ready to send to %d devices", len(ts)))
	}
	if len(v.sel.items) > 0 && missing == "" && v.cancel == nil {
		v.sendBtn.Enable()
	} else {
		v.sendBtn.Disable()
	}
	return true
}

// beginMany shows a send to several devices, a row each, and has cfg
// tell the rows its events.
func (v *sendView) beginMany(cfg *app.ManyConfig, ts []Device, cancel context.CancelCauseFunc) {
	names := make([]string, len(ts))
	for i, d := range ts {
		names[i] = d.Name
	}
	cfg.OnEvent = func(t *app.Transfer, ev event.Event) {
		i := t.Index() // its row: its place in cfg.To
		v.u.do(func() { v.many.panel.handle(i, ev) })
	}
	cfg.OnEnded = func(t *app.Transfer, sum event.Summary, err error) {
		i := t.Index()
		v.u.do(func() { v.many.panel.ended(i, sum, err) })
	}
	bytes, files, _ := v.sel.totals()
	v.many.panel.begin(plural(files, "file", "files")+", "+formatBytes(bytes)+" to "+plural(len(ts), "device", "devices"), names,
		func() { cancel(errSenderCancelled) })
	v.form.Hide()
	v.many.card.Show()
}

// manyDone shows every device's result.
func (v *sendView) manyDone(res []app.Result) {
	v.cancel = nil
	v.u.recorded()
	v.many.panel.finish(res, func() {
		v.many.card.Hide()
		v.form.Show()
		v.updateReady()
	})
	v.updateReady()
}

// manyPanel shows a send to several devices: a row per device with its
// progress, then its result. All methods run on the UI goroutine.
type manyPanel struct {
	root   *fyne.Container
	title  *widget.Label
	rows   *fyne.Container
	row    []*manyRow
	cancel *widget.Button
	back   *widget.Button
}

type manyRow struct {
	name   *widget.Label
	bar    *widget.ProgressBar
	status *widget.Label
	done   bool
}

func newManyPanel() *manyPanel {
	p := &manyPanel{
		title:  &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, SizeName: theme.SizeNameSubHeadingText},
		rows:   container.NewVBox(),
		cancel: widget.NewButtonWithIcon("Cancel all", theme.CancelIcon(), nil),
		back:   widget.NewButtonWithIcon("Back", theme.NavigateBackIcon(), nil),
	}
	p.root = container.NewVBox(p.title, widget.NewSeparator(), p.rows, container.NewHBox(layout.NewSpacer(), p.back, p.cancel))
	return p
}

func (p *manyPanel) begin(title string, names []string, onCancel func()) {
	p.title.SetText("Sending " + title)
	p.rows.RemoveAll()
	p.row = nil
	for _, n := range names {
		r := &manyRow{
			name:   &widget.Label{Text: n, TextStyle: fyne.TextStyle{Bold: true}, Truncation: fyne.TextTruncateEllipsis},
			bar:    widget.NewProgressBar(),
			status: &widget.Label{Text: "Connecting…", Truncation: fyne.TextTruncateEllipsis},
		}
		p.row = append(p.row, r)
		p.rows.Add(container.NewVBox(r.name, r.bar, r.status))
	}
	p.cancel.OnTapped = func() {
		p.cancel.Disable()
		onCancel()
	}
	p.cancel.Enable()
	p.cancel.Show()
	p.back.Hide()
}

// handle shows receiver i's event in its row.
func (p *manyPanel) handle(i int, ev event.Event) {
	if i >= len(p.row) || p.row[i].done {
		return
	}
	r := p.row[i]
	switch e := ev.(type) {
	case event.Connected:
		if e.PeerName != "" {
			r.name.SetText(e.PeerName)
		}
		r.status.SetText("Waiting for it to accept…")
	case event.Accepted:
		r.status.SetText("Accepted")
	case event.Progress:
		if e.Total > 0 {
			r.bar.Max = float64(e.Total)
			r.bar.SetValue(float64(e.Done))
		}
		s := formatBytes(e.Done) + " of " + formatBytes(e.Total)
		if e.Rate > 0 {
			s += "  ·  " + formatRate(e.Rate)
		}
		r.status.SetText(s)
	}
}

// ended shows that receiver i's transfer ended, while the others may go
// on (ManyConfig.OnEnded): what it got, or why not.
func (p *manyPanel) ended(i int, sum event.Summary, err error) {
	if i >= len(p.row) || p.row[i].done {
		return
	}
	p.row[i].show(sum, err)
}

// show puts a receiver's result in its row.
func (r *manyRow) show(sum event.Summary, err error) {
	if err != nil {
		r.status.Importance = widget.DangerImportance
		r.status.SetText(explain(err).Headline)
		return
	}
	r.bar.Max = 1
	r.bar.SetValue(1)
	r.status.Importance = widget.SuccessImportance
	r.status.SetText("Sent " + plural(present.Files(sum.Entries), "file", "files") + ", every file confirmed")
}

// finish shows each device's result: what it got, or why not.
func (p *manyPanel) finish(res []app.Result, onBack func()) {
	ok := 0
	for i, r := range res {
		if i >= len(p.row) {
			break
		}
		p.row[i].done = true
		p.row[i].show(r.Summary, r.Err)
		if r.Err == nil {
			ok++
		}
	}
	p.title.SetText(fmt.Sprintf("Sent to %d of %d devices", ok, len(res)))
	p.cancel.Hide()
	p.back.OnTapped = onBack
	p.back.Show()
}

// shortName keeps a device's name short enough to label its code field.
func shortName(s string) string {
	if r := []rune(s); len(r) > 20 {
		return string(r[:19]) + "…"
	}
	return s
}
