package ui

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/stores"
)

// Preference keys. They are part of the app's on-disk state: renaming one
// forgets what people set.
const (
	prefName = "deviceName"
	prefDir  = "downloadDir"
	prefAsk  = "askBeforeAccepting"
	// Off by default: a person opts in to offers that nobody confirms.
	prefAutoTrusted = "autoAcceptTrusted"
	// How many senders the receiver takes at once (receive_cards.go).
	prefMaxSenders = "receiveFromUpTo"
)

// defaultMaxSenders is one sender at a time, as before the setting: one
// result screen, and a second sender told the receiver is busy. Taking
// several is a choice the person makes, as each open question is one
// more thing to answer at once.
const defaultMaxSenders = 1

// maxSendersChoices are the setting's values, 1 to
// app.MaxConcurrentLimit.
var maxSendersChoices = []string{"1", "2", "3", "4"}

// settingsView is the Settings tab. Values live in the app's Preferences
// (which are safe to read from any goroutine) and apply when saved.
type settingsView struct {
	u    *UI
	root fyne.CanvasObject

	name        *widget.Entry
	dir         *widget.Entry
	ask         *widget.Check
	autoTrusted *widget.Check
	textClip    *widget.Check // clipboard.go
	maxSenders  *widget.Select
	saved       *widget.Label
	fp          *widget.Label
	background  *backgroundSettings // tray and login (tray.go)

	// The trusted devices, read from the store whenever Settings shows
	// or the store changes; a removal applies at once, not on Save.
	trusted     *fyne.Container
	trustedRows []trustedRow
	trustedNote *widget.Label

	// Demo mode: sample values that are never saved.
	nameOverride, dirOverride string
}

func newSettingsView(u *UI) *settingsView {
	v := &settingsView{u: u}
	v.name = widget.NewEntry()
	v.name.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("a device needs a name")
		}
		return nil
	}
	v.dir = widget.NewEntry()
	browse := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), func() {
		d := dialog.NewFolderOpen(func(l fyne.ListableURI, err error) {
			if err == nil && l != nil {
				v.dir.SetText(l.Path())
			}
		}, u.cfg.Window)
		d.Resize(fyne.NewSize(720, 500))
		d.Show()
	})
	v.ask = widget.NewCheck("Ask before accepting a transfer", func(on bool) {
		// Without asking, every offer is accepted: trusted or not.
		if on {
			v.autoTrusted.Enable()
		} else {
			v.autoTrusted.Disable()
		}
	})
	v.autoTrusted = widget.NewCheck("Accept files from trusted devices without asking", nil)
	v.textClip = newClipboardCheck()
	v.maxSenders = widget.NewSelect(maxSendersChoices, nil)
	v.saved = &widget.Label{Importance: widget.SuccessImportance}
	v.fp = &widget.Label{Selectable: true, TextStyle: fyne.TextStyle{Monospace: true}}
	v.background = newBackgroundSettings(u)
	form := &widget.Form{
		Items: []*widget.FormItem{
			{Text: "Device name", Widget: v.name, HintText: "How this device appears to others"},
			{Text: "Download folder", Widget: container.NewBorder(nil, nil, nil, browse, v.dir), HintText: "Where received files are saved"},
			{Text: "Incoming", Widget: container.NewVBox(v.ask, v.autoTrusted, v.textClip), HintText: "Without asking, anyone who knows the code can send"},
			{Text: "At once", Widget: container.NewHBox(widget.NewLabel("Receive from up to"), v.maxSenders, widget.NewLabel("devices at once")),
				HintText: "Beyond it, a sender is told this device is busy"},
			v.background.item(),
			{Text: "Fingerprint", Widget: v.fp, HintText: "Compare it with what the other device shows"},
		},
		SubmitText: "Save",
		OnSubmit:   v.save,
		OnCancel:   v.load,
		CancelText: "Revert",
	}
	v.trusted = container.NewVBox()
	v.trustedNote = &widget.Label{Wrapping: fyne.TextWrapWord, SizeName: theme.SizeNameCaptionText}
	trustedIntro := &widget.Label{
		Text:     "They send and receive without a code. Remove one, and a code is needed again.",
		Wrapping: fyne.TextWrapWord, SizeName: theme.SizeNameCaptionText, Importance: widget.LowImportance,
	}
	// A long list of trusted devices scrolls the whole view rather than
	// squeezing the form. No title over the form: the tab says Settings,
	// and the room goes to the trusted devices.
	v.root = container.NewVScroll(centred(640, card(container.NewVBox(
		form, v.saved,
		widget.NewSeparator(), heading("Trusted devices"), trustedIntro, v.trusted, v.trustedNote))))
	v.load()
	return v
}

// trustedRow is one trusted device in Settings with its Remove button.
type trustedRow struct {
	dev    stores.Device
	remove *widget.Button
}

// loadTrusted lists the trusted devices from the store. A store that
// can't be read is said so, with the file it is about; it is never
// reset for the person.
func (v *settingsView) loadTrusted() {
	v.trusted.RemoveAll()
	v.trustedRows = nil
	v.note("", widget.LowImportance)
	s := v.u.trust
	if s == nil {
		// The Node turns them off when the file can't be used as it
		// starts (it said why then); they stay off until a restart.
		v.note("Trusted devices are off: the list of trusted devices couldn't be read when Ferry started. Fix or delete the file and start Ferry again; until then every transfer needs a code.", widget.DangerImportance)
		return
	}
	devs, err := s.Devices()
	if err != nil {
		v.note("Can't read the trusted devices: "+err.Error()+". Fix or delete the file; until then every transfer needs a code.", widget.DangerImportance)
		return
	}
	if len(devs) == 0 {
		v.note("None yet. After a transfer with a code, tick “Trust …” in its result.", widget.LowImportance)
		return
	}
	for _, d := range devs {
		v.trusted.Add(v.trustedRow(d))
	}
}

