package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"strconv"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/pick"
	"github.com/ferry-project/ferry/core/app/stores"
)

type sendOpts struct {
	transferFlags
	to, peer, code, text, paired string
	as                           string // --as: the name of the file read from standard input
	trust                        bool
	clipboard                    bool // send what the clipboard holds (clipboard.go)
	paths                        []string
	// targets and codes are every --to, --peer and --code in order;
	// more than one target is a send to several receivers (sendmany.go).
	targets []target
	codes   stringList
	// --to-browser: serve the page and send to it (web.go)
	toBrowser, qr bool
	listen        string
}

// sendFlags defines send's flags on o: parseSend parses with them, and
// the shell completions (completion.go) list them.
func sendFlags(o *sendOpts) *flag.FlagSet {
	fs := newFlagSet("send")
	fs.Var(&targetFlag{&o.targets, &o.to, false}, "to", "")
	fs.Var(&targetFlag{&o.targets, &o.peer, true}, "peer", "")
	fs.Var(&firstOf{&o.codes, &o.code}, "code", "")
	fs.StringVar(&o.text, "text", "", "")
	fs.StringVar(&o.paired, "paired", "", "")
	fs.StringVar(&o.as, "as", "", "")
	fs.BoolVar(&o.trust, "trust", false, "")
	fs.BoolVar(&o.clipboard, "clipboard", false, "")
	fs.BoolVar(&o.toBrowser, "to-browser", false, "")
	fs.BoolVar(&o.qr, "qr", false, "")
	fs.StringVar(&o.listen, "listen", "", "")
	o.transferFlags.register(fs)
	return fs
}

func parseSend(args []string) (sendOpts, error) {
	var o sendOpts
	paths, err := parseArgs(sendFlags(&o), args)
	if err != nil {
		return o, err
	}
	o.paths = paths
	if err := checkToBrowser(o); err != nil {
		return o, err
	}
	if len(o.targets) > 1 || len(o.codes) > 1 {
		return o, checkMany(o)
	}
	switch {
	case o.to != "" && o.peer != "":
		return o, usagef("use one or the other", "--to and --peer cannot be used together")
	case len(o.paths) == 0 && o.text == "" && !o.clipboard:
		return o, usagef("name the files or folders to send, or use --text TEXT or --clipboard", "nothing to send")
	case o.paired != "" && o.to == "":
		return o, usagef("--peer NAME finds a trusted device over mDNS by itself; --paired NAME names the trusted device at a --to address",
			"--paired goes with --to")
	case o.paired != "" && o.code != "":
		return o, usagef("--paired sends without a code: drop one of them", "--paired and --code cannot be used together")
	}
	if o.to != "" {
		host, port, err := net.SplitHostPort(o.to)
		n, perr := strconv.Atoi(port)
		if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			return o, usagef("give the address and port the receiver shows, like 192.168.1.20:41234", "bad --to address %q", o.to)
		}
	}
	if err := checkIfaces(o.ifaces); err != nil {
		return o, err
	}
	return o, nil
}

// checkToBrowser keeps --to-browser's flags apart from those that pick a
// receiver: the page is the receiver, and the link carries the code.
func checkToBrowser(o sendOpts) error {
	if !o.toBrowser {
		switch {
		case o.qr:
			return usagef("--qr draws the link of --to-browser", "--qr goes with --to-browser")
		case o.listen != "":
			return usagef("--listen sets the port of --to-browser's page", "--listen goes with --to-browser")
		}
		return nil
	}
	for flag, set := range map[string]bool{"--to": o.to != "", "--peer": o.peer != "", "--paired": o.paired != "",
		"--code": o.code != "", "--trust": o.trust} {
		if set {
			return usagef("--to-browser sends to the page that opens its link, with the code in the link",
				"--to-browser and %s cannot be used together", flag)
		}
	}
	if o.listen != "" {
		if _, port, err := net.SplitHostPort(o.listen); err != nil || port == "" {
			return usagef("give a host and a port, like 0.0.0.0:9000 or 127.0.0.1:0", "bad --listen address %q", o.listen)
		}
	}
	return nil
}

