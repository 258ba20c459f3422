package ui

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/pick"
	"github.com/ferry-project/ferry/core/clipboard"
)

// The clipboard, both ways.
//
// Send clipboard (a button on the Send view, or Ctrl+Shift+V) adds what the clipboard
// holds to the selection: its text as a text entry ("clipboard.txt" on the
// receiver, which shows it and can copy it), read through Fyne's
// clipboard; or, when it holds no text, its image as a PNG file. Fyne's
// clipboard carries text only, so an image is read with the platform's
// clipboard program (core/clipboard: wl-paste or xclip on Linux; macOS and
// Windows read text only there). The PNG is written to a private
// temporary folder that Close removes.
//
// Received texts are shown with a Copy button. With the setting "Put
// texts from trusted devices on the clipboard" on, a text from a trusted
// device (authenticated by its pinned key) is put there as the transfer
// ends. A text from a sender that a code authenticated never is, with or
// without the setting: the code proves only that the sender saw it, and a
// text on the clipboard is one paste away from a terminal. The person
// presses Copy, which is the question asked.

// clipboardImage reads an image from the platform clipboard (a variable
// so tests can stand in for a platform without one).
var clipboardImage = clipboard.ReadImage

// addClipboard is the Send clipboard button.
func (v *sendView) addClipboard() {
	if text := v.u.cfg.App.Clipboard().Content(); text != "" {
		v.addText(text)
		return
	}
	// No text: look for an image, off the UI goroutine (it runs a
	// program that may wait on the clipboard's owner).
	v.u.goroutine(func() {
		png, err := clipboardImage(v.u.ctx)
		var path string
		if err == nil {
			path, err = v.u.tmp.ClipboardImage(png, time.Now()) // Close removes it
		}
		if v.u.ctx.Err() != nil {
			return
		}
		v.u.do(func() {
			if err != nil {
				msg := "The clipboard is empty: copy some text or an image, then press Send clipboard again."
				if !errors.Is(err, clipboard.ErrNoImage) && !errors.Is(err, clipboard.ErrEmpty) && !errors.Is(err, clipboard.ErrNoTool) {
					msg = "Couldn't read the clipboard's image: " + err.Error()
				}
				dialog.ShowInformation("Nothing to send from the clipboard", msg, v.u.cfg.Window)
				return
			}
			v.addPaths(path)
		})
	})
}

// addText adds a text entry to the selection.
func (v *sendView) addText(text string) {
	if len(text) > app.MaxTextBytes {
		dialog.ShowInformation("Text too long",
			"The text on the clipboard is over 1 MiB: save it to a file and send the file.", v.u.cfg.Window)
		return
	}
	v.sel.addText(text)
	v.u.tabs.Select(v.u.sendTab)
	v.selectionChanged()
}

// addText adds a text entry. Texts are never merged: each is an entry.
func (s *selection) addText(text string) *selItem {
	it := &selItem{Name: "Clipboard text: " + preview(text, 48), Text: text, Size: int64(len(text)), Files: 1}
	s.items = append(s.items, it)
	return it
}

func (it *selItem) isText() bool { return it.Path == "" }

// transferItems is the selection as the engine takes it.
func (s *selection) transferItems() []event.Item {
	out := make([]event.Item, 0, len(s.items))
	for _, it := range s.items {
		if it.isText() {
			out = append(out, event.Item{Text: it.Text, Name: pick.ClipboardTextName})
		} else {
			out = append(out, event.Item{Path: it.Path})
		}
	}
	return out
}

// preview is the start of text on one line, for a list row.
func preview(text string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= n {
		return "“" + s + "”"
	}
	r := []rune(s)
	return "“" + string(r[:n]) + "…”"
}

// showTextsIn shows res's texts in the result of p.
func (v *receiveView) showTextsIn(p *progressPanel, res app.Result) {
	if len(res.Texts) == 0 {
		return
	}
	clip, text := res.Clipboard(false)
	auto := v.u.settings.textsToClipboard() && clip == app.ClipPut
	if auto {
		v.u.cfg.App.Clipboard().SetContent(text)
	}
	for _, t := range res.Texts {
		p.extra.Add(textCard(v.u.cfg.App, t, auto))
	}
	if res.Err == nil && v.u.settings.textsToClipboard() && clip != app.ClipPut {
		p.extra.Add(&widget.Label{
			Text:       "Not put on the clipboard by itself: only texts from trusted devices are. Press Copy if you want it there.",
			Wrapping:   fyne.TextWrapWord,
			SizeName:   theme.SizeNameCaptionText,
			Importance: widget.LowImportance,
		})
	}
}

// clipboardCheck is the setting's box.
func newClipboardCheck() *widget.Check {
	return widget.NewCheck("Put texts from trusted devices on the clipboard", nil)
}

// textsToClipboard is the stored setting (off by default).
func (v *settingsView) textsToClipboard() bool {
	return v.prefs().BoolWithFallback(prefTextsToClipboard, false)
}

const prefTextsToClipboard = "textsToClipboard"

// sendClipboardButton is the Send view's button.
func (v *sendView) sendClipboardButton() fyne.CanvasObject {
	return widget.NewButtonWithIcon("Send clipboard", theme.ContentPasteIcon(), v.addClipboard)
}

// addClipboardShortcut makes Ctrl+Shift+V (Cmd+Shift+V on macOS) press
// Send clipboard, wherever the person is: Ctrl+V alone belongs to the
// text fields.
func (u *UI) addClipboardShortcut() {
	u.cfg.Window.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyV, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift},
		func(fyne.Shortcut) { u.send.addClipboard() })
}
