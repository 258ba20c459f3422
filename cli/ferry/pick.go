package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
)

// How long discovery may take before the sender gives up or shows what it
// has. How long one dial may take is core/transfer's to say.
const (
	findTimeout = 5 * time.Second
	listWait    = 2 * time.Second
)

// receiver is where a transfer goes: an address for people and every
// address to dial (for a discovered peer, all it advertised; Send tries
// each in turn).
type receiver struct {
	addr  string
	addrs []string
	label string
	// name and fingerprint are what a discovered peer advertised; both
	// are empty for --to.
	name, fingerprint string
}

func fromPeer(pe nearby.Peer) receiver {
	addrs := pe.DialAddrs()
	if len(addrs) == 0 {
		addrs = []string{net.JoinHostPort(pe.Host, strconv.Itoa(pe.Port))}
	}
	return receiver{
		addr:        addrs[0],
		addrs:       addrs,
		label:       peerLabel(pe.Name, pe.Fingerprint),
		name:        pe.Name,
		fingerprint: pe.Fingerprint,
	}
}

// findReceiver resolves --to, --peer, or, with neither, asks the person to
// pick one of the receivers discovery finds.
func findReceiver(ctx context.Context, p *printer, q *prompter, o sendOpts, store *stores.Trust) (receiver, error) {
	switch {
	case o.to != "":
		return typed(o.to), nil
	case o.peer != "":
		p.infof("looking for %s on the network", o.peer)
		fctx, cancel := context.WithTimeout(ctx, findTimeout)
		defer cancel()
		pe, err := nearby.FindPeer(fctx, o.ifaces, o.peer, mdnsSkips(p, o.ifaces))
		if err != nil {
			if ctx.Err() != nil {
				return receiver{}, context.Cause(ctx)
			}
			return receiver{}, withHint(fmt.Errorf("finding %s on the network: %w", o.peer, err),
				"check that 'ferry receive' is running there (without --no-mdns), run 'ferry peers', or use --to HOST:PORT")
		}
		return fromPeer(pe), nil
	}
	p.infof("looking for receivers on the network")
	peers, err := nearby.ListPeers(ctx, o.ifaces, listWait, mdnsSkips(p, o.ifaces))
	if err != nil {
		if ctx.Err() != nil {
			return receiver{}, context.Cause(ctx)
		}
		return receiver{}, withHint(fmt.Errorf("looking for receivers: %w", err), "use --to HOST:PORT")
	}
	if len(peers) == 0 {
		return receiver{}, withHint(fmt.Errorf("no receivers found on the network"),
			"run 'ferry receive' on the other device, or use --to HOST:PORT")
	}
	return pickPeer(ctx, p, q, peers, store)
}

// pickPeer shows a numbered list and asks for a number. The list is part
// of the question, so --quiet keeps it (output rule 5).
func pickPeer(ctx context.Context, p *printer, q *prompter, peers []nearby.Peer, store *stores.Trust) (receiver, error) {
	for i, pe := range peers {
		mark := ""
		if _, st := nearby.TrustWords(store, pe.Name, pe.Fingerprint); st != "" {
			mark = "  [" + st + "]"
		}
		p.listf("%2d. %s  %s%s", i+1, peerLabel(pe.Name, pe.Fingerprint), strings.Join(pe.DialAddrs(), ", "), mark)
	}
	question := fmt.Sprintf("send to which device? [1-%d] ", len(peers))
	if len(peers) == 1 {
		question = "send to this device? [1] "
	}
	for range 3 {
		s, err := q.ask(ctx, question)
		if err != nil {
			return receiver{}, err
		}
		if s == "" && len(peers) == 1 {
			s = "1"
		}
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(peers) {
			return fromPeer(peers[n-1]), nil
		}
		p.listf("type a number from 1 to %d", len(peers))
	}
	return receiver{}, usagef("run 'ferry peers' to see them, then pass --peer NAME", "no device picked")
}

// typed is a receiver given as host:port.
func typed(addr string) receiver {
	return receiver{addr: addr, addrs: []string{addr}, label: addr}
}