// checkPaths is core/app/pick's CheckPaths, in the CLI's words: nothing is
// sent when a path cannot be.
func checkPaths(paths []string) error {
	var pp *pick.PathProblem
	switch err := pick.CheckPaths(paths); {
	case err == nil:
		return nil
	case !errors.As(err, &pp):
		return err
	case pp.Missing:
		return usagef("check the path: nothing was sent", "no such file or folder: %s", pp.Path)
	case pp.NotRegular:
		return usagef("send regular files and folders only", "not a regular file or folder: %s", pp.Path)
	}
	return usagef("nothing was sent", "cannot read %s: %v", pp.Path, unwrapPath(pp.Err))
}

// cmdSend sends to one receiver or several (every --to and --peer): the
// receivers are settled first (one, or each of several as sendmany.go
// says), then one run of core/app's SendMany sends to all of them, shown
// by one sender's lines and bar (sendSession) or a row per receiver
// (manyRows).
func cmdSend(ctx context.Context, e *env, p *printer, args []string) error {
	o, err := parseSend(args)
	if err == errHelp {
		p.stdoutText(sendUsage)
	}
	if err != nil {
		return err
	}
	p.json, p.quiet = o.json, o.quiet
	for _, c := range o.codes {
		if err := codeFlagError(c); err != nil {
			return err
		}
	}
	several := len(o.targets) > 1
	interactive := e.stdinTerminal && !o.json
	if !several {
		if err := checkOneReceiver(o, interactive); err != nil {
			return err
		}
	}
	// What to send: paths, --text, standard input ("-", --text -), the
	// clipboard.
	items, stdin, done, err := sendItems(ctx, e, &o)
	if err != nil {
		return err
	}
	defer done()
	if o.toBrowser {
		return sendToBrowser(ctx, e, p, o, items)
	}
	n, err := newNode(e, p, o.name, o.noHistory, nil)
	if err != nil {
		return err
	}
	defer n.Close()
	store := n.Trust()
	var (
		dests []manyDest
		pin   *stores.Device
	)
	switch {
	case several:
		dests, err = assignCodes(o, store, interactive)
	case o.code == "":
		pin, err = pinFor(store, o, interactive)
	}
	if err != nil {
		return err
	}

	ctx, stop := onSignals(ctx, e.signals, "sender", e.now, func() { forceExit(e, p) })
	defer stop()
	items, removeSpool, err := readStdin(ctx, p, e.stdin, stdin, o.as, items)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer removeSpool()
	q := &prompter{p: p, in: e.stdin}
	mode := o.progressFor(e.stderrTerminal)
	var view sendView
	if several {
		for i := range dests {
			if err := resolveDest(ctx, p, q, o, store, &dests[i], interactive); err != nil {
				return interrupted(ctx, err)
			}
		}
		view = &manySend{p: p, dests: dests, rows: newManyRows(p, mode, e.now, dests)}
	} else {
		d, err := oneDest(ctx, p, q, o, store, pin, interactive)
		if err != nil {
			return err
		}
		dests = []manyDest{d}
		view = &sendSession{p: p, o: o, pr: newProgress(p, mode, e.now), peer: d.dest.label, pin: d.pin,
			dest: d.dest, after: afterCode{p: p, q: q, n: n, flag: o.trust, ask: interactive}}
	}
	return sendTo(ctx, n, o, items, dests, view)
}

