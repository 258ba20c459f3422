package ui

import (
	"context"
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/pick"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/errkind"
)

// errSenderCancelled is the reason the receiver is told when the person
// presses Cancel here.
var errSenderCancelled = errors.New("the sender cancelled")

// sendView is the Send tab: what to send (filesPanel), where
// (devicePicker), the code, and the progress of the transfer once it
// starts.
type sendView struct {
	u    *UI
	root *fyne.Container

	filesPanel
	devicePicker
	code    *widget.Entry
	sendBtn *widget.Button
	hint    *widget.Label

	form   fyne.CanvasObject
	prog   *progressPanel
	cancel context.CancelCauseFunc // of the running send; nil when idle
	sentTo string                  // key of the device of the last send
	sent   []*selItem              // what the last send took (openfiles.go)

	// Keys of trusted devices that refused their pins (not paired any
	// more, or a changed key): a code is needed until one pairs them
	// again.
	needCode map[string]bool

	// phoneBtn starts a send to a phone's browser; phone shows the QR
	// code it opens (phone.go).
	phoneBtn *widget.Button
	phone    *phonePanel
	retry    func()    // what "Try again" runs: the last kind of send
	many     manyState // sending to several devices (send_rows.go)
}

// filesPanel is what to send: the selection and its list.
type filesPanel struct {
	sel      selection
	list     *widget.List
	dropHint *fyne.Container
	summary  *widget.Label
	clear    *widget.Button
}

// devicePicker is where to send it: the devices found and added, and
// the one chosen.
type devicePicker struct {
	found     []Device // from discovery
	manual    []Device // added by address
	devices   []Device // found then manual, as listed
	chosen    string   // key of the chosen device
	devList   *widget.List
	searching *fyne.Container
	addr      *widget.Entry
	addAddr   *widget.Button
}

func newSendView(u *UI) *sendView {
	v := &sendView{u: u, needCode: map[string]bool{}}
	filesBox := v.newFilesBox()
	v.newDeviceList()
	v.code = widget.NewEntry()
	v.code.SetPlaceHolder("Code shown on the receiving device")
	v.code.OnChanged = func(string) { v.updateReady() }
	v.code.OnSubmitted = func(string) {
		if !v.sendBtn.Disabled() {
			v.startSend()
		}
	}
	v.sendBtn = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), v.startSend)
	v.sendBtn.Importance = widget.HighImportance
	v.hint = &widget.Label{Importance: widget.LowImportance, Alignment: fyne.TextAlignCenter, Truncation: fyne.TextTruncateEllipsis}
	v.phoneBtn = widget.NewButtonWithIcon("Send to a phone", theme.MailSendIcon(), v.startPhoneSend)

	v.initMany()
	toFoot := container.NewVBox(
		container.NewBorder(nil, nil, nil, v.addAddr, v.addr),
		widget.NewSeparator(),
		heading("Code"),
		v.code,
		v.many.codesBox,
		v.sendBtn,
		v.hint,
		widget.NewSeparator(),
		v.phoneBtn,
	)
	toBox := container.NewBorder(heading("Send to"), toFoot, nil, nil, container.NewStack(v.searching, v.devList))

	split := container.NewHSplit(card(filesBox), card(toBox))
	split.Offset = 0.56
	v.form = split

	v.prog = newProgressPanel(true)
	v.phone = newPhonePanel()
	progCard := centred(560, card(container.NewVBox(v.phone.root, v.prog.root)))
	progCard.Hide()
	v.root = container.NewStack(v.form, progCard, v.many.card)
	v.selectionChanged()
	v.devicesChanged()
	return v
}

