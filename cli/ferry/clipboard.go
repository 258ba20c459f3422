package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/pick"
	"github.com/ferry-project/ferry/core/clipboard"
)

// The clipboard, both ways (ferry send --clipboard, ferry receive
// --to-clipboard). The ferry command has no cgo, so core/clipboard runs the
// platform's clipboard programs.
//
// Sending: text on the clipboard goes as a text snippet named
// clipboard.txt; an image (wl-paste and xclip can ask for one) goes as a
// PNG file named clipboard-DATE-TIME.png, written to a temporary folder
// that is removed when the command ends. Text wins when the clipboard
// offers both (a copied web page often does). A clipboard with neither is
// an error that sends nothing.
//
// Receiving: a text from a trusted device (paired, no code) goes to the
// clipboard as soon as the transfer ends. A text from a sender that a code
// authenticated is printed, and goes to the clipboard only when the person
// answers yes on the terminal: whoever saw or guessed the code could
// otherwise put a command on the clipboard, to be pasted into a shell.
// Without a terminal (or with --json) such a text is not copied, and a
// warning says so.

// clipboardItem reads the clipboard into an item to send. done removes
// what it wrote to disk.
func clipboardItem(ctx context.Context) (it event.Item, done func(), err error) {
	done = func() {}
	text, terr := clipboard.ReadText(ctx)
	if terr == nil {
		if len(text) > app.MaxTextBytes {
			return it, done, usagef("save it to a file and send the file", "the text on the clipboard is %d bytes, over the limit of %d for a text", len(text), app.MaxTextBytes)
		}
		return event.Item{Text: text, Name: pick.ClipboardTextName}, done, nil
	}
	if errors.Is(terr, clipboard.ErrNoTool) {
		return it, done, withHint(fmt.Errorf("reading the clipboard: %w", terr), clipboardToolHint(terr))
	}
	png, ierr := clipboard.ReadImage(ctx)
	if ierr != nil {
		return it, done, usagef("copy some text or an image first", "nothing to send: the clipboard holds no text or image")
	}
	sp := pick.NewSpool("ferry-clipboard-")
	path, err := sp.ClipboardImage(png, time.Now())
	if err != nil {
		sp.Close()
		return it, done, fmt.Errorf("saving the clipboard's image: %w", err)
	}
	return event.Item{Path: path}, sp.Close, nil
}

// clipboardToolHint is what to install, from core/clipboard's message.
func clipboardToolHint(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return "install a clipboard program (wl-clipboard, xclip or xsel)"
}

// textsToClipboard puts the texts received by the transfer from peer
// that just ended on the clipboard (--to-clipboard), as core/app
// decides: a trusted device's unasked, another's if the person agrees.
// Several texts go as one, separated by blank lines.
func (rs *receiveSession) textsToClipboard(ctx context.Context, res app.Result, peer string) {
	c, text := res.Clipboard(rs.canAsk)
	if c == app.ClipNothing {
		return
	}
	if res.TextsCut {
		rs.p.warnf("only the first %d texts go to the clipboard: the rest would pass %d KiB", len(res.Texts), app.MaxTextBytes>>10)
	}
	switch c {
	case app.ClipNot:
		rs.p.warnf("the text was not put on the clipboard: %s is not a trusted device, and there is no terminal to ask", peer)
		rs.p.stderrHint("only texts from trusted devices go to the clipboard without asking (see 'ferry trust')")
		return
	case app.ClipAsk:
		ok, err := rs.q.confirm(ctx, fmt.Sprintf("put the text from %s on the clipboard?", peer))
		if err != nil || !ok {
			rs.p.infof("the text was not put on the clipboard")
			return
		}
	}
	if err := clipboard.WriteText(ctx, text); err != nil {
		rs.p.warnf("the text was not put on the clipboard: %v", err)
		if errors.Is(err, clipboard.ErrNoTool) {
			rs.p.stderrHint(clipboardToolHint(err))
		}
		return
	}
	rs.p.infof("put the text on the clipboard")
}