// checkOneReceiver fails a send to one receiver that nobody can name or
// authenticate, before anything else is done.
func checkOneReceiver(o sendOpts, interactive bool) error {
	if o.code == "" && !interactive && o.peer == "" && o.paired == "" && !o.toBrowser {
		return usagef("pass the code the receiver shows with --code CODE (a trusted device needs none: --peer NAME, or --to ADDR --paired NAME)",
			"no code given and %s", noTerminal(o.json))
	}
	if o.to == "" && o.peer == "" && !interactive && !o.toBrowser {
		return usagef("pass --to HOST:PORT, or --peer NAME (see 'ferry peers')", "no receiver given and %s", noTerminal(o.json))
	}
	return nil
}

// oneDest finds the one receiver (--to, --peer, or the person's pick)
// and settles how it is authenticated; pin is --paired's device.
func oneDest(ctx context.Context, p *printer, q *prompter, o sendOpts, store *stores.Trust, pin *stores.Device, interactive bool) (manyDest, error) {
	dest, err := findReceiver(ctx, p, q, o, store)
	if err != nil {
		return manyDest{}, interrupted(ctx, err)
	}
	if pin != nil {
		dest.label = peerLabel(pin.Name, pin.Fingerprint())
	}
	code, pin, err := codeOrPin(ctx, p, q, o, store, dest, pin, interactive)
	if err != nil {
		return manyDest{}, err
	}
	return manyDest{dest: dest, code: code, pin: pin}, nil
}

// sendView shows a send: its receivers' events and how each ended.
type sendView interface {
	connecting(i int, d manyDest)
	onEvent(t *app.Transfer, ev event.Event)
	ended(t *app.Transfer, sum event.Summary, err error)
	report(ctx context.Context, results []app.Result) error
}

// sendTo sends items to every receiver in dests, in one run of core/app's
// SendMany, shown by v, and returns the command's error.
func sendTo(ctx context.Context, n *app.Node, o sendOpts, items []event.Item, dests []manyDest, v sendView) error {
	cfg := app.ManyConfig{Items: items, Paths: o.paths, Text: o.text != "", Diag: o.diag,
		OnEvent: v.onEvent, OnEnded: v.ended}
	for i, d := range dests {
		cfg.To = append(cfg.To, app.Target{Addrs: d.dest.addrs, Code: d.code, Pin: d.pin,
			PeerName: d.dest.name, PeerFingerprint: d.dest.fingerprint, Err: d.err})
		v.connecting(i, d)
	}
	results, _ := n.SendMany(ctx, cfg).Wait()
	return v.report(ctx, results)
}

// codeOrPin settles how the receiver is authenticated: --code, the pin
// found before (--paired), a trusted device discovery found, or the code
// a person types.
func codeOrPin(ctx context.Context, p *printer, q *prompter, o sendOpts, store *stores.Trust, dest receiver, pin *stores.Device, interactive bool) (string, *stores.Device, error) {
	code := o.code
	var err error
	if code == "" && pin == nil && dest.fingerprint != "" {
		if pin, err = classifyReceiver(p, store, dest, interactive); err != nil {
			return "", nil, err
		}
	}
	if code == "" && pin == nil {
		if !interactive {
			return "", nil, usagef("pass the code the receiver shows with --code CODE", "no code given and %s", noTerminal(o.json))
		}
		if code, err = askCode(ctx, q, dest.label); err != nil {
			return "", nil, interrupted(ctx, err)
		}
	}
	return code, pin, nil
}

func (ss *sendSession) connecting(_ int, d manyDest) { ss.p.infof("connecting to %s", d.dest.addr) }

func (ss *sendSession) ended(*app.Transfer, event.Summary, error) {}