// newFilesBox builds what to send: the list, the hint shown while it is
// empty, and the buttons that add to it.
func (v *sendView) newFilesBox() fyne.CanvasObject {
	v.list = widget.NewList(
		func() int { return len(v.sel.items) },
		v.newRow,
		v.updateRow,
	)
	v.list.OnSelected = func(widget.ListItemID) { v.list.UnselectAll() }
	dropIcon := widget.NewIcon(theme.UploadIcon())
	v.dropHint = container.NewCenter(container.NewVBox(
		container.NewCenter(container.NewGridWrap(fyne.NewSquareSize(72), dropIcon)),
		&widget.Label{Text: "Drop files or folders here", Alignment: fyne.TextAlignCenter, SizeName: theme.SizeNameSubHeadingText},
		&widget.Label{Text: "or choose them with the buttons above", Alignment: fyne.TextAlignCenter, Importance: widget.LowImportance},
	))
	addFiles := widget.NewButtonWithIcon("Choose files", theme.FileIcon(), v.chooseFile)
	addFolder := widget.NewButtonWithIcon("Choose folder", theme.FolderIcon(), v.chooseFolder)
	v.summary = &widget.Label{}
	v.clear = widget.NewButtonWithIcon("Clear", theme.ContentClearIcon(), func() {
		v.sel.clear()
		v.selectionChanged()
	})
	v.clear.Importance = widget.LowImportance
	filesHead := container.NewHBox(heading("Files"), layout.NewSpacer(), addFiles, addFolder, v.sendClipboardButton())
	filesFoot := container.NewHBox(v.summary, layout.NewSpacer(), v.clear)
	return container.NewBorder(filesHead, filesFoot, nil, nil, container.NewStack(v.dropHint, v.list))
}

// newDeviceList builds where to send it: the devices, what shows while
// there are none, and the field that adds one by its address.
func (v *sendView) newDeviceList() {
	v.devList = widget.NewList(func() int { return len(v.devices) }, newDeviceRow, v.updateDeviceRow)
	v.devList.OnSelected = func(i widget.ListItemID) {
		if i < len(v.devices) {
			v.chosen = v.devices[i].key()
		}
		v.devList.Refresh() // the chosen row's box (send_rows.go)
		v.updateReady()
	}
	v.devList.OnUnselected = func(widget.ListItemID) {
		v.chosen = ""
		v.devList.Refresh()
		v.updateReady()
	}
	searchText := "Looking for devices on the network…"
	if v.u.cfg.Browse == nil {
		searchText = "Discovery is off: add a device by its address"
	}
	searching := container.NewVBox(
		container.NewCenter(widget.NewIcon(theme.SearchIcon())),
		&widget.Label{Text: searchText, Alignment: fyne.TextAlignCenter, Importance: widget.LowImportance},
	)
	if v.u.cfg.Browse != nil {
		// What the README's "When no device is found" says, in short:
		// the usual reasons mDNS does not get through, and the way round.
		searching.Add(&widget.Label{Text: noDeviceHint, Alignment: fyne.TextAlignCenter, Importance: widget.LowImportance})
	}
	v.searching = container.NewCenter(searching)
	v.addr = widget.NewEntry()
	v.addr.SetPlaceHolder("Address, e.g. 192.168.1.20:41000")
	v.addr.OnSubmitted = func(string) { v.addAddress() }
	v.addr.OnChanged = func(string) { v.updateReady() }
	v.addAddr = widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), v.addAddress)
}

// newDeviceRow is a device list row: an icon, the name with its badge,
// the details, and the box that adds it to a send to several.
func newDeviceRow() fyne.CanvasObject {
	name := &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, Truncation: fyne.TextTruncateEllipsis}
	sub := &widget.Label{SizeName: theme.SizeNameCaptionText, Truncation: fyne.TextTruncateEllipsis}
	// The badge shares the name's line, so the details below keep the
	// row's full width.
	badge := &widget.Label{TextStyle: fyne.TextStyle{Bold: true}}
	return container.NewBorder(nil, nil, widget.NewIcon(theme.ComputerIcon()), widget.NewCheck("", nil),
		container.New(layout.NewCustomPaddedVBoxLayout(0), container.NewBorder(nil, nil, nil, badge, name), sub))
}

