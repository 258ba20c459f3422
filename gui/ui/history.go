package ui

// The History tab: the recent transfers, sent and received, from
// core/history's store (the Node's: the file `ferry history` reads, so
// the CLI's transfers show here too). The Node records every send and
// receive of the app as it ends (core/app), asking KeepHistory first.
//
// Decisions: a row says what (the first name and how many more, the
// size), with whom and which way, when, where it went (received: the
// folder it was saved in; sent: the folder it came from), and the result
// in words (Verified, Declined, Cancelled, or Failed with the kind, as the
// CLI's --json kinds read). "Show in folder" opens that folder in the
// file manager (Config.OpenFolder), and is off when there is no folder
// (text alone) or it is gone. Clear asks first, then empties the file;
// the files themselves stay where they are. "Record new transfers" turns
// recording off and on at once (a preference, default on; not a Settings
// field waiting for Save, since it is about the list right above it).
// Writes, which lock and sync the file, run off the UI goroutine; the list
// is read again when the tab is shown and after each record.

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/present"
	"github.com/ferry-project/ferry/core/app/stores"
)

// prefKeepHistory is the "Record new transfers" box: on by default.
const prefKeepHistory = "keepHistory"

type historyView struct {
	u    *UI
	root fyne.CanvasObject

	list  *widget.List
	rows  map[*fyne.Container]*historyRow // the list's row templates
	recs  []event.History
	note  *widget.Label // why the list is empty, or what went wrong
	keep  *widget.Check
	clear *widget.Button
	// now is the clock rows are dated against (demo mode fixes it).
	now func() time.Time
	// warning is what the Node warned about the last transfer (Warn),
	// said once more by the next load.
	warning    string
	warningImp widget.Importance
}

func newHistoryView(u *UI) *historyView {
	v := &historyView{u: u, now: time.Now, rows: map[*fyne.Container]*historyRow{}}
	v.list = widget.NewList(func() int { return len(v.recs) }, v.newRow, v.updateRow)
	v.note = &widget.Label{Wrapping: fyne.TextWrapWord, Importance: widget.LowImportance}
	v.keep = widget.NewCheck("Record new transfers", func(on bool) {
		v.u.cfg.App.Preferences().SetBool(prefKeepHistory, on)
	})
	v.keep.SetChecked(v.keeping())
	v.clear = widget.NewButtonWithIcon("Clear…", theme.DeleteIcon(), v.askClear)
	v.clear.Importance = widget.LowImportance
	top := container.NewVBox(
		container.NewBorder(nil, nil, heading("Recent transfers"), container.NewHBox(v.keep, v.clear)),
		v.note)
	v.root = container.NewBorder(container.NewPadded(top), nil, nil, nil, v.list)
	return v
}

// keeping says whether new transfers are recorded.
func (v *historyView) keeping() bool {
	return v.u.cfg.App.Preferences().BoolWithFallback(prefKeepHistory, true)
}

// historyRow is one row's widgets, kept in the template.
type historyRow struct {
	icon  *widget.Icon
	title *widget.Label
	sub   *widget.Label
	where *widget.Label
	show  *widget.Button
}

func (v *historyView) newRow() fyne.CanvasObject {
	r := &historyRow{
		icon:  widget.NewIcon(theme.DownloadIcon()),
		title: &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, Truncation: fyne.TextTruncateEllipsis},
		sub:   &widget.Label{SizeName: theme.SizeNameCaptionText, Truncation: fyne.TextTruncateEllipsis},
		where: &widget.Label{SizeName: theme.SizeNameCaptionText, Truncation: fyne.TextTruncateEllipsis, Importance: widget.LowImportance},
		show:  widget.NewButtonWithIcon("Show in folder", theme.FolderOpenIcon(), nil),
	}
	r.show.Importance = widget.LowImportance
	row := container.NewBorder(nil, nil, r.icon, container.NewCenter(r.show),
		container.New(layout.NewCustomPaddedVBoxLayout(0), r.title, r.sub, r.where))
	v.rows[row] = r
	return row
}