// report says how the send to the one receiver went, and asks what
// follows a transfer by code.
func (ss *sendSession) report(ctx context.Context, results []app.Result) error {
	p, o, pin, res := ss.p, ss.o, ss.pin, results[0]
	sum, err := res.Summary, res.Err
	ss.pr.finish(err == nil)
	if err != nil {
		switch {
		case pin != nil && errors.Is(err, app.ErrKeyChanged):
			err = withHint(fmt.Errorf("sending to %s without a code: %w", ss.dest.label, err),
				fmt.Sprintf("if %s made a new key, run 'ferry trust remove %s', then pair again: send once with the code and answer yes to trust",
					pin.Name, pin.Fingerprint()))
		case pin != nil && errors.Is(err, app.ErrNotPaired):
			err = fmt.Errorf("sending to %s without a code: %w", ss.dest.label, err)
		}
		return interrupted(ctx, err)
	}
	p.infof("sent %s to %s%s, %s", describeSummary(sum), ss.peer, rateSuffix(sum), confirmedWhat(sum))
	if o.diag {
		p.infof("diag: sender, whole transfer: %s", sum.LocalLine(event.Sender))
		p.infof("diag: receiver, whole transfer: %s", sum.RemoteLine())
		p.infof("diag: %s", sum.Verdict)
	}
	ss.after.run(ctx, res)
	return nil
}

// pinFor finds, before anything touches the network, the pin that makes
// a transfer without a code possible: --paired's device, or nothing yet
// for --peer (discovery says who answers; classifyReceiver decides). A
// sender that cannot ask for a code fails here when no trusted device
// can match --peer, instead of after a discovery that could not help.
func pinFor(store *stores.Trust, o sendOpts, interactive bool) (*stores.Device, error) {
	if o.paired != "" {
		if store == nil {
			return nil, usagef("fix the trust file (see the warning), or send with the code", "cannot send to --paired %s: trusted devices are off", o.paired)
		}
		d, err := store.Find(o.paired)
		switch {
		case errors.Is(err, stores.ErrNoSuchDevice):
			return nil, usagef("'ferry trust list' shows the trusted devices; to pair, send once with the code and --trust",
				"no trusted device matches --paired %q", o.paired)
		case errors.Is(err, stores.ErrAmbiguous):
			return nil, usagef("give more of the fingerprint", "%v", err)
		case err != nil:
			return nil, err
		}
		return &d, nil
	}
	if o.peer != "" && !interactive {
		// A trust file that cannot be read trusts nobody here.
		err := stores.ErrNoSuchDevice
		if store != nil {
			_, err = store.Find(o.peer)
		}
		if err != nil && !errors.Is(err, stores.ErrAmbiguous) {
			return nil, usagef(notTrustedHint, "no code given and %s, and %s is not a trusted device", noTerminal(o.json), o.peer)
		}
	}
	return nil, nil
}

const notTrustedHint = "pass the code the receiver shows with --code CODE; add --trust to trust it after that transfer (it must trust this device too)"

// classifyReceiver relates a discovered receiver to the pins: a trusted
// one is sent to without a code; one that advertises a trusted name with
// another key never is (an error without a terminal, a warning and the
// code question with one); any other needs its code.
func classifyReceiver(p *printer, store *stores.Trust, dest receiver, interactive bool) (*stores.Device, error) {
	if store == nil {
		return nil, nil
	}
	st, d, err := store.Classify(dest.name, dest.fingerprint)
	if err != nil {
		p.warnf("trusted devices are off: %v", err)
		return nil, nil
	}
	switch st {
	case stores.TrustTrusted:
		p.infof("%s is a trusted device: sending without a code", dest.label)
		return &d, nil
	case stores.TrustKeyChanged:
		kc := keyChanged(dest.name, dest.fingerprint, d)
		if !interactive {
			return nil, kc
		}
		p.warnf("%v", kc)
		p.infof("not trusting it: asking for its code instead")
	default:
		if !interactive {
			return nil, usagef(notTrustedHint, "no code given and %s, and %s is not a trusted device", noTerminal(p.json), dest.label)
		}
	}
	return nil, nil
}

func noTerminal(json bool) string {
	if json {
		return "--json asks nothing"
	}
	return "standard input is not a terminal"
}

