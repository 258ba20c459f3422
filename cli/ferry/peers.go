package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
)

type peersOpts struct {
	timeout positiveDuration
	ifaces  stringList
	json    bool
}

// peersFlags defines peers' flags on o: parsePeers parses with them,
// and the shell completions (completion.go) list them.
func peersFlags(o *peersOpts) *flag.FlagSet {
	fs := newFlagSet("peers")
	fs.Var(&o.timeout, "timeout", "")
	fs.Var(&o.ifaces, "iface", "")
	fs.BoolVar(&o.json, "json", false, "")
	return fs
}

func parsePeers(args []string) (peersOpts, error) {
	o := peersOpts{timeout: positiveDuration(3 * time.Second)}
	operands, err := parseArgs(peersFlags(&o), args)
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
	peers, err := nearby.ListPeers(ctx, o.ifaces, time.Duration(o.timeout), mdnsSkips(p, o.ifaces))
	if err != nil {
		return interrupted(ctx, fmt.Errorf("looking for receivers: %w", err))
	}
	store := trustStore(p)
	if o.json {
		for _, pe := range peers {
			p.event(pe.Event(store))
		}
		return nil
	}
	if len(peers) == 0 {
		p.infof("no receivers found in %s: run 'ferry receive' on the other device, or listen longer with --timeout",
			humanDuration(time.Duration(o.timeout)))
		for _, h := range nothingFoundHints {
			p.infof("%s", h)
		}
		return nil
	}
	p.stdoutText(peersTable(peers, store))
	return nil
}

// nothingFoundHints are what ferry peers says when it found nothing: the
// usual reasons mDNS does not get through, each with what to do. The
// README's "When no device is found" says the same at more length; keep
// them together.
var nothingFoundHints = []string{
	"if the receiver is running, mDNS is not getting through; 'ferry receive' prints a 'ferry send --to HOST:PORT' line that works without it",
	"windows: allow ferry through Windows Defender Firewall for private networks when it asks, on both devices; a network marked Public blocks mDNS and incoming connections, so mark it Private in Settings > Network & internet",
	"macos 15 and later: allow the app that runs ferry (a terminal other than Terminal, or the desktop app) in System Settings > Privacy & Security > Local Network",
	"guest or hotel Wi-Fi often keeps devices apart (client isolation): use a network you control, or a phone's hotspot",
	"several network adapters (VPN, Hyper-V, WSL, Docker): both devices must be on the same one; --iface NAME picks it",
	"windows with several adapters: mDNS leaves by one, the adapter with the lowest route metric for 224.0.0.0/4, usually the one with the default route ('route print' shows both); a device behind another is not found, but ferry send --to HOST:PORT and the QR code always work",
}

// fallbackLine is the command a sender can type when discovery finds
// nothing (a firewall, client isolation, mDNS blocked): the receiver's
// first address, which needs no mDNS at all. With no address to show, it
// says where to find one.
func fallbackLine(addrs []string, port int) string {
	if len(addrs) == 0 {
		return "without discovery, on the other device: ferry send --to THIS-DEVICE-IP:" + strconv.Itoa(port) + " PATH"
	}
	return "without discovery, on the other device: ferry send --to " + joinPort(addrs[:1], port)[0] + " PATH"
}

// mdnsSkips reports the interfaces mDNS leaves out. One named with
// --iface is a warning: the person asked for it. One found by listing
// every interface is only information: most machines have some (a VPN
// tunnel without multicast, say), and the others still work.
func mdnsSkips(p *printer, named []string) func(iface string, err error) {
	return func(iface string, err error) {
		if len(named) > 0 {
			p.warnf("mDNS cannot use %s: %v", safe(iface), err)
			return
		}
		p.infof("mDNS leaves out %s: %v", safe(iface), err)
	}
}

// peersTable renders the table of receivers for stdout. A name is the
// peer's choice (discovery cleans it too), so it goes through safe: a tab
// in it would break the columns, an escape sequence the terminal.
func peersTable(peers []nearby.Peer, store *stores.Trust) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFINGERPRINT\tADDRESSES\tTRUST")
	for _, pe := range peers {
		_, mark := nearby.TrustWords(store, pe.Name, pe.Fingerprint)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", safe(pe.Name), pe.Fingerprint, strings.Join(pe.DialAddrs(), ", "), mark)
	}
	tw.Flush()
	return b.String()
}
