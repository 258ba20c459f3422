package ui

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/nearby"
)

// readyPanel is the Receive view while the receiver waits: the code, the
// QR code that opens the browser page, the addresses and where files go.
type readyPanel struct {
	ready    *fyne.Container
	body     fyne.CanvasObject // the QR code beside the code
	foot     fyne.CanvasObject // where files go
	codeText *canvas.Text
	why      *widget.Label // a Notice of the receiver's: why the code is longer than 6 digits
	name     *widget.Label
	addrs    *widget.Label
	fp       *widget.Label
	saveTo   *widget.Label
	qr       *canvas.Image
	link     string
	code     string
}

func newReadyPanel(openFolder func()) readyPanel {
	p := readyPanel{}
	p.codeText = canvas.NewText("······", theme.Color(theme.ColorNameForeground))
	p.codeText.TextSize = 60
	p.codeText.TextStyle = fyne.TextStyle{Bold: true}
	p.why = &widget.Label{Wrapping: fyne.TextWrapWord, Importance: widget.WarningImportance, SizeName: theme.SizeNameCaptionText}
	p.why.Hide()
	p.name = &widget.Label{Truncation: fyne.TextTruncateEllipsis}
	p.addrs = &widget.Label{Selectable: true, SizeName: theme.SizeNameCaptionText}
	p.fp = &widget.Label{SizeName: theme.SizeNameCaptionText}
	p.saveTo = &widget.Label{Truncation: fyne.TextTruncateEllipsis}
	openBtn := widget.NewButtonWithIcon("Open folder", theme.FolderOpenIcon(), openFolder)
	p.qr = newQRCanvas()
	codeBox := container.NewVBox(
		&widget.Label{Text: "Code", TextStyle: fyne.TextStyle{Bold: true}},
		p.codeText,
		p.why,
		&widget.Label{Text: "Type it on the sending device,\nor scan the QR code with a phone.", Wrapping: fyne.TextWrapOff},
		p.addrs,
		p.fp,
	)
	p.body = container.NewBorder(nil, nil, container.NewPadded(p.qr), nil, container.NewPadded(codeBox))
	p.foot = container.NewBorder(widget.NewSeparator(), nil, nil, openBtn, p.saveTo)
	return p
}

func (p *readyPanel) readyTitle() *widget.Label {
	return &widget.Label{Text: "Ready to receive", TextStyle: fyne.TextStyle{Bold: true}, SizeName: theme.SizeNameHeadingText}
}

// showReady fills in the name, the code, the QR code and where files
// will go.
func (p *readyPanel) showReady(name, code string, port int, dir string, hosts []string, fp string) {
	p.name.SetText("This device appears to others as “" + name + "”.")
	p.fp.SetText("Fingerprint " + fp)
	p.saveTo.SetText("Saving to " + dir)
	var addrs []string
	for _, h := range hosts {
		addrs = append(addrs, net.JoinHostPort(h, strconv.Itoa(port)))
	}
	if len(addrs) == 0 {
		p.addrs.SetText("No network address: connect to a network to receive")
	} else {
		if len(addrs) > 3 {
			addrs = addrs[:3]
		}
		p.addrs.SetText("Address " + strings.Join(addrs, ", "))
	}
	p.setCode(code, port, hosts, fp)
}

// showNotice shows a receiver's Notice beside the code: why the code is
// longer than 6 digits.
func (p *readyPanel) showNotice(text string) {
	p.why.SetText(text)
	p.why.Show()
}

// setCode shows a code and the matching QR code.
func (p *readyPanel) setCode(code string, port int, hosts []string, fp string) {
	p.code = code
	p.codeText.Text = code
	p.codeText.Color = theme.Color(theme.ColorNameForeground)
	p.codeText.Refresh()
	host := "127.0.0.1"
	if len(hosts) > 0 {
		host = hosts[0]
	}
	p.link = nearby.PageLink(host, port, code, fp)
	if img, err := qrImage(p.link); err == nil {
		p.qr.Image = img
		p.qr.Refresh()
	}
}