func (v *historyView) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(v.recs) {
		return
	}
	rec, r := v.recs[i], v.rows[o.(*fyne.Container)]
	icon := theme.DownloadIcon()
	if rec.Direction == stores.HistorySent {
		icon = theme.UploadIcon()
	}
	switch rec.Outcome {
	case stores.HistoryVerified:
		r.icon.SetResource(theme.NewSuccessThemedResource(icon))
	case stores.HistoryFailed:
		r.icon.SetResource(theme.NewErrorThemedResource(icon))
	default:
		r.icon.SetResource(theme.NewDisabledResource(icon))
	}
	r.title.SetText(historyWhat(rec))
	r.sub.SetText(historyWho(rec) + "  ·  " + historyWhen(rec.Time().Local(), v.now()) + "  ·  " + historyResult(rec))
	r.where.SetText(historyWhere(rec))
	folder := rec.Folder
	r.show.OnTapped = func() { v.showFolder(folder) }
	if _, err := os.Stat(folder); folder == "" || err != nil {
		r.show.Disable()
	} else {
		r.show.Enable()
	}
}

// historyWhat is "photos and 2 more  ·  1.20 MB".
func historyWhat(r event.History) string {
	what := "Nothing offered"
	if len(r.Names) > 0 {
		what = r.Names[0]
		if more := present.MoreNames(r); more > 0 {
			what += " and " + strconv.Itoa(more) + " more"
		}
	}
	if present.HasSize(r) {
		what += "  ·  " + formatBytes(r.Bytes)
	}
	return what
}

func historyWho(r event.History) string {
	who := cmp.Or(present.Who(r), "an unknown device")
	if r.Direction == stores.HistorySent {
		who = "To " + who
	} else {
		who = "From " + who
	}
	if r.Auth == stores.HistoryByTrust {
		who += " (trusted)"
	}
	return who
}

// historyWhen is "Today 10:37", "Dec 3, 10:37", or "Dec 3, 2025".
func historyWhen(at, now time.Time) string {
	switch {
	case at.Year() == now.Year() && at.YearDay() == now.YearDay():
		return "Today " + at.Format("15:04")
	case at.Year() == now.Year():
		return at.Format("Jan 2, 15:04")
	}
	return at.Format("Jan 2, 2006")
}

func historyResult(r event.History) string {
	switch r.Outcome {
	case stores.HistoryVerified:
		return "Verified"
	case stores.HistoryDeclined:
		return "Declined"
	case stores.HistoryCancelled:
		return "Cancelled"
	}
	return "Failed: " + strings.ReplaceAll(r.ErrorKind, "_", " ")
}

func historyWhere(r event.History) string {
	switch {
	case r.Folder == "":
		return ""
	case r.Direction == stores.HistorySent:
		return "From " + r.Folder
	}
	return "Saved in " + r.Folder
}

func (v *historyView) showFolder(dir string) {
	if err := v.u.cfg.OpenFolder(dir); err != nil {
		dialog.ShowError(fmt.Errorf("couldn't open %s: %w", dir, unwrapAll(err)), v.u.cfg.Window)
	}
}

// load reads the history again and shows it.
func (v *historyView) load() {
	v.recs = nil
	s := v.u.hist
	if s == nil {
		v.say("The history is off in this build.", widget.LowImportance)
		v.clear.Disable()
		v.keep.Disable()
		v.list.Refresh()
		return
	}
	recs, aside, err := s.List()
	v.recs = recs
	switch {
	case err != nil:
		v.say("Can't read the history: "+err.Error(), widget.DangerImportance)
	case aside != nil:
		v.say("The history file was damaged, so a new one was started. The old one is kept as "+aside.Path+".", widget.WarningImportance)
	case len(recs) == 0 && !v.keeping():
		v.say("No transfers recorded. Recording is off: tick “Record new transfers” to keep a list.", widget.LowImportance)
	case len(recs) == 0:
		v.say("No transfers yet. Each one you send or receive is listed here, with where it went.", widget.LowImportance)
	default:
		v.say("", widget.LowImportance)
	}
	if len(recs) == 0 {
		v.clear.Disable()
	} else {
		v.clear.Enable()
	}
	if v.warning != "" {
		v.say(v.warning, v.warningImp)
		v.warning = ""
	}
	v.list.Refresh()
}

func (v *historyView) say(text string, imp widget.Importance) {
	v.note.Importance = imp
	v.note.SetText(text)
	if text == "" {
		v.note.Hide()
	} else {
		v.note.Show()
	}
}

// askClear confirms, then empties the history off the UI goroutine.
func (v *historyView) askClear() {
	n := len(v.recs)
	dialog.ShowConfirm("Clear the history?",
		fmt.Sprintf("The list of %s is forgotten, here and in `ferry history`. The files stay where they are.", plural(n, "transfer", "transfers")),
		func(ok bool) {
			if ok {
				v.clearNow()
			}
		}, v.u.cfg.Window)
}

