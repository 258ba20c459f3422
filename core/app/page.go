//go:build !js

package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
)

// servePage binds addr (host:port; "" is every interface, any free port)
// and serves the browser page there (core/web): beside Ferry senders
// for a receiver (which closes it when it closes), or alone with
// toBrowser, for a page that receives.
func (n *Node) servePage(addr string, toBrowser bool) (*web.Mux, error) {
	if n.cfg.PageFiles == nil {
		return nil, errors.New("this ferry has no browser page")
	}
	if addr == "" {
		addr = ":0"
	}
	srv, err := web.NewServer(web.Config{Name: n.Name(), ToBrowser: toBrowser, Files: n.cfg.PageFiles})
	if err != nil {
		return nil, fmt.Errorf("preparing the browser page: %w", err)
	}
	ln, err := transfer.Listen(addr) // its error carries its kind (address_in_use)
	if err != nil {
		return nil, err
	}
	return web.NewMux(ln, srv), nil
}

// Page is the browser page served alone on a port of its own for a
// browser that receives (send --to-browser, the app's "Send to a
// phone"), with the code its links carry. A send to it (SendConfig.Page)
// goes to the first page that opens a link and proves the code.
type Page struct {
	mux   *web.Mux
	code  string
	event event.Page

	mu    sync.Mutex
	cuts  int  // sends to the page cut after a page proved the code
	again bool // the last send was such a cut, and the page still serves
}

// MaxPageCuts is how many sends to one Page may be cut, after a page
// proved the code, with the page left served for a send again (Again).
// Each send again lets MaxListenerGuesses more connections test the code
// (about 40 bits): a bound, since only someone who can cut the page's
// connection makes a cut.
const MaxPageCuts = 8

// ServePage serves the page alone on listen (host:port; "" is every
// interface, any free port), where only browsers may connect, with a
// fresh code of twelve digits (about 40 bits: nobody types it, since
// the link carries it, and a guesser gets the few tries of
// send.MaxListenerGuesses). hosts are the addresses its links name,
// best first ("localhost" when there is none). The caller closes it; a
// send to it closes it too when the send ends.
func (n *Node) ServePage(listen string, hosts []string) (*Page, error) {
	m, err := n.servePage(listen, true)
	if err != nil {
		return nil, err
	}
	code := web.LinkCode()
	return &Page{mux: m, code: code, event: pageEvent(m, hosts, code, n.Fingerprint())}, nil
}

// Event is what a front end shows of the page: its links (the first the
// one to scan, as a QR code) and the hashes of what it serves.
func (p *Page) Event() event.Page { return p.event }

// Port is the page's TCP port.
func (p *Page) Port() int { return p.mux.Port() }

// Close stops serving the page and ends a send's wait for it; it may be
// called more than once.
func (p *Page) Close() error { return p.mux.Close() }

// Again says that the last send to the page was cut after a page proved
// the code (the connection was lost: the page was closed or reloaded, or
// its phone stopped it behind a locked screen), and that the page is
// still served, so that a front end may offer to send the same items
// again: the page that comes back (the same link, reloaded) gets them.
// A page keeps no part of a cut file, so everything goes again. The
// front end that does not send again closes the page. After MaxPageCuts
// cuts, or any other end, the send closed the page and Again is false.
func (p *Page) Again() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.again
}

// closeWith closes the page when ctx ends, which ends a send's wait for
// a page in Accept; stop undoes it.
func (p *Page) closeWith(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() { p.mux.Close() })
}

// pageEvent is the Page event of the page m serves, with one link per
// address in hosts for code.
func pageEvent(m *web.Mux, hosts []string, code, fp string) event.Page {
	srv := m.Server()
	return event.Page{Links: web.Links(hosts, m.Port(), code, fp), PageSHA256: srv.PageHash,
		WasmSHA256: srv.WasmHash, HasWasm: srv.HasWasm}
}

// sendTo has a send (tc) wait for a browser on the page p, with the
// page's code, and returns what ends the page once the send has ended
// with err: it closes the page, unless a page proved the code and then
// the connection was lost (see Again); the page also closes with ctx. A
// nil p leaves tc as it is.
func (p *Page) sendTo(ctx context.Context, tc *send.SendConfig) (end func(err error)) {
	if p == nil {
		return func(error) {}
	}
	tc.Listener, tc.Code = p.mux, p.code
	stop := p.closeWith(ctx)
	return func(err error) {
		// A send on the page's listener goes on accepting until a page
		// proves the code, so a connection lost that ends it was a proven
		// page's. The closeWith above has not fired if stop stops it.
		cut := errkind.Of(err) == errkind.ConnectionLost && stop()
		p.mu.Lock()
		if cut {
			p.cuts++
		}
		p.again = cut && p.cuts <= MaxPageCuts
		keep := p.again
		p.mu.Unlock()
		if !keep {
			stop()
			p.Close()
		}
	}
}
