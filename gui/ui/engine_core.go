package ui

import (
	"context"
	"fmt"

	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
	"github.com/ferry-project/ferry/gui/page"
)

// CoreEngine runs transfers with core/transfer. Its receivers also serve
// the browser page (core/web) on their port, so the QR code the Receive
// view shows opens on any phone.
type CoreEngine struct{}

func (CoreEngine) Send(ctx context.Context, cfg transfer.SendConfig) (transfer.Summary, error) {
	return transfer.Send(ctx, cfg)
}

func (CoreEngine) NewReceiver(cfg transfer.ReceiverConfig) (Receiver, error) {
	var mux *web.Mux
	if cfg.Listener == nil && !cfg.NoListen {
		var err error
		if mux, err = pageListener(cfg.Listen, cfg.Name, false); err != nil {
			return nil, err
		}
		cfg.Listener = mux
	}
	r, err := transfer.NewReceiver(cfg)
	if err != nil {
		if mux != nil {
			mux.Close()
		}
		return nil, err
	}
	return r, nil
}

// pageListener binds addr and serves the browser page there: beside
// Ferry senders for a receiver (which closes it when it closes), or alone
// with toBrowser, for a page that receives (phone.go).
func pageListener(addr, name string, toBrowser bool) (*web.Mux, error) {
	srv, err := web.NewServer(web.Config{Name: name, ToBrowser: toBrowser, Files: page.Files})
	if err != nil {
		return nil, fmt.Errorf("preparing the browser page: %w", err)
	}
	ln, err := transfer.Listen(addr) // its error carries its kind
	if err != nil {
		return nil, err
	}
	return web.NewMux(ln, srv), nil
}
