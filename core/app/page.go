package app

import (
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
)

// servePage binds addr (host:port; "" is every interface, any free port)
// and serves the browser page there: beside Ferry senders for a
// receiver (which closes it when it closes), or alone with toBrowser,
// for a page that receives.
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

// ServePage serves the page alone on addr, for a browser that receives
// (send --to-browser, the app's "Send to a phone"). The caller closes
// the Mux.
func (n *Node) ServePage(addr string, toBrowser bool) (*web.Mux, error) {
	return n.servePage(addr, toBrowser)
}

// PageLinks are the page's links for code: one per address (IPs;
// "localhost" when there is none), the first the one to scan.
func PageLinks(addrs []string, port int, code, fp string) []string {
	if len(addrs) == 0 {
		addrs = []string{"localhost"}
	}
	links := make([]string, len(addrs))
	for i, a := range addrs {
		links[i] = web.Link(a, port, code, fp)
	}
	return links
}

func pageEvent(srv *web.Server, addrs []string, port int, code, fp string) event.Page {
	return event.Page{Links: PageLinks(addrs, port, code, fp), PageSHA256: srv.PageHash,
		WasmSHA256: srv.WasmHash, HasWasm: srv.HasWasm}
}
