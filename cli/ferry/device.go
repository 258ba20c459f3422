package main

import (
	"errors"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/gui/page"
)

// newNode starts this device (core/app): its key, trust store and
// history, named --name or else the host name. Its warnings go to
// stderr.
func newNode(e *env, p *printer, name string, noHistory bool, ifaces []string) (*app.Node, error) {
	return app.New(app.Config{
		Name: name, NoHistory: noHistory || historyOff(e), PageFiles: page.Files, Ifaces: ifaces, StartedByPerson: true,
		OnSkip: mdnsSkips(p, ifaces), OnWarning: func(err error) { nodeWarning(p, err) }, Now: e.now,
	})
}

// nodeWarning words a problem that costs a convenience, not the transfer.
func nodeWarning(p *printer, err error) {
	var adv *app.AdvertiseError
	if errors.As(err, &adv) {
		p.warnf("cannot advertise on the network, senders need --to: %v", adv.Err)
		return
	}
	p.warnf("%v", err)
	if errors.Is(err, stores.ErrHistoryVersion) {
		p.stderrHint("update ferry, or pass --no-history (FERRY_NO_HISTORY=1) to stop trying")
	}
}