func (v *historyView) clearNow() {
	s := v.u.hist
	if s == nil {
		return
	}
	v.clear.Disable()
	v.u.goroutine(func() {
		_, _, err := s.Clear()
		v.u.do(func() {
			v.load()
			if err != nil {
				v.say("Couldn't clear the history: "+err.Error(), widget.DangerImportance)
			}
		})
	})
}

// recorded shows the list again after a transfer ended: the Node
// recorded it (unless recording is off), as it ends, before its last
// event.
func (u *UI) recorded() {
	if u.hist == nil || !u.history.keeping() {
		return
	}
	u.history.load()
	u.refreshTray() // its recent transfers are the history's
}

// Warn is told the Node's warnings (its Config.OnWarning, from any
// goroutine): a transfer the history did not take as it should is said
// on the History tab, as the list is read again after it. The others
// (an advertisement that failed, say) cost the person nothing to act on
// here; the app logs them.
func (u *UI) Warn(err error) {
	var he *app.HistoryError
	if !errors.As(err, &he) || u.ctx.Err() != nil {
		return
	}
	text, imp := "This transfer isn't in the history: "+he.Err.Error(), widget.DangerImportance
	if he.Aside != nil {
		text, imp = "The history file was damaged, so a new one was started. The old one is kept as "+he.Aside.Path+".", widget.WarningImportance
	}
	u.do(func() {
		// Said now, and again by the load that follows the transfer's
		// end (recorded), which would otherwise say the usual.
		u.history.warning, u.history.warningImp = text, imp
		u.history.say(text, imp)
	})
}

// demoHistory fills a fresh history under the temporary folder with
// sample transfers, dated against a fixed clock so that the screenshot is
// the same every run: the person's own history is never read or written.
func (u *UI) demoHistory() error {
	root := filepath.Join(os.TempDir(), "ferry-demo")
	received := filepath.Join(root, "Received")
	if err := os.MkdirAll(received, 0o755); err != nil {
		return err
	}
	s, err := stores.OpenHistory(filepath.Join(root, "config"))
	if err != nil {
		return err
	}
	if _, _, err := s.Clear(); err != nil {
		return err
	}
	now := time.Date(2026, 12, 3, 16, 40, 0, 0, time.Local)
	u.history.now = func() time.Time { return now }
	maya, pixel, nas := demoDevices[0], demoDevices[1], demoDevices[2]
	at := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	recs := []event.History{
		{At: at(now.AddDate(0, -1, -8)), Direction: stores.HistoryReceived, PeerName: nas.Name, PeerFingerprint: nas.Fingerprint, Auth: stores.HistoryByCode,
			Files: 1, Bytes: 734_003_200, Names: []string{"Backup 2026-10.tar"}, Folder: received, Outcome: stores.HistoryFailed, ErrorKind: "connection_lost"},
		{At: at(now.AddDate(0, 0, -2).Add(-3 * time.Hour)), Direction: stores.HistoryReceived, PeerName: pixel.Name, PeerFingerprint: pixel.Fingerprint, Auth: stores.HistoryByTrust,
			Files: 38, Folders: 1, Bytes: 121_634_816, Names: []string{"Camera"}, Folder: received, Outcome: stores.HistoryVerified},
		{At: at(now.AddDate(0, 0, -1)), Direction: stores.HistorySent, PeerName: maya.Name, PeerFingerprint: maya.Fingerprint, Auth: stores.HistoryByCode,
			Files: 1, Bytes: 1_843_200_000, Names: []string{"Interview – final cut.mov"}, Folder: root, Outcome: stores.HistoryDeclined},
		{At: at(now.Add(-2 * time.Hour)), Direction: stores.HistoryReceived, PeerName: maya.Name, PeerFingerprint: maya.Fingerprint, Auth: stores.HistoryByCode,
			Files: 2, Texts: 1, Bytes: 2_424_832, Names: []string{"Quarterly report.pdf", "notes.md", "text.txt"}, Folder: received, Outcome: stores.HistoryVerified},
		{At: at(now.Add(-12 * time.Minute)), Direction: stores.HistorySent, PeerName: pixel.Name, PeerFingerprint: pixel.Fingerprint, Auth: stores.HistoryByTrust,
			Files: 24, Folders: 1, Bytes: 103_800_000, Names: []string{"Holiday photos"}, Folder: root, Outcome: stores.HistoryVerified},
	}
	for _, r := range recs {
		if _, err := s.Add(r); err != nil {
			return err
		}
	}
	u.hist = s
	return nil
}