// refusalNotice is the last refused code-less sender, while the receiver
// goes on waiting: one notice, replaced by the next refusal, never a
// dialog (anyone on the network can provoke one).
type refusalNotice struct {
	notice     *fyne.Container
	noticeHead *widget.Label
	noticeText *widget.Label
	refusals   int // refused senders since the notice was last cleared
}

func newRefusalNotice(dismissed func()) refusalNotice {
	n := refusalNotice{
		noticeHead: &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, Importance: widget.WarningImportance},
		noticeText: &widget.Label{Wrapping: fyne.TextWrapWord},
	}
	dismiss := widget.NewButtonWithIcon("", theme.CancelIcon(), dismissed)
	dismiss.Importance = widget.LowImportance
	n.notice = container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil,
		widget.NewIcon(theme.NewWarningThemedResource(theme.WarningIcon())), dismiss,
		container.NewVBox(n.noticeHead, n.noticeText)))
	n.notice.Hide()
	return n
}

// refused shows a sender refused without a code, in place of the
// previous notice. The receiver is still waiting, with the same code;
// the view stays where it is.
func (n *refusalNotice) refused(text string) {
	n.refusals++
	head := "Refused a sender without a code"
	if n.refusals > 1 {
		head = fmt.Sprintf("Refused %d senders without a code; the latest:", n.refusals)
	}
	n.noticeHead.SetText(head)
	n.noticeText.SetText(text)
	n.notice.Show()
}

func (n *refusalNotice) clearRefusals() {
	n.refusals = 0
	n.notice.Hide()
}

// codesNotice is the guess budget's state while the receiver waits:
// wrong codes hold codes back for a while (CodesHeld), then stop them
// until the person asks for a new one here (CodesStopped).
type codesNotice struct {
	codes     *fyne.Container
	codesHead *widget.Label
	codesText *widget.Label
	newCode   *widget.Button
}

func newCodesNotice(askNewCode func()) codesNotice {
	c := codesNotice{
		codesHead: &widget.Label{TextStyle: fyne.TextStyle{Bold: true}, Importance: widget.WarningImportance},
		codesText: &widget.Label{Wrapping: fyne.TextWrapWord},
		newCode:   widget.NewButtonWithIcon("New code", theme.ViewRefreshIcon(), askNewCode),
	}
	c.newCode.Importance = widget.HighImportance
	c.codes = container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil,
		widget.NewIcon(theme.NewWarningThemedResource(theme.WarningIcon())), nil,
		container.NewVBox(c.codesHead, c.codesText, container.NewHBox(layout.NewSpacer(), c.newCode))))
	c.codes.Hide()
	return c
}

func (c *codesNotice) codesHeld(e event.CodesHeld) {
	c.codesHead.SetText(fmt.Sprintf("%s tried", plural(e.Wrong, "wrong code", "wrong codes")))
	c.codesText.SetText(fmt.Sprintf("No code is checked before %s: someone who types the right one sooner is asked to wait. If these were not your mistakes, someone nearby may be guessing the code.",
		localClock(e.Until)))
	c.newCode.Hide()
	c.codes.Show()
}

func (c *codesNotice) codesStopped(e event.CodesStopped) {
	c.codesHead.SetText("Stopped taking codes")
	c.codesText.SetText(fmt.Sprintf("%s were tried on this device: someone on the network may be guessing the code. No code works until you ask for a new one (it will be longer); trusted devices can still send.",
		plural(e.Wrong, "wrong code", "wrong codes")))
	c.newCode.Show()
	c.newCode.Enable()
	c.codes.Show()
}

// localClock is an event's RFC 3339 time as a clock on this device.
func localClock(rfc3339 string) string {
	at, err := time.Parse(time.RFC3339Nano, rfc3339)
	if err != nil {
		return rfc3339
	}
	return at.Local().Format("15:04:05")
}