// updateDeviceRow shows device i in a row: its trust, where it is, and
// whether it is a target.
func (v *sendView) updateDeviceRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(v.devices) {
		return
	}
	d := v.devices[i]
	box := o.(*fyne.Container)
	texts := box.Objects[0].(*fyne.Container).Objects
	icon := box.Objects[1].(*widget.Icon)
	top := texts[0].(*fyne.Container).Objects
	top[0].(*widget.Label).SetText(d.Name)
	badge := top[1].(*widget.Label)
	sub := strings.Join(d.Addrs, ", ")
	if d.Fingerprint != "" {
		sub = d.Fingerprint + "  ·  " + sub
	}
	var res fyne.Resource = theme.ComputerIcon()
	if d.Manual {
		res = theme.StorageIcon()
	}
	switch d.status {
	case stores.TrustTrusted:
		sub = "No code needed  ·  " + sub
		badge.Text, badge.Importance = "Trusted", widget.SuccessImportance
		res = theme.NewSuccessThemedResource(res)
	case stores.TrustKeyChanged:
		// Same name as a trusted device, another key: a reinstall or
		// an impostor. Never sent to without a code, and never shown
		// as that device: the row says so, with both fingerprints.
		sub = sentence(stores.KeyChangedKeys(d.named, d.Fingerprint)) + "  ·  " + strings.Join(d.Addrs, ", ")
		badge.Text, badge.Importance = sentence(stores.TrustKeyChanged.Label())+"  ·  Code needed", widget.DangerImportance
		res = theme.NewErrorThemedResource(theme.WarningIcon())
	default:
		badge.Text = ""
	}
	badge.Refresh()
	if d.Incompatible {
		sub = "Different Ferry version: update both devices  ·  " + sub
	}
	texts[1].(*widget.Label).SetText(sub)
	icon.SetResource(res)
	v.updatePick(d, box.Objects[2].(*widget.Check))
}

// noDeviceHint sits under "Looking for devices" while the list is empty.
const noDeviceHint = "Not showing up? The other device must be receiving, on the same network\n" +
	"(guest Wi-Fi often keeps devices apart), with Ferry allowed through its firewall\n" +
	"(Windows: a Private network; macOS: Local Network access in Privacy & Security).\n" +
	"Or add it below by the address it shows."

// heading is a section title.
func heading(s string) *widget.Label {
	return &widget.Label{Text: s, TextStyle: fyne.TextStyle{Bold: true}}
}

// card frames content on a raised background with rounded corners.
func card(content fyne.CanvasObject) fyne.CanvasObject {
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameHeaderBackground))
	bg.CornerRadius = theme.Size(theme.SizeNameSelectionRadius) * 2
	return container.NewPadded(container.NewStack(bg, container.NewPadded(content)))
}

func (v *sendView) newRow() fyne.CanvasObject {
	name := &widget.Label{Truncation: fyne.TextTruncateEllipsis}
	size := &widget.Label{}
	remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), nil)
	remove.Importance = widget.LowImportance
	return container.NewBorder(nil, nil, widget.NewIcon(theme.FileIcon()), container.NewHBox(size, remove), name)
}

func (v *sendView) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(v.sel.items) {
		return
	}
	it := v.sel.items[i]
	box := o.(*fyne.Container)
	name := box.Objects[0].(*widget.Label)
	icon := box.Objects[1].(*widget.Icon)
	right := box.Objects[2].(*fyne.Container)
	size := right.Objects[0].(*widget.Label)
	remove := right.Objects[1].(*widget.Button)

	name.SetText(it.Name)
	switch {
	case it.isText():
		icon.SetResource(theme.DocumentIcon())
		size.SetText(formatBytes(it.Size))
	case it.Err != nil:
		icon.SetResource(theme.NewErrorThemedResource(theme.WarningIcon()))
		size.SetText("can't read")
	case it.Dir:
		icon.SetResource(theme.FolderIcon())
		if it.Counting {
			size.SetText("counting…")
		} else {
			size.SetText(plural(it.Files, "file", "files") + ", " + formatBytes(it.Size))
		}
	default:
		icon.SetResource(theme.FileIcon())
		size.SetText(formatBytes(it.Size))
	}
	remove.OnTapped = func() { v.removeItem(it) }
}

// addPaths selects files and folders and starts measuring the folders.
func (v *sendView) addPaths(paths ...string) {
	for _, it := range v.sel.add(paths...) {
		if it.Dir {
			it := it
			v.u.goroutine(func() {
				n, files, err := pick.MeasureFolder(v.u.ctx, it.Path)
				if v.u.ctx.Err() != nil {
					return
				}
				v.u.do(func() {
					it.Size, it.Files, it.Counting = n, files, false
					if err != nil {
						it.Err = err
					}
					v.selectionChanged()
				})
			})
		}
	}
	v.selectionChanged()
}