// note says something under the trusted devices; nothing hides it.
func (v *settingsView) note(text string, imp widget.Importance) {
	v.trustedNote.Importance = imp
	v.trustedNote.SetText(text)
	if text == "" {
		v.trustedNote.Hide()
	} else {
		v.trustedNote.Show()
	}
}

func (v *settingsView) trustedRow(d stores.Device) fyne.CanvasObject {
	name := &widget.Label{Text: d.Name, TextStyle: fyne.TextStyle{Bold: true}, Truncation: fyne.TextTruncateEllipsis}
	sub := &widget.Label{Text: d.Fingerprint() + "  ·  paired " + pairedDate(d.PairedAt), SizeName: theme.SizeNameCaptionText, Truncation: fyne.TextTruncateEllipsis}
	remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), nil)
	remove.Importance = widget.LowImportance
	remove.OnTapped = func() {
		remove.Disable()
		v.u.goroutine(func() {
			err := v.u.trust.Unpin(d)
			v.u.do(func() {
				v.u.trustChanged()
				if err != nil {
					v.note("Couldn't remove "+d.Name+": "+err.Error(), widget.DangerImportance)
					return
				}
				v.note(d.Name+" is no longer trusted: the next transfer between the two devices needs a code.", widget.LowImportance)
			})
		})
	}
	v.trustedRows = append(v.trustedRows, trustedRow{dev: d, remove: remove})
	icon := widget.NewIcon(theme.NewSuccessThemedResource(theme.ComputerIcon()))
	return container.NewBorder(nil, nil, icon, container.NewCenter(remove),
		container.New(layout.NewCustomPaddedVBoxLayout(0), name, sub))
}

func (v *settingsView) prefs() fyne.Preferences { return v.u.cfg.App.Preferences() }

// load shows the stored values.
func (v *settingsView) load() {
	v.name.SetText(v.deviceName())
	v.dir.SetText(v.downloadDir())
	v.ask.SetChecked(v.askFirst())
	v.autoTrusted.SetChecked(v.autoAcceptTrusted())
	v.textClip.SetChecked(v.textsToClipboard())
	v.maxSenders.SetSelected(strconv.Itoa(v.maxConcurrent()))
	v.ask.OnChanged(v.ask.Checked)
	v.saved.SetText("")
	v.saved.Hide() // no empty line under the form
	v.fp.SetText(v.u.fingerprint())
	v.background.load(v.u)
	v.loadTrusted()
}

// save stores the form and restarts a waiting receiver with it.
func (v *settingsView) save() {
	p := v.prefs()
	p.SetString(prefName, strings.TrimSpace(v.name.Text))
	p.SetString(prefDir, strings.TrimSpace(v.dir.Text))
	p.SetBool(prefAsk, v.ask.Checked)
	p.SetBool(prefAutoTrusted, v.autoTrusted.Checked)
	v.background.save(v.u)
	p.SetBool(prefTextsToClipboard, v.textClip.Checked)
	if n, err := strconv.Atoi(v.maxSenders.Selected); err == nil {
		p.SetInt(prefMaxSenders, n)
	}
	v.saved.SetText("Saved")
	v.saved.Show()
	v.u.recv.settingsChanged()
}

func (v *settingsView) deviceName() string {
	if v.nameOverride != "" {
		return v.nameOverride
	}
	return v.prefs().StringWithFallback(prefName, defaultName())
}

func (v *settingsView) downloadDir() string {
	if v.dirOverride != "" {
		return v.dirOverride
	}
	return v.prefs().StringWithFallback(prefDir, defaultDownloads())
}

func (v *settingsView) askFirst() bool {
	return v.prefs().BoolWithFallback(prefAsk, true)
}

// maxConcurrent is how many senders the receiver takes at once: the
// setting, or the default when it is missing or out of range.
func (v *settingsView) maxConcurrent() int {
	n := v.prefs().IntWithFallback(prefMaxSenders, defaultMaxSenders)
	if n < 1 || n > app.MaxConcurrentLimit {
		return defaultMaxSenders
	}
	return n
}

func (v *settingsView) autoAcceptTrusted() bool {
	return v.prefs().BoolWithFallback(prefAutoTrusted, false)
}

// receiveConfig is the part of a receiver's configuration that comes from
// settings. It creates the download folder if it is missing (a fresh
// system may have no ~/Downloads).
func (v *settingsView) receiveConfig() (app.ReceiveConfig, error) {
	dir := v.downloadDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return app.ReceiveConfig{}, fmt.Errorf("creating the download folder: %w", err)
	}
	// Without asking, every offer is accepted; with it, a trusted
	// device's when the box says so. Texts are kept for the result and
	// the clipboard; once the codes stop, the receiver still waits for
	// trusted devices, and the person can ask for a new code.
	return app.ReceiveConfig{Dir: dir, AcceptAll: !v.askFirst(), AcceptTrusted: v.autoAcceptTrusted(),
		KeepTexts: true, Page: true, KeepWaiting: true, MaxConcurrent: v.maxConcurrent()}, nil
}
