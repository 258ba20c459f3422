package ui

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/present"
)

// panelState says what a progress panel shows.
type panelState int

const (
	stateRunning  panelState = iota // connecting or moving bytes
	stateVerified                   // finished, every entry confirmed
	stateFailed                     // ended without completing
)

// progressPanel shows one transfer from connection to result. The Send and
// Receive views each own one. All methods run on the UI goroutine.
type progressPanel struct {
	root *fyne.Container
	runningPanel
	resultPanel

	state   panelState
	sending bool // wording: "sent" or "received"
	entries []event.EntryDone

	conn  event.Connected // the peer, once the handshake succeeded
	trust *widget.Check   // the result's "Trust …" box, when offered
}

// runningPanel is a transfer under way: who, how far, and Cancel.
type runningPanel struct {
	running *fyne.Container
	title   *widget.Label
	peer    *widget.Label
	bar     *widget.ProgressBar
	current *widget.Label
	stats   *widget.Label
	cancel  *widget.Button
}

// resultPanel is a transfer's end: verified, or what went wrong, and
// what the person can do next.
type resultPanel struct {
	result   *fyne.Container
	icon     *widget.Icon
	headline *widget.Label
	advice   *widget.Label
	detail   *widget.Label
	files    *widget.Label
	extra    *fyne.Container // view-specific content, e.g. received texts
	actions  *fyne.Container
}

func newProgressPanel(sending bool) *progressPanel {
	p := &progressPanel{sending: sending}
	p.title = &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, SizeName: theme.SizeNameSubHeadingText}
	p.peer = &widget.Label{Truncation: fyne.TextTruncateEllipsis}
	p.bar = widget.NewProgressBar()
	p.bar.TextFormatter = func() string {
		if p.bar.Max <= 0 {
			return ""
		}
		return fmt.Sprintf("%.0f%%", 100*p.bar.Value/p.bar.Max)
	}
	p.current = &widget.Label{Truncation: fyne.TextTruncateEllipsis}
	p.stats = &widget.Label{}
	p.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), nil)
	p.running = container.NewVBox(p.title, p.peer, widget.NewSeparator(), p.bar, p.current, p.stats,
		container.NewHBox(layout.NewSpacer(), p.cancel))

	p.icon = widget.NewIcon(nil)
	p.headline = &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, SizeName: theme.SizeNameSubHeadingText, Wrapping: fyne.TextWrapWord}
	p.advice = &widget.Label{Wrapping: fyne.TextWrapWord}
	p.detail = &widget.Label{Wrapping: fyne.TextWrapWord, Importance: widget.LowImportance, SizeName: theme.SizeNameCaptionText, Selectable: true}
	p.files = &widget.Label{Wrapping: fyne.TextWrapWord, SizeName: theme.SizeNameCaptionText}
	p.extra = container.NewVBox()
	p.actions = container.NewHBox()
	iconBox := container.NewGridWrap(fyne.NewSquareSize(48), p.icon)
	p.result = container.NewVBox(
		container.NewBorder(nil, nil, container.NewVBox(iconBox), nil, container.NewVBox(p.headline, p.advice)),
		p.files, p.detail, p.extra,
		container.NewHBox(layout.NewSpacer(), p.actions))

	p.root = container.NewStack(p.running, p.result)
	p.result.Hide()
	return p
}

// begin resets the panel for a new transfer.
func (p *progressPanel) begin(title, peer string, onCancel func()) {
	p.state = stateRunning
	p.entries = nil
	p.conn, p.trust = event.Connected{}, nil
	p.title.SetText(title)
	p.peer.SetText(peer)
	p.bar.Max = 1
	p.bar.SetValue(0)
	p.current.SetText("Connecting…")
	p.stats.SetText("")
	p.cancel.OnTapped = onCancel
	p.cancel.Enable()
	p.extra.RemoveAll()
	p.result.Hide()
	p.running.Show()
}

// handle shows one event of the transfer.
func (p *progressPanel) handle(ev event.Event) {
	if p.state != stateRunning {
		return
	}
	switch e := ev.(type) {
	case event.Connected:
		p.conn = e
		if e.PeerName != "" {
			p.peer.SetText(connLine(e))
		}
		if p.sending {
			p.current.SetText("Waiting for the other device to accept…")
		} else {
			p.current.SetText("Connected")
		}
	case event.Accepted:
		if p.sending && e.Offer.Files+e.Offer.Texts > 0 {
			p.title.SetText(p.transferTitle(e.Offer.Files+e.Offer.Texts, e.Offer.TotalBytes))
		}
		p.bar.Max = float64(max(e.TotalBytes, 1))
		p.bar.SetValue(0)
		p.current.SetText("Starting…")
	case event.Offer:
		p.title.SetText(p.transferTitle(e.Files+e.Texts, e.TotalBytes))
		p.bar.Max = float64(max(e.TotalBytes, 1))
		p.bar.SetValue(0)
		p.current.SetText("Waiting for you to accept…")
	case event.Progress:
		p.progress(e)
	case event.EntryDone:
		p.entries = append(p.entries, e)
	}
}