func (v *sendView) removeItem(it *selItem) {
	for i, x := range v.sel.items {
		if x == it {
			v.sel.remove(i)
			break
		}
	}
	v.selectionChanged()
}

func (v *sendView) selectionChanged() {
	if len(v.sel.items) == 0 {
		v.dropHint.Show()
		v.list.Hide()
		v.clear.Hide()
		v.summary.SetText("Nothing selected yet")
	} else {
		v.dropHint.Hide()
		v.list.Show()
		v.clear.Show()
		bytes, files, counting := v.sel.totals()
		s := plural(len(v.sel.items), "item", "items") + "  ·  " + plural(files, "file", "files") + "  ·  " + formatBytes(bytes)
		if counting {
			s += " so far"
		}
		v.summary.SetText(s)
	}
	v.list.Refresh()
	v.updateReady()
	v.u.saveState()
}

func (v *sendView) chooseFile() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		u := r.URI()
		r.Close()
		v.u.Drop(fyne.Position{}, []fyne.URI{u})
	}, v.u.cfg.Window)
	d.Resize(fyne.NewSize(720, 500))
	d.Show()
}

func (v *sendView) chooseFolder() {
	d := dialog.NewFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		v.u.Drop(fyne.Position{}, []fyne.URI{l})
	}, v.u.cfg.Window)
	d.Resize(fyne.NewSize(720, 500))
	d.Show()
}

// browse runs discovery until ctx ends, on a goroutine the UI owns.
func (v *sendView) browse(ctx context.Context) {
	own := v.u.fingerprint()
	err := v.u.cfg.Browse(ctx, func(ds []Device) {
		// This device's own receiver is on the network too: a person
		// never means to send to themselves.
		var others []Device
		for _, d := range ds {
			if d.Fingerprint == "" || d.Fingerprint != own {
				others = append(others, d)
			}
		}
		v.u.do(func() {
			// Classified here, in order with the store's changes
			// (trustChanged), so a late update never shows a stale mark.
			v.found = v.u.classify(others)
			v.devicesChanged()
		})
	})
	if err != nil && ctx.Err() == nil {
		v.u.do(func() {
			l := v.searching.Objects[0].(*fyne.Container).Objects[1].(*widget.Label)
			l.SetText("Discovery isn't working: add a device by its address\n(" + err.Error() + ")")
		})
	}
}

// devicesChanged relists the devices, keeping the chosen one chosen.
func (v *sendView) devicesChanged() {
	// A device added by address that discovery has found since is
	// listed once, as found.
	v.devices = nearby.Merge(v.found, v.manual, func(d Device) []string { return d.Addrs })
	v.devList.Refresh()
	if len(v.devices) == 0 {
		v.searching.Show()
	} else {
		v.searching.Hide()
	}
	chosen := v.chosen
	v.devList.UnselectAll()
	for i, d := range v.devices {
		if d.key() == chosen {
			v.devList.Select(i)
		}
	}
	v.updateReady()
}

// addAddress adds the typed address as a device and chooses it. A pasted
// receiver link (http://HOST:PORT/#code=..., or a legacy ferry:// one)
// also fills in the code.
func (v *sendView) addAddress() {
	s := strings.TrimSpace(v.addr.Text)
	if s == "" {
		return
	}
	name := s
	fp := ""
	if l, err := nearby.ParseLink(s); err == nil {
		s, name, fp = l.Addr, l.Addr, l.Fingerprint
		if l.Code != "" {
			v.code.SetText(l.Code)
		}
	}
	d := v.u.classify([]Device{{Name: name, Addrs: []string{s}, Manual: true, Fingerprint: fp}})[0]
	replaced := false
	for i := range v.manual {
		if v.manual[i].key() == d.key() {
			v.manual[i], replaced = d, true
		}
	}
	if !replaced {
		v.manual = append(v.manual, d)
	}
	v.chosen = d.key()
	v.addr.SetText("")
	v.devicesChanged()
}

