package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/trust"
)

type peersOpts struct {
	timeout positiveDuration
	ifaces  stringList
	json    bool
}

func parsePeers(args []string) (peersOpts, error) {
	o := peersOpts{timeout: positiveDuration(3 * time.Second)}
	fs := newFlagSet("peers")
	fs.Var(&o.timeout, "timeout", "")
	fs.Var(&o.ifaces, "iface", "")
	fs.BoolVar(&o.json, "json", false, "")
	operands, err := parseArgs(fs, args)
	if err != nil {
		return o, err
	}
	if err := checkIfaces(o.ifaces); err != nil {
		return o, err
	}
	if len(operands) > 0 {
		return o, usagef("run 'ferry peers --help' for usage", "unexpected argument %q", operands[0])
	}
	return o, nil
}

// cmdPeers lists what discovery sees. Finding nothing is an answer, not a
// failure: the table is empty and the exit code 0.
func cmdPeers(ctx context.Context, e *env, p *printer, args []string) error {
	o, err := parsePeers(args)
	if err == errHelp {
		p.stdoutText(peersUsage)
	}
	if err != nil {
		return err
	}
	p.json = o.json
	ctx, stop := onSignals(ctx, e.signals, "peers", e.now, func() { forceExit(e, p) })
	defer stop()
	peers, err := discovery.List(ctx, o.ifaces, time.Duration(o.timeout))
	if err != nil {
		return interrupted(ctx, fmt.Errorf("looking for receivers: %w", err))
	}
	store := trustStore(p)
	if o.json {
		for _, pe := range peers {
			p.event(peerEvent{
				Event: "peer", Name: pe.Name, Fingerprint: pe.Fingerprint, Version: pe.Version,
				Host: pe.Host, Port: pe.Port, Addresses: nonNil(pe.DialAddrs()),
				Trust: strings.ReplaceAll(trustStatus(store, pe), " ", "_"),
			})
		}
		return nil
	}
	if len(peers) == 0 {
		p.infof("no receivers found in %s: run 'ferry receive' on the other device, or listen longer with --timeout",
			humanDuration(time.Duration(o.timeout)))
		return nil
	}
	p.stdoutText(peersTable(peers, store))
	return nil
}

// peersTable renders the table of receivers for stdout. A name is the
// peer's choice (discovery cleans it too), so it goes through safe: a tab
// in it would break the columns, an escape sequence the terminal.
func peersTable(peers []discovery.Peer, store *trust.Store) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFINGERPRINT\tADDRESSES\tTRUST")
	for _, pe := range peers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", safe(pe.Name), pe.Fingerprint, strings.Join(pe.DialAddrs(), ", "), trustStatus(store, pe))
	}
	tw.Flush()
	return b.String()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
