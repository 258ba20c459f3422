package main

// The browser page, as core/app serves it: ferry receive --web serves
// it on the receiver's port so that a phone or computer without ferry
// can send with the link or QR code; ferry send --to-browser serves it
// so that one can receive. This file only prints the page's links and
// words what happens.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/skip2/go-qrcode"
)

// showPage prints the links (the first is the one to scan), the QR code
// of the first with --qr, and the page's hashes.
func showPage(p *printer, ev event.Page, qr bool) {
	links := ev.Links
	p.event(ev)
	if !ev.HasWasm {
		p.warnf("this ferry was built without the browser page (ferry.wasm): the link opens a page that says so")
		p.stderrHint("build ferry with 'make ferry' to include it")
	}
	if p.quiet && !p.json {
		// The link carries the code, which --quiet still shows.
		p.noticef("link %s", links[0])
	} else {
		for _, l := range links {
			p.infof("link %s", l)
		}
	}
	if qr && !p.json {
		lines, err := qrLines(links[0])
		if err != nil {
			p.warnf("cannot draw the QR code: %v", err)
		} else {
			for _, l := range lines {
				p.stderrLine(l)
			}
		}
	}
	p.infof("page sha256 %s", ev.PageSHA256)
	if ev.HasWasm {
		p.infof("wasm sha256 %s", ev.WasmSHA256)
	}
}

// qrLines draws a QR code of s with half blocks, two rows of modules per
// line, with its quiet zone. Light modules are drawn as blocks: a
// terminal's text is light on dark far more often than not, and the
// blocks then show dark modules on a light field, as a printed code does
// (scanners read the inverse too, most of them).
func qrLines(s string) ([]string, error) {
	q, err := qrcode.New(s, qrcode.Low)
	if err != nil {
		return nil, err
	}
	bm := q.Bitmap() // true is a dark module; the quiet zone is included
	light := func(y, x int) bool { return y >= len(bm) || !bm[y][x] }
	var lines []string
	for y := 0; y < len(bm); y += 2 {
		var b strings.Builder
		for x := range bm[y] {
			top, bottom := light(y, x), light(y+1, x)
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteString(" ")
			}
		}
		lines = append(lines, b.String())
	}
	return lines, nil
}

// sendToBrowser is ferry send --to-browser: core/app serves the page
// and sends to the first page that connects and proves the code (the
// desktop is the handshake's initiator on the WebSocket it accepted;
// the page runs the receiver's side); this prints its link and the
// transfer. Core counts the guesses: after app.MaxListenerGuesses
// connections that could test the code without proving it, it stops.
func sendToBrowser(ctx context.Context, e *env, p *printer, o sendOpts, items []event.Item) error {
	n, err := newNode(e, p, o.name, true, nil) // a send to a page is not recorded
	if err != nil {
		return err
	}
	defer n.Close()
	host := ""
	if o.listen != "" {
		host, _, _ = net.SplitHostPort(o.listen)
	}
	page, err := n.ServePage(o.listen, shownAddrs(host, o.ifaces))
	if err != nil {
		return err
	}
	defer page.Close()
	ctx, stop := onSignals(ctx, e.signals, "sender", e.now, func() { forceExit(e, p) })
	defer stop()

	p.infof("this device: %s", peerLabel(n.Name(), n.Fingerprint()))
	showPage(p, page.Event(), o.qr)
	p.infof("waiting for the page: open the link on the other device (or scan the QR code) and press Receive")

	var (
		ss  *sendSession
		sum event.Summary
	)
	for {
		ss = &sendSession{p: p, o: o, pr: newProgress(p, o.progressFor(e.stderrTerminal), e.now), peer: "the page"}
		res := n.Send(ctx, app.SendConfig{
			Items: items, Page: page, Diag: o.diag,
			OnEvent: func(t *app.Transfer, ev event.Event) {
				ss.onEvent(t, ev)
				if u, ok := ev.(event.Unproven); ok {
					pageUnproven(p, u)
				}
			},
		}).Wait()
		sum, err = res.Summary, res.Err
		ss.pr.finish(err == nil)
		// A page that went away mid-send (closed, reloaded, or stopped
		// behind a locked screen) keeps no part of a cut file; core keeps
		// the page served for it to come back (app.Page.Again).
		if err == nil || ctx.Err() != nil || !page.Again() {
			break
		}
		p.warnf("the page went away before every file arrived: %v", err)
		p.infof("waiting for the page again: reload it or open the link again, and press Receive: everything is sent again")
	}
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, err)
		}
		if errors.Is(err, app.ErrCodesStopped) {
			return withHint(fmt.Errorf("stopped waiting for the page: %w", err),
				"someone on the network may be guessing the code: run 'ferry send --to-browser' again for a new link")
		}
		return err
	}
	p.infof("sent %s to %s%s, every file confirmed", describeSummary(sum), ss.peer, rateSuffix(sum))
	if o.diag {
		p.infof("diag: sender, whole transfer: %s", sum.LocalLine(event.Sender))
		p.infof("diag: page, whole transfer: %s", sum.RemoteLine())
		p.infof("diag: %s", sum.Verdict)
	}
	return nil
}

// pageUnproven says why a page connection ended before it proved the
// code: one that could test the code counts against the link (core's
// SendConfig.Page), one that ended sooner does not.
func pageUnproven(p *printer, u event.Unproven) {
	if !u.Guessed {
		p.infof("a page connection ended before it was secured: %v", u.Err)
		return
	}
	if errors.Is(u.Err, app.ErrWrongCode) {
		p.warnf("a page connected with a wrong code (%d of %d allowed): it did not come from this link", u.Wrong, u.Allowed)
		return
	}
	p.warnf("a page connection ended without proving the code (%d of %d allowed): it may be someone guessing it", u.Wrong, u.Allowed)
}

func cancelled(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return app.ErrCancelled
}