// OpenLink fills the Send view from a receiver's link (what its QR code
// holds, see nearby.PageLink): the address becomes the chosen device and the code is typed
// in.
func (u *UI) OpenLink(link string) {
	u.tabs.Select(u.sendTab)
	u.send.addr.SetText(link)
	u.send.addAddress()
}

// target is the chosen device, if any.
func (v *sendView) target() (Device, bool) {
	for _, d := range v.devices {
		if d.key() == v.chosen && v.chosen != "" {
			return d, true
		}
	}
	return Device{}, false
}

func (v *sendView) codeText() string {
	return strings.Join(strings.Fields(v.code.Text), "")
}

// paired is the pinned key to send to d with, and no code: d is trusted
// and no code was typed. A typed code wins, so that a person told to pair
// again can.
func (v *sendView) paired(d Device) *stores.Device {
	if d.status != stores.TrustTrusted || len(d.pin.Key) == 0 || v.codeText() != "" || v.needCode[d.key()] {
		return nil
	}
	pin := d.pin
	return &pin
}

// updateReady enables Send when there is something to send, somewhere to
// send it and a code (none for a trusted device), and otherwise says what
// is missing.
func (v *sendView) updateReady() {
	if v.updateReadyMany() {
		return
	}
	d, haveTarget := v.target()
	_, _, counting := v.sel.totals()
	pairedKey := v.paired(d)
	if haveTarget && d.status == stores.TrustTrusted && !v.needCode[d.key()] {
		v.code.SetPlaceHolder("Not needed: " + d.Name + " is trusted")
	} else {
		v.code.SetPlaceHolder("Code shown on the receiving device")
	}
	switch {
	case len(v.sel.items) == 0:
		v.hint.SetText("Add files or folders to send")
	case !haveTarget && strings.TrimSpace(v.addr.Text) != "":
		v.hint.SetText("Press Add to use that address")
	case !haveTarget:
		v.hint.SetText("Choose a device, or add one by its address")
	case d.status == stores.TrustKeyChanged && v.codeText() == "":
		v.hint.SetText(sentence(stores.KeyChangedWarning(d.named, d.Fingerprint)) + ". " + sentence(stores.KeyChangedAdvice) + ".")
	case v.needCode[d.key()] && v.codeText() == "":
		v.hint.SetText("It refused the pairing: type the code it shows to pair again")
	case v.codeText() == "" && pairedKey == nil:
		v.hint.SetText("Type the code the receiving device shows")
	case counting:
		v.hint.SetText("Measuring folders…")
	case pairedKey != nil:
		v.hint.SetText("Ready to send to " + d.Name + ", a trusted device: no code needed")
	default:
		v.hint.SetText("Ready to send to " + d.Name)
	}
	if len(v.sel.items) > 0 && v.cancel == nil {
		v.phoneBtn.Enable()
	} else {
		v.phoneBtn.Disable()
	}
	ready := len(v.sel.items) > 0 && haveTarget && (v.codeText() != "" || pairedKey != nil) && v.cancel == nil
	if ready {
		v.sendBtn.Enable()
	} else {
		v.sendBtn.Disable()
	}
}

// startSend sends the selection to every target through the Node's
// SendMany: a send to one device is a send to several with one target.
// One device's progress takes the view in place of the form; several
// show a row each (send_rows.go).
func (v *sendView) startSend() {
	ts := v.targets()
	if len(ts) == 0 || len(v.sel.items) == 0 || v.cancel != nil {
		return
	}
	one := len(ts) == 1
	ctx, cancel := context.WithCancelCause(v.u.ctx)
	v.cancel = cancel
	src := v.sendConfig()
	cfg := app.ManyConfig{Items: src.Items, Paths: src.Paths, Text: src.Text}
	for _, d := range ts {
		cfg.To = append(cfg.To, v.sendTarget(d, one))
	}
	if one {
		v.retry = v.startSend
		v.sentTo = ts[0].key()
		v.sent = append(v.sent[:0], v.sel.items...)
		cfg.OnEvent = func(_ *app.Transfer, ev event.Event) { v.u.do(func() { v.prog.handle(ev) }) }
		bytes, files, _ := v.sel.totals()
		v.prog.begin(v.prog.transferTitle(files, bytes), "To "+ts[0].Name, v.cancelling(cancel))
		v.showProgress(true)
	} else {
		v.beginMany(&cfg, ts, cancel)
	}
	v.updateReady()
	v.u.cfg.Node.SetName(v.u.settings.deviceName())
	m := v.u.cfg.Node.SendMany(ctx, cfg)
	v.u.goroutine(func() {
		res, _ := m.Wait()
		cancel(nil)
		var pin pinOffer
		if one {
			pin = v.u.pinOfferFor(res[0])
		}
		if v.u.ctx.Err() != nil {
			return
		}
		v.u.do(func() {
			if one {
				v.sendDone(res[0].Summary, res[0].Err, pin)
			} else {
				v.manyDone(res)
			}
		})
	})
}