func (p *progressPanel) progress(e event.Progress) {
	p.bar.Max = float64(max(e.Total, 1))
	p.bar.SetValue(float64(e.Done))
	if e.Current != "" {
		p.current.SetText(fmt.Sprintf("%s  (%s of %s)", e.Current, formatBytes(e.CurrentDone), formatBytes(e.CurrentSize)))
	}
	parts := []string{formatBytes(e.Done) + " of " + formatBytes(e.Total)}
	if r := formatRate(e.Rate); r != "" {
		parts = append(parts, r)
	}
	if l := formatLeft(time.Duration(e.ETA * float64(time.Second))); l != "" {
		parts = append(parts, l)
	}
	if e.Entries > 1 {
		parts = append(parts, fmt.Sprintf("item %d of %d", min(e.EntriesDone+1, e.Entries), e.Entries))
	}
	p.stats.SetText(strings.Join(parts, "  ·  "))
}

// finish shows the result: verified, or what went wrong.
func (p *progressPanel) finish(sum event.Summary, err error, actions ...fyne.CanvasObject) {
	p.cancel.OnTapped = nil
	p.actions.Objects = actions
	p.actions.Refresh()
	if len(sum.Entries) > 0 {
		p.entries = sum.Entries
	}
	if err != nil {
		p.state = stateFailed
		pr := explain(err)
		p.icon.SetResource(theme.NewErrorThemedResource(theme.ErrorIcon()))
		p.headline.SetText(pr.Headline)
		p.advice.SetText(pr.Advice)
		p.detail.SetText(sentence(pr.Detail))
		p.detail.Show()
		if n := present.Files(p.entries); n > 0 {
			verb := "received"
			if p.sending {
				verb = "delivered"
			}
			p.files.SetText(fmt.Sprintf("%s %s and verified before it stopped.", plural(n, "file was", "files were"), verb))
			p.files.Show()
		} else {
			p.files.Hide()
		}
	} else {
		p.state = stateVerified
		p.icon.SetResource(theme.NewSuccessThemedResource(theme.ConfirmIcon()))
		p.headline.SetText(p.successHeadline())
		p.advice.SetText(successStats(sum))
		if v := speedVerdict(sum.Verdict); v != "" {
			p.detail.SetText(v)
			p.detail.Show()
		} else {
			p.detail.Hide()
		}
		p.files.SetText(listNames(p.entries, 6))
		p.files.Show()
	}
	p.running.Hide()
	p.result.Show()
}

func (p *progressPanel) successHeadline() string {
	n := present.Files(p.entries)
	what := plural(n, "file", "files")
	if n == 0 && len(p.entries) > 0 { // folders only
		n = len(p.entries)
		what = plural(n, "item", "items")
	}
	if n != 1 {
		what = "All " + what
	}
	if p.sending {
		return what + " sent and verified"
	}
	return what + " received and verified"
}

// transferTitle heads a transfer of files files totalling bytes.
func (p *progressPanel) transferTitle(files int, bytes int64) string {
	verb := "Receiving"
	if p.sending {
		verb = "Sending"
	}
	return fmt.Sprintf("%s %s (%s)", verb, plural(files, "file", "files"), formatBytes(bytes))
}

// successStats says how much moved and how fast, and what didn't need to.
func successStats(sum event.Summary) string {
	var parts []string
	s := formatBytes(sum.Bytes)
	if sum.Duration > 0 {
		s += " in " + formatDuration(sum.Duration)
		if sum.Bytes > 0 {
			s += " (" + formatRate(float64(sum.Bytes)/sum.Duration.Seconds()) + ")"
		}
	}
	parts = append(parts, s)
	if sum.SkippedBytes > 0 {
		parts = append(parts, formatBytes(sum.SkippedBytes)+" already there")
	}
	if sum.ResumedBytes > 0 {
		parts = append(parts, formatBytes(sum.ResumedBytes)+" resumed")
	}
	return strings.Join(parts, "  ·  ")
}

// speedVerdict is core/diag's verdict on what limited the transfer, in
// the result card's small print (sender only: the receiver has no
// verdict). The same line ferry send --diag prints.
func speedVerdict(v string) string {
	if v == "" {
		return ""
	}
	return "What limited the speed: " + strings.TrimPrefix(v, "slowest stage: ")
}

// listNames lists the files of a transfer by the name they were saved
// under, at most limit of them.
func listNames(es []event.EntryDone, limit int) string {
	var names []string
	for _, e := range es {
		if e.Kind == event.KindDir {
			continue
		}
		name := e.SavedAs
		if name == "" {
			name = e.Path
		}
		if e.Outcome == event.Skipped {
			name += " (already there)"
		}
		names = append(names, name)
	}
	if len(names) > limit {
		rest := len(names) - limit
		names = append(names[:limit], fmt.Sprintf("and %d more", rest))
	}
	return strings.Join(names, "\n")
}

// peerLine names a peer with its fingerprint, for people who compare them.
func peerLine(name, fp string) string {
	// A peer chooses its name: a zero-width or bidi character would
	// make it read as another device's, so it is shown escaped.
	name = present.Shown(name, 0, false)
	if fp == "" {
		return name
	}
	return name + "  ·  " + fp
}