// interrupted returns the interrupt itself when a signal cancelled ctx, so
// that the person reads "cancelled by the sender (interrupt)" rather than
// whatever the cut-off operation said; any other error passes through.
func interrupted(ctx context.Context, err error) error {
	if c := context.Cause(ctx); errors.Is(c, errInterrupted) {
		return c
	}
	return err
}

func askCode(ctx context.Context, q *prompter, label string) (string, error) {
	for range 3 {
		code, err := q.ask(ctx, fmt.Sprintf("code shown on %s: ", label))
		if err != nil {
			return "", err
		}
		if code == "" {
			continue
		}
		if err := app.CheckCodeForm(code); err != nil {
			q.p.listf("that is not a code (%v): type the code the receiver shows, like 123456", err)
			continue
		}
		return code, nil
	}
	return "", usagef("type the code the receiver shows, or pass it with --code", "no code given")
}

// sendSession shows a send to one receiver (sendView): its events, on
// the engine's goroutine, and its end.
type sendSession struct {
	p     *printer
	o     sendOpts
	pr    *progress
	peer  string
	pin   *stores.Device // the receiver's pin, in paired mode: its name labels it
	dest  receiver
	after afterCode
}

func (ss *sendSession) onEvent(_ *app.Transfer, ev event.Event) {
	if _, failed := ev.(event.Error); !failed { // the command reports failures
		ss.p.event(ev)
	}
	switch e := ev.(type) {
	case event.Connected:
		ss.peer = peerLabel(e.PeerName, e.PeerFingerprint)
		if e.Paired && ss.pin != nil {
			ss.peer = pairedLabel(ss.pin.Name, e.PeerName, e.PeerFingerprint)
		}
		if e.Paired {
			ss.p.infof("connected to paired device %s, no code needed; waiting for it to accept", ss.peer)
		} else {
			ss.p.infof("connected to %s, waiting for it to accept", ss.peer)
		}
	case event.Accepted:
		o := e.Offer
		ss.pr.setSummary(describeOffer(o))
		switch {
		case e.TotalBytes == 0 && o.TotalBytes > 0:
			ss.p.infof("accepted: the receiver already has all of %s", describeOffer(o))
		case e.TotalBytes < o.TotalBytes:
			ss.p.infof("accepted: sending %s of %s, the rest is already there", humanBytes(e.TotalBytes), describeOffer(o))
		default:
			ss.p.infof("accepted: sending %s", describeOffer(o))
		}
	case event.Progress:
		ss.pr.update(e)
	case event.EntryDone:
		switch e.Outcome {
		case event.Skipped:
			ss.p.infof("skipped %s: the receiver already has it", safe(e.Path))
		case event.Resumed:
			ss.p.infof("resumed %s where an earlier transfer stopped", safe(e.Path))
		}
	case event.Diag:
		if ss.o.diag {
			ss.p.infof("diag: sender: %s", e.Line)
		}
	}
}

// sendItems gathers what a send offers, the same for one receiver or
// several: the paths (checked), --text, and the clipboard (clipboard.go).
// Standard input ("-", --text -) is only claimed here and read once the
// receiver is known (stdin.go). done removes what the clipboard wrote to
// disk; it is never nil.
func sendItems(ctx context.Context, e *env, o *sendOpts) (items []event.Item, stdin stdinUse, done func(), err error) {
	done = func() {}
	if stdin, err = takeStdin(o, e.stdinTerminal); err != nil {
		return nil, stdin, done, err
	}
	if err := checkPaths(o.paths); err != nil {
		return nil, stdin, done, err
	}
	items = make([]event.Item, 0, len(o.paths)+2)
	for _, path := range o.paths {
		items = append(items, event.Item{Path: path})
	}
	if o.text != "" && !stdin.text {
		items = append(items, event.Item{Text: o.text})
	}
	if o.clipboard {
		it, cleanup, err := clipboardItem(ctx)
		if err != nil {
			return nil, stdin, done, err
		}
		items, done = append(items, it), cleanup
	}
	return items, stdin, done, nil
}
