package main

// Trusted devices: the "ferry trust" command, and what send and receive
// do with the trust store (core/trust) around a transfer.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
)

// openTrust opens this user's trust store, beside the static key.
func openTrust() (*stores.Trust, error) { return stores.OpenTrust("") }

func newTrustedEvent(kind string, d stores.Device) event.Event {
	dev := d.Event()
	switch kind {
	case "recent":
		return event.Recent{Device: dev}
	case "untrusted":
		return event.Untrusted{Device: dev}
	}
	return event.Trusted{Device: dev}
}

type trustOpts struct {
	json, recent bool
	operands     []string
}

// trustFlags defines the flags of trust's subcommand sub on o:
// parseTrust parses with them, and the shell completions
// (completion.go) list them.
func trustFlags(sub string, o *trustOpts) *flag.FlagSet {
	fs := newFlagSet("trust " + sub)
	fs.BoolVar(&o.json, "json", false, "")
	if sub == "list" {
		fs.BoolVar(&o.recent, "recent", false, "")
	}
	return fs
}

func parseTrust(sub string, args []string) (trustOpts, error) {
	var o trustOpts
	operands, err := parseArgs(trustFlags(sub, &o), args)
	if err != nil {
		return o, err
	}
	o.operands = operands
	switch {
	case sub == "list" && len(operands) > 0:
		return o, usagef("run 'ferry trust --help' for usage", "unexpected argument %q", operands[0])
	case sub != "list" && len(operands) != 1:
		return o, usagef("name one device: 'ferry trust "+sub+" NAME_OR_FINGERPRINT'", "trust %s takes one device, got %d", sub, len(operands))
	}
	return o, nil
}

// cmdTrust runs "ferry trust list|add|remove".
func cmdTrust(p *printer, args []string) error {
	if len(args) == 0 {
		return usagef("run 'ferry trust --help' for usage", "trust needs list, add or remove")
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "--help", "-help", "help":
		p.stdoutText(trustUsage)
		return errHelp
	case "list", "add", "remove", "rm":
	default:
		return usagef("run 'ferry trust --help' for usage", "unknown trust command %q", sub)
	}
	if sub == "rm" {
		sub = "remove"
	}
	o, err := parseTrust(sub, rest)
	if err == errHelp {
		p.stdoutText(trustUsage)
	}
	if err != nil {
		return err
	}
	p.json = o.json
	store, err := openTrust()
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		return trustList(p, store, o.recent)
	case "add":
		return trustAdd(p, store, o.operands[0])
	}
	return trustRemove(p, store, o.operands[0])
}

func trustList(p *printer, store *stores.Trust, recent bool) error {
	list, kind := store.Devices, "trusted"
	if recent {
		list, kind = store.Recent, "recent"
	}
	devs, err := list()
	if err != nil {
		return err
	}
	if p.json {
		for _, d := range devs {
			p.event(newTrustedEvent(kind, d))
		}
		return nil
	}
	if len(devs) == 0 {
		if recent {
			p.infof("no devices authenticated by a code yet: send or receive once with the code")
		} else {
			p.infof("no trusted devices: after a transfer with the code, answer yes to trust the other device, or run 'ferry trust add NAME'")
		}
		return nil
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	when := "PAIRED"
	if recent {
		when = "LAST CODE"
	}
	fmt.Fprintf(tw, "NAME\tFINGERPRINT\t%s\n", when)
	for _, d := range devs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", safe(d.Name), d.Fingerprint(), d.PairedAt.Local().Format("2006-01-02 15:04"))
	}
	tw.Flush()
	p.stdoutText(b.String())
	return nil
}

// trustAdd trusts a device that a code authenticated recently: only
// those are known by their key.
func trustAdd(p *printer, store *stores.Trust, query string) error {
	d, already, err := store.TrustRecent(query)
	if errors.Is(err, stores.ErrNoSuchDevice) {
		return usagef("only a device that a code authenticated recently can be added ('ferry trust list --recent' shows them): send or receive once with the code",
			"no recent device matches %q", query)
	}
	if errors.Is(err, stores.ErrAmbiguous) {
		return usagef("give more of the fingerprint", "%v", err)
	}
	if err != nil {
		return err
	}
	if already {
		p.infof("%s is already trusted", peerLabel(d.Name, d.Fingerprint()))
		p.event(newTrustedEvent("trusted", d))
		return nil
	}
	p.event(newTrustedEvent("trusted", d))
	p.infof("trusted %s: transfers with it need no code once it trusts this device too", peerLabel(d.Name, d.Fingerprint()))
	return nil
}

