package main

// The browser page (core/web): ferry receive --web serves it on the
// receiver's port so that a phone or computer without ferry can send
// with the link or QR code; ferry send --to-browser serves it so that
// one can receive.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
	"github.com/skip2/go-qrcode"
)

func muxPort(m *web.Mux) int {
	if a, ok := m.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// showPage prints the links (the first is the one to scan), the QR code
// of the first with --qr, and the page's hashes.
func showPage(p *printer, srv *web.Server, links []string, qr bool) {
	p.event(event.Page{Links: links, PageSHA256: srv.PageHash, WasmSHA256: srv.WasmHash, HasWasm: srv.HasWasm})
	if !srv.HasWasm {
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
	p.infof("page sha256 %s", srv.PageHash)
	if srv.HasWasm {
		p.infof("wasm sha256 %s", srv.WasmHash)
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

// linkCode is the code of a --to-browser link: twelve digits (about 40
// bits), since nobody types it.
func linkCode() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000_000_000))
	if err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return fmt.Sprintf("%012d", n.Int64())
}

// maxPageWrongCodes is how many pages with a wrong code ferry send
// --to-browser lets try before it stops: an honest page has the code
// from the link, so a wrong one is someone else's.
const maxPageWrongCodes = 3

// sendToBrowser is ferry send --to-browser: it serves the page, prints
// its link, and sends to the first page that connects with the code (the
// desktop is the handshake's initiator on the WebSocket it accepted; the
// page runs the receiver's side).
func sendToBrowser(ctx context.Context, e *env, p *printer, o sendOpts, items []transfer.Item) error {
	n, err := newNode(e, p, o.name, true, nil) // a send to a page is not recorded
	if err != nil {
		return err
	}
	defer n.Close()
	id, name := n.Identity(), n.Name()
	m, err := n.ServePage(o.listen, true)
	if err != nil {
		return err
	}
	defer m.Close()
	ctx, stop := onSignals(ctx, e.signals, "sender", e.now, func() { forceExit(e, p) })
	defer stop()
	stopClose := context.AfterFunc(ctx, func() { m.Close() })
	defer stopClose()

	host := ""
	if o.listen != "" {
		host, _, _ = net.SplitHostPort(o.listen)
	}
	code := linkCode()
	links := app.PageLinks(shownAddrs(host, o.ifaces), muxPort(m), code, id.Fingerprint())
	p.infof("this device: %s", peerLabel(name, id.Fingerprint()))
	showPage(p, m.Server(), links, o.qr)
	p.infof("waiting for the page: open the link on the other device (or scan the QR code) and press Receive")

	for wrong := 0; ; {
		nc, err := m.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return interrupted(ctx, cancelled(ctx))
			}
			return fmt.Errorf("waiting for the page: %w", err)
		}
		ss := &sendSession{p: p, o: o, pr: newProgress(p, o.progressFor(e.stderrTerminal), e.now), peer: "the page"}
		connected := false
		sum, err := transfer.Send(ctx, transfer.SendConfig{
			Addrs: []string{nc.RemoteAddr().String()}, Code: code, Identity: id, Name: name, Items: items, Diag: o.diag,
			OnEvent: func(ev transfer.Event) {
				if _, ok := ev.(transfer.Connected); ok {
					connected = true
				}
				if ev := event.FromTransfer(ev, event.Sender); ev != nil {
					ss.onEvent(nil, ev)
				}
			},
			Dialer: func(context.Context, string) (net.Conn, error) { return nc, nil },
		})
		ss.pr.finish(err == nil)
		if err == nil {
			p.event(event.NewDone(sum, "sender", o.diag))
			p.infof("sent %s to %s%s, every file confirmed", describeSummary(sum), ss.peer, rateSuffix(sum))
			if o.diag {
				p.infof("diag: sender, whole transfer: %s", event.EndLine("sender", sum.Local, sum.Wall, sum.LocalCPU))
				p.infof("diag: page, whole transfer: %s", event.EndLine("receiver", sum.Remote, sum.RemoteWall, sum.RemoteCPU))
				p.infof("diag: %s", sum.Verdict)
			}
			return nil
		}
		if ctx.Err() != nil || connected {
			return interrupted(ctx, err)
		}
		if errors.Is(err, secure.ErrWrongCode) {
			wrong++
			p.warnf("a page connected with a wrong code (%d of %d allowed): it did not come from this link", wrong, maxPageWrongCodes)
			if wrong >= maxPageWrongCodes {
				return withHint(fmt.Errorf("stopped waiting for the page: %w", transfer.ErrCodesStopped),
					"someone on the network may be guessing the code: run 'ferry send --to-browser' again for a new link")
			}
			continue
		}
		// A connection that failed before its handshake ended (a page
		// closed, a stale tab): wait for the next.
		p.infof("a page connection ended before it was secured: %v", err)
	}
}

func cancelled(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return transfer.ErrCancelled
}