// sendTarget is where and how to reach d. Alone, d is sent to with the
// code typed, or paired when it is trusted and none was; one of several
// with its own code field's, or paired (manyKey). SendMany tries every
// address of the device in turn (Addrs). Discovery may list one whose
// advertisement carried no usable address: its send then fails with an
// error that says so, and the history names it by its name.
func (v *sendView) sendTarget(d Device, alone bool) app.Target {
	to := app.Target{Addrs: d.Addrs, Code: v.manyCode(d), Pin: v.manyKey(d), PeerName: d.Name, PeerFingerprint: d.Fingerprint}
	if alone {
		to.Code, to.Pin = v.codeText(), v.paired(d)
	}
	if to.Pin != nil {
		to.Code = ""
	}
	return to
}

// sendConfig is what every send takes from the selection: the items,
// and the paths and text the history names.
func (v *sendView) sendConfig() app.SendConfig {
	cfg := app.SendConfig{Items: v.sel.transferItems()}
	cfg.Paths, cfg.Text = pick.ItemSources(cfg.Items)
	return cfg
}

// cancelling is a progress panel's Cancel for a send: it says so and
// cancels it.
func (v *sendView) cancelling(cancel context.CancelCauseFunc) func() {
	return func() {
		v.prog.cancel.Disable()
		v.prog.current.SetText("Cancelling…")
		cancel(errSenderCancelled)
	}
}

func (v *sendView) sendDone(sum event.Summary, err error, pin pinOffer) {
	v.cancel = nil
	v.u.recorded()
	v.u.noteTransfer(true, v.prog.conn, sum, err)
	back := widget.NewButtonWithIcon("Back", theme.NavigateBackIcon(), func() { v.showProgress(false) })
	if err == nil {
		more := widget.NewButtonWithIcon("Send more", theme.ContentAddIcon(), func() {
			v.sel.drop(v.sent)
			v.selectionChanged()
			v.showProgress(false)
		})
		more.Importance = widget.HighImportance
		v.prog.finish(sum, nil, back, more)
		if !v.prog.conn.Paired {
			delete(v.needCode, v.sentTo) // a code paired them again
		}
		v.u.offerTrust(v.prog, pin)
	} else if k := errkind.Of(err); k == errkind.WrongCode || k == errkind.CodeRetired ||
		k == errkind.NotPaired || k == errkind.KeyChanged {
		// Sending again with the same code can only fail again, and so
		// can sending again to a device that refused the pins: the fix
		// is a code, which pairs the devices again.
		label := "Enter the code again"
		if k == errkind.NotPaired || k == errkind.KeyChanged {
			label = "Pair with a code"
			v.needCode[v.sentTo] = true
		}
		fix := widget.NewButtonWithIcon(label, theme.DocumentCreateIcon(), func() {
			v.code.SetText("")
			v.showProgress(false)
			v.u.cfg.Window.Canvas().Focus(v.code)
		})
		fix.Importance = widget.HighImportance
		v.prog.finish(sum, err, back, fix)
	} else {
		again := v.retry
		retry := widget.NewButtonWithIcon("Try again", theme.ViewRefreshIcon(), func() {
			v.showProgress(false)
			again()
		})
		retry.Importance = widget.HighImportance
		v.prog.finish(sum, err, back, retry)
	}
	v.updateReady()
}

func (v *sendView) showProgress(on bool) {
	if on {
		v.form.Hide()
		v.root.Objects[1].Show()
	} else {
		v.root.Objects[1].Hide()
		v.form.Show()
		v.updateReady()
	}
}