func trustRemove(p *printer, store *stores.Trust, query string) error {
	d, err := store.Remove(query)
	switch {
	case errors.Is(err, stores.ErrNoSuchDevice):
		return usagef("'ferry trust list' shows the trusted devices", "no trusted device matches %q", query)
	case errors.Is(err, stores.ErrAmbiguous):
		return usagef("give more of the fingerprint", "%v", err)
	case err != nil:
		return err
	}
	p.event(newTrustedEvent("untrusted", d))
	p.infof("removed %s: transfers with it need the code again", peerLabel(d.Name, d.Fingerprint()))
	return nil
}

// afterCode is what send and receive do after a transfer that a code
// authenticated: core/app decides (AfterCode) whether the peer's key is
// pinned now, asked about, or not; this says so and asks.
type afterCode struct {
	p    *printer
	q    *prompter
	n    *app.Node
	flag bool // --trust
	ask  bool // stdin is a terminal and --json is off
}

func (a afterCode) run(ctx context.Context, res app.Result) {
	step, err := a.n.AfterCode(res, a.flag, a.ask)
	peer := step.Peer
	label := peerLabel(peer.Name, peer.Fingerprint())
	if err != nil {
		a.p.warnf("cannot remember %s for 'ferry trust add': %v", label, err)
		return
	}
	wrong := plural(step.WrongCodes, "wrong code was", "wrong codes were")
	yes := false
	switch step.Do {
	case app.PinNothing:
		return
	case app.PinNow:
		yes = true
	case app.PinRefused:
		a.p.warnf("not trusting %s: %s tried here before its code was right", label, wrong)
	case app.PinAsk:
		question := fmt.Sprintf("trust %s so later transfers need no code?", label)
		if step.WrongCodes > 0 {
			question = fmt.Sprintf("%s tried here before this code was right: if they were not all yours, someone may have guessed it. trust %s anyway, so later transfers need no code?",
				wrong, label)
		}
		if len(step.Named.Key) > 0 {
			// A trusted device has its name: say it is not that one
			// before asking.
			question = fmt.Sprintf("%s is %s; %s. %s", label, stores.KeyChangedWarning(step.Named, peer.Fingerprint()),
				stores.KeyChangedAdvice, question)
		}
		ok, err := a.q.confirm(ctx, question)
		if err != nil {
			return
		}
		yes = ok
	}
	self := a.n.Name()
	if !yes {
		a.p.infof("to send without a code next time, run 'ferry trust add %s' here and 'ferry trust add %s' there", peer.Fingerprint(), self)
		return
	}
	peer, others, err := a.n.Pin(peer)
	if err != nil {
		a.p.warnf("cannot trust %s: %v", label, err)
		return
	}
	a.p.event(newTrustedEvent("trusted", peer))
	a.p.infof("trusted %s: transfers need no code once %s trusts this device too (answer yes there, or run 'ferry trust add %s' on it)",
		label, safe(peer.Name), self)
	for _, d := range others {
		a.p.infof("%s is trusted too: if it was the same device before it made a new key, run 'ferry trust remove %s'",
			peerLabel(d.Name, d.Fingerprint()), d.Fingerprint())
	}
}

// trustStore opens the store for send and receive, which work without
// it (with a code): a broken trust file is a warning there, not a
// failure, and is left as it is.
func trustStore(p *printer) *stores.Trust {
	store, err := openTrust()
	if err != nil {
		p.warnf("trusted devices are off: %v", err)
		return nil
	}
	if _, err := store.Devices(); err != nil {
		p.warnf("trusted devices are off: %v", err)
		return nil
	}
	return store
}

// keyChanged is a discovered device that advertises a trusted device's
// name with another key: never sent to without a code.
func keyChanged(name, advertised string, pinned stores.Device) error {
	msg := fmt.Sprintf("%s advertises key %s, not the pinned %s: %s", safe(name), advertised, pinned.Fingerprint(),
		stores.TrustKeyChanged.Label())
	return withHint(relabel(msg, app.ErrKeyChanged),
		fmt.Sprintf("%s; 'ferry trust remove %s' removes the old key", stores.KeyChangedAdvice, pinned.Fingerprint()))
}
