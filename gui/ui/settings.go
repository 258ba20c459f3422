package ui

import (
	"fmt"
	"os"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/transfer"
)

// Preference keys. They are part of the app's on-disk state: renaming one
// forgets what people set.
const (
	prefName = "deviceName"
	prefDir  = "downloadDir"
	prefAsk  = "askBeforeAccepting"
)

// settingsView is the Settings tab. Values live in the app's Preferences
// (which are safe to read from any goroutine) and apply when saved.
type settingsView struct {
	u    *UI
	root fyne.CanvasObject

	name  *widget.Entry
	dir   *widget.Entry
	ask   *widget.Check
	saved *widget.Label
	fp    *widget.Label

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
	v.ask = widget.NewCheck("Ask before accepting a transfer", nil)
	v.saved = &widget.Label{Importance: widget.SuccessImportance}
	v.fp = &widget.Label{Selectable: true, TextStyle: fyne.TextStyle{Monospace: true}}
	form := &widget.Form{
		Items: []*widget.FormItem{
			{Text: "Device name", Widget: v.name, HintText: "How this device appears to others"},
			{Text: "Download folder", Widget: container.NewBorder(nil, nil, nil, browse, v.dir), HintText: "Where received files are saved"},
			{Text: "Incoming", Widget: v.ask, HintText: "Without asking, anyone who knows the code can send"},
			{Text: "Fingerprint", Widget: v.fp, HintText: "Compare it with what the other device shows"},
		},
		SubmitText: "Save",
		OnSubmit:   v.save,
		OnCancel:   v.load,
		CancelText: "Revert",
	}
	title := &widget.Label{Text: "Settings", TextStyle: fyne.TextStyle{Bold: true}, SizeName: theme.SizeNameHeadingText}
	v.root = centred(640, card(container.NewVBox(title, form, v.saved)))
	v.load()
	return v
}

func (v *settingsView) prefs() fyne.Preferences { return v.u.cfg.App.Preferences() }

// load shows the stored values.
func (v *settingsView) load() {
	v.name.SetText(v.deviceName())
	v.dir.SetText(v.downloadDir())
	v.ask.SetChecked(v.askFirst())
	v.saved.SetText("")
	v.fp.SetText(v.u.fingerprint())
}

// save stores the form and restarts a waiting receiver with it.
func (v *settingsView) save() {
	p := v.prefs()
	p.SetString(prefName, strings.TrimSpace(v.name.Text))
	p.SetString(prefDir, strings.TrimSpace(v.dir.Text))
	p.SetBool(prefAsk, v.ask.Checked)
	v.saved.SetText("Saved")
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

// receiverConfig is the part of a receiver's configuration that comes from
// settings. It creates the download folder if it is missing (a fresh
// system may have no ~/Downloads).
func (v *settingsView) receiverConfig() (transfer.ReceiverConfig, error) {
	dir := v.downloadDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return transfer.ReceiverConfig{}, fmt.Errorf("creating the download folder: %w", err)
	}
	policy := transfer.Ask
	if !v.askFirst() {
		policy = transfer.AcceptAll
	}
	return transfer.ReceiverConfig{Dir: dir, Name: v.deviceName(), Policy: policy}, nil
}
