package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
)

type receiveOpts struct {
	transferFlags
	dir, code, listen            string
	yes, overwrite, keep, noMDNS bool
	trust, acceptTrusted         bool
	daemon                       bool // daemon.go
	web, qr                      bool // --web: serve the browser page too (web.go)
	toClipboard                  bool // received texts to the clipboard (clipboard.go)
	maxTransfers                 int  // senders taken at once (incoming.go)
}

// receiveFlags defines receive's flags on o: parseReceive parses with
// them, and the shell completions (completion.go) list them.
func receiveFlags(o *receiveOpts) *flag.FlagSet {
	fs := newFlagSet("receive")
	fs.StringVar(&o.dir, "dir", "", "")
	fs.StringVar(&o.code, "code", "", "")
	fs.StringVar(&o.listen, "listen", "", "")
	fs.BoolVar(&o.yes, "yes", false, "")
	fs.BoolVar(&o.yes, "y", false, "")
	fs.BoolVar(&o.overwrite, "overwrite", false, "")
	fs.BoolVar(&o.keep, "keep", false, "")
	fs.BoolVar(&o.noMDNS, "no-mdns", false, "")
	fs.BoolVar(&o.trust, "trust", false, "")
	fs.BoolVar(&o.acceptTrusted, "accept-trusted", false, "")
	fs.BoolVar(&o.daemon, "daemon", false, "")
	fs.BoolVar(&o.web, "web", false, "")
	fs.BoolVar(&o.qr, "qr", false, "")
	fs.BoolVar(&o.toClipboard, "to-clipboard", false, "")
	fs.IntVar(&o.maxTransfers, "max-transfers", 1, "")
	o.transferFlags.register(fs)
	return fs
}

func parseReceive(args []string) (receiveOpts, error) {
	var o receiveOpts
	operands, err := parseArgs(receiveFlags(&o), args)
	if err != nil {
		return o, err
	}
	if len(operands) > 0 {
		return o, usagef("receive takes no paths: choose the folder with --dir", "unexpected argument %q", operands[0])
	}
	if o.listen != "" {
		if _, port, err := net.SplitHostPort(o.listen); err != nil || port == "" {
			return o, usagef("give a host and a port, like 0.0.0.0:9000 or 127.0.0.1:0", "bad --listen address %q", o.listen)
		}
	}
	if o.qr && !o.web {
		return o, usagef("--qr draws the link of --web's page", "--qr goes with --web")
	}
	if err := checkIfaces(o.ifaces); err != nil {
		return o, err
	}
	if o.maxTransfers < 1 || o.maxTransfers > app.MaxConcurrentLimit {
		return o, usagef(fmt.Sprintf("give a number from 1 to %d", app.MaxConcurrentLimit), "bad --max-transfers %d", o.maxTransfers)
	}
	if strings.TrimSpace(o.code) != o.code {
		return o, usagef("give the code without spaces around it", "bad --code %q", o.code)
	}
	return o, o.applyDaemon()
}

func cmdReceive(ctx context.Context, e *env, p *printer, args []string) error {
	o, err := parseReceive(args)
	if err == errHelp {
		p.stdoutText(receiveUsage)
	}
	if err != nil {
		return err
	}
	p.json, p.quiet = o.json, o.quiet
	if err := codeFlagError(o.code); o.code != "" && err != nil {
		return err
	}
	dir, err := receiveDir(o.dir)
	if err != nil {
		return err
	}
	if err := checkWritable(dir, o.dir != ""); err != nil {
		return err
	}
	n, err := newNode(e, p, o.name, o.noHistory, o.ifaces)
	if err != nil {
		return err
	}
	defer n.Close()
	rs := &receiveSession{p: p, o: o, q: &prompter{p: p, in: e.stdin}, n: n,
		pr:     newProgress(p, o.progressFor(e.stderrTerminal && !o.daemon), e.now),
		canAsk: e.stdinTerminal && !o.json}
	rs.after = afterCode{p: p, q: rs.q, n: n, flag: o.trust, ask: rs.canAsk}
	if !o.yes && (o.json || !e.stdinTerminal) {
		rs.noAsk = noTerminal(o.json)
	}
	if o.daemon {
		rs.noAsk = daemonNoAsk
	}
	rs.several = o.maxTransfers > 1
	rc, err := n.Listen(app.ReceiveConfig{MaxConcurrent: o.maxTransfers,
		Dir: dir, Code: o.code, Listen: o.listen, Overwrite: o.overwrite,
		AcceptAll: o.yes, AcceptTrusted: o.acceptTrusted, Unattended: rs.noAsk, KeepTexts: o.toClipboard,
		Page: o.web, Advertise: !o.noMDNS, PairedOnly: o.daemon, Diag: o.diag, OnEvent: rs.onEvent,
	})
	if err != nil {
		return err
	}
	defer rc.Close()
	rs.rc = rc
	rs.announce()

	ctx, stop := onSignals(ctx, e.signals, "receiver", e.now, func() { forceExit(e, p) })
	defer stop()
	return rs.serve(ctx)
}

// serve takes senders, --max-transfers of them at once: one transfer
// (several, until none is in progress), or until interrupted with
// --keep. One sender at a time is a run of one transfer, taken again
// with --keep, the new code shown between; several are one run of the
// receiver's.
func (rs *receiveSession) serve(ctx context.Context) error {
	p, o, rc := rs.p, rs.o, rs.rc
	in := rs.incoming()
	in.ctx = ctx
	if rs.several {
		var rows *inRows // none but on a terminal: the lines say it all
		if rs.pr.mode == progressBar {
			rows = newInRows(p, rs.pr.now)
			in.commands = rs.canAsk
		}
		in.rows = rows
		if in.commands {
			rs.q.between(rs.command)
		}
	}
	defer in.rows.finish() // after wg.Wait: every row has settled
	for {
		rs.waiting()
		err := rs.take(ctx)
		rs.wg.Wait()
		if err == nil && !rs.several {
			err = in.takeLone() // how the one transfer ended
		}
		switch {
		case errors.Is(err, app.ErrCodesStopped) && rs.several:
			return codesStoppedError()
		case errors.Is(err, app.ErrCodesStopped), !o.keep && !rs.several, err != nil && rs.several:
			return err
		case errors.Is(context.Cause(ctx), errInterrupted):
			if o.daemon {
				p.infof("stopped: %v", context.Cause(ctx))
			}
			if o.keep {
				return nil
			}
			return context.Cause(ctx)
		case rs.several:
			return in.failure(o.keep)
		case err != nil:
			code, kind, hint := classify(err)
			p.warnf("transfer failed: %v", err)
			if o.daemon {
				p.stderrHint(hint)
			}
			p.event(event.Error{Kind: kind, ExitCode: code, Message: err.Error(), Hint: hint})
		}
		if rc.CodesStopped() && !o.daemon {
			return codesStoppedError()
		}
		if o.code == "" && !o.daemon {
			p.noticef("code %s", rc.Code())
			rs.showLink(false)
		}
	}
}

// waiting says that the receiver waits, and for whom.
func (rs *receiveSession) waiting() {
	p, o := rs.p, rs.o
	switch {
	case rs.several && o.daemon:
		p.infof("waiting for trusted devices, up to %d at once", o.maxTransfers)
	case rs.several:
		p.infof("waiting for senders, up to %d at once: on the other devices run 'ferry send PATH...' and type the code", o.maxTransfers)
	case o.daemon:
		p.infof("waiting for a trusted device")
	default:
		p.infof("waiting for a sender: on the other device run 'ferry send PATH...' and type the code")
	}
}

// take runs the receiver once: several senders until ctx ends or, without
// --keep, until none is in progress; or one transfer, to its end. Each
// transfer's reporter (incoming.go) says how it went.
func (rs *receiveSession) take(ctx context.Context) error {
	if rs.several {
		mctx, stop := context.WithCancelCause(ctx)
		defer stop(nil)
		rs.incoming().stop = stop
		return rs.rc.ReceiveMany(mctx)
	}
	t, err := rs.rc.Receive(ctx)
	if err != nil {
		return err
	}
	rs.sender(t) // its reporter, whether or not a sender comes
	return nil
}

// announce says where the receiver listens, and how to send to it.
func (rs *receiveSession) announce() {
	p, o, rc := rs.p, rs.o, rs.rc
	host := ""
	if o.listen != "" {
		host, _, _ = net.SplitHostPort(o.listen)
	}
	rs.addrs = shownAddrs(host, o.ifaces)
	p.event(event.Listening{Code: rc.Code(), Port: rc.Port(), Addresses: rs.addrs,
		Name: rs.n.Name(), Fingerprint: rs.n.Fingerprint(), Dir: rc.Dir()})
	switch {
	case o.daemon: // nobody reads a code from a log
	case o.code == "":
		p.noticef("code %s", rc.Code())
	default:
		p.infof("code %s", rc.Code())
	}
	p.infof("this device: %s", peerLabel(rs.n.Name(), rs.n.Fingerprint()))
	if len(rs.addrs) > 0 {
		p.infof("listening on %s", strings.Join(joinPort(rs.addrs, rc.Port()), ", "))
	} else {
		p.infof("listening on port %d", rc.Port())
	}
	p.infof("%s", fallbackLine(rs.addrs, rc.Port()))
	rs.showLink(true)
	p.infof("saving to %s", rc.Dir())
	if rs.noAsk != "" {
		switch {
		case o.daemon:
			p.infof("accepting trusted devices only, until stopped")
		case o.acceptTrusted:
			p.infof("offers from devices that are not trusted will be declined (%s): re-run with --yes to accept without asking", rs.noAsk)
		default:
			p.infof("offers will be declined (%s): re-run with --yes to accept without asking", rs.noAsk)
		}
	}
}

// showLink prints the page's link for the current code (--web), with
// the QR code and the hashes the first time.
func (rs *receiveSession) showLink(first bool) {
	ev := rs.rc.PageEvent(rs.addrs)
	if len(ev.Links) == 0 { // no page served
		return
	}
	if first {
		showPage(rs.p, ev, rs.o.qr)
		return
	}
	rs.p.event(ev)
	rs.p.noticef("link %s", ev.Links[0])
}

// codesStoppedHint is the hint of a receiver that stopped taking codes:
// core's words for the kind, with the command that starts again.
var codesStoppedHint = kindHint(errkind.CodesStopped)

func codesStoppedError() error {
	return withHint(fmt.Errorf("stopped waiting for a sender: %w", app.ErrCodesStopped), codesStoppedHint)
}

// receiveDir returns the destination folder: --dir, which must exist, or
// the download folder (core/app's DefaultDir, every front end's
// default), created when missing.
func receiveDir(flagDir string) (string, error) {
	if flagDir != "" {
		fi, err := os.Stat(flagDir)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return "", usagef("create it first, or leave out --dir to use the download folder", "no such folder: %s", flagDir)
			}
			return "", usagef("choose another folder with --dir", "cannot use --dir %s: %v", flagDir, unwrapPath(err))
		}
		if !fi.IsDir() {
			return "", usagef("--dir names the folder to save into", "not a folder: %s", flagDir)
		}
		if abs, err := filepath.Abs(flagDir); err == nil {
			flagDir = abs
		}
		return flagDir, nil
	}
	dir, err := app.DefaultDir()
	if err != nil {
		return "", withHint(err, "choose a folder with --dir")
	}
	return dir, nil
}

// receiveSession presents the receiver's transfers (core/app decides
// what happens to them). Its onEvent runs on the Node's goroutine; a
// question about an offer runs on a goroutine of its own (the engine
// must not wait on a person), as does each transfer's reporter, which
// serve waits for (wg) before it returns.
type receiveSession struct {
	p      *printer
	o      receiveOpts
	q      *prompter
	pr     *progress
	n      *app.Node
	rc     *app.Receiver
	noAsk  string // why offers are declined without asking; "" asks (or --yes)
	canAsk bool   // a person can answer questions on the terminal
	after  afterCode
	addrs  []string // the addresses shown, which the page's links name

	// several: --max-transfers above 1, where lines name each sender
	// and --json events carry their transfer's number.
	several bool
	wg      sync.WaitGroup // reporters and questions
	inOnce  sync.Once
	in      *incoming // the transfers, from incoming()
}

// outcome is the error a transfer from peer ended with, worded for a
// person; nil when it succeeded.
func (rs *receiveSession) outcome(ctx context.Context, res app.Result, peer string) error {
	switch {
	case res.Declined != "" && errors.Is(res.Err, app.ErrDeclined):
		msg := fmt.Sprintf("declined the offer from %s: %s", peer, res.Declined)
		switch {
		case rs.o.daemon:
			return withHint(relabel(msg, app.ErrDeclined), "to take files from that device, pair it once with 'ferry receive' and trust it")
		case rs.noAsk != "":
			return withHint(relabel(msg, app.ErrDeclined), "re-run with --yes to accept without asking")
		}
		return relabel(msg, app.ErrDeclined)
	case errors.Is(res.Err, app.ErrCodesStopped) && len(res.Peer.Key) == 0:
		return withHint(res.Err, codesStoppedHint)
	case res.Err != nil:
		return interrupted(ctx, res.Err)
	}
	return nil
}

// received says what a transfer from peer that succeeded saved and asks
// what follows it.
func (rs *receiveSession) received(ctx context.Context, res app.Result, peer string) {
	sum := res.Summary
	rs.p.infof("received %s%s%s%s", describeSummary(sum), rs.from(peer), savedInto(sum, rs.rc.Dir()), rateSuffix(sum))
	if rs.o.diag {
		rs.p.infof("diag: receiver, whole transfer: %s", sum.LocalLine(event.Receiver))
	}
	rs.textsToClipboard(ctx, res, peer)
	rs.after.run(ctx, res)
}

// from names a transfer's sender in a line about it, when several send
// at once: " from peer"; "" when one sender's lines need no name.
func (rs *receiveSession) from(peer string) string {
	if !rs.several {
		return ""
	}
	return " from " + peer
}

// pairedLabel names a paired sender by the name this device pinned its
// key under, and adds the name it claims only when that differs: a
// trusted device cannot pose as another by its name.
func pairedLabel(pinned, claimed, fingerprint string) string {
	label := peerLabel(pinned, fingerprint)
	if claimed != "" && !strings.EqualFold(claimed, pinned) {
		label += fmt.Sprintf(", calling itself '%s'", safe(claimed))
	}
	return label
}

// onEvent presents an event: a transfer's with its sender (t nil is
// the one sender's, as a test hands them), the receiver's own as such.
func (rs *receiveSession) onEvent(t *app.Transfer, ev event.Event) {
	if _, failed := ev.(event.Error); !failed { // the reporter words failures
		if rs.several {
			rs.p.eventFor(ev, idOf(t))
		} else {
			rs.p.event(ev)
		}
	}
	if n, ok := ev.(event.Notice); ok {
		// Its words are core's, for every front end; the peer's
		// name in them is made safe with the rest, the whole line
		// uncut.
		rs.p.warnf("%s", safeCap(n.Notice(), 0))
		return
	}
	switch e := ev.(type) {
	case event.Connected, event.Offer, event.Accepted, event.Progress, event.EntryDone, event.Text:
		if t != nil || !rs.several {
			rs.onTransferEvent(t, ev)
		}
	case event.CodeChanged:
		if e.Reason == "used" && rs.several && !rs.o.daemon {
			// A code used by a transfer is replaced as it ends, the
			// others going on: later senders need the new one. One
			// sender at a time is shown it by serve, once its
			// transfer has been told.
			rs.p.noticef("code %s", e.Code)
			rs.showLink(false)
			return
		}
		rs.onReceiverEvent(ev)
	default:
		rs.onReceiverEvent(ev)
	}
}

func idOf(t *app.Transfer) int64 {
	if t == nil {
		return 0
	}
	return t.ID()
}

// onTransferEvent presents an event of t's transfer, in lines that name
// its sender.
func (rs *receiveSession) onTransferEvent(t *app.Transfer, ev event.Event) {
	if e, ok := ev.(event.EntryDone); ok { // one a file: see entryDone
		rs.entryDone(t, e)
		return
	}
	in, s := rs.incoming(), rs.sender(t)
	switch e := ev.(type) {
	case event.Connected:
		label := peerLabel(e.PeerName, e.PeerFingerprint)
		if e.Paired && e.PinnedName != "" {
			label = pairedLabel(e.PinnedName, e.PeerName, e.PeerFingerprint)
		}
		in.mu.Lock()
		s.label, s.paired = label, e.Paired
		in.mu.Unlock()
		if e.Paired {
			rs.p.infof("paired device %s connected from %s (no code)", label, e.Addr)
		} else {
			rs.p.infof("%s connected from %s", label, e.Addr)
		}
	case event.Offer:
		in.rows.offered(describeOffer(e))
		rs.offered(t, e, s.label)
	case event.Accepted:
		if e.By == event.ByTrusted {
			rs.p.infof("accepted: %s is a trusted device (--accept-trusted)", s.label)
		}
		in.mu.Lock()
		s.rowed = true
		hint := in.commands && !in.hinted
		in.hinted = true
		in.mu.Unlock()
		if hint {
			rs.p.infof("to cancel one transfer, type its number (the [N] on its row) and Enter")
		}
		in.rows.accepted(idOf(t), s.label, e.TotalBytes)
	case event.Progress:
		in.rows.progress(idOf(t), e)
	case event.Text:
		rs.text(e)
	}
}

// entryDone says what became of an entry of t's that was not simply
// saved, naming its sender when several send at once. Most entries say
// nothing, and come one a file: the sender is looked up (a lock and a
// map) only for a line that names it.
func (rs *receiveSession) entryDone(t *app.Transfer, e event.EntryDone) {
	from := func() string { return rs.from(rs.sender(t).label) }
	switch {
	case e.Outcome == event.Skipped:
		rs.p.infof("skipped %s%s: an identical file is already there", safe(e.Path), from())
	case e.Outcome == event.Resumed:
		rs.p.infof("resumed %s%s from a partial file", safe(e.Path), from())
	case e.SavedAs != "" && e.SavedAs != e.Path:
		rs.p.infof("saved %s%s as %s: the name was taken", safe(e.Path), from(), safe(e.SavedAs))
	}
}

// text prints a received text on stdout (not with --json, whose event
// carries it).
func (rs *receiveSession) text(e event.Text) {
	if rs.o.json {
		return
	}
	text := e.Text
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	rs.p.stdoutSnippet(text)
}

// onReceiverEvent words the receiver's events that belong to no one
// transfer: the code, the guess budget, refusals, diagnostics.
func (rs *receiveSession) onReceiverEvent(ev event.Event) {
	switch e := ev.(type) {
	case event.CodeChanged:
		// A code used by a transfer is replaced as the transfer ends;
		// with --keep the loop shows the new one before it waits again.
		if e.Reason == "retired" {
			rs.p.noticef("too many wrong codes: the new code is %s", e.Code)
			rs.showLink(false)
		}
	case event.CodesHeld:
		until, _ := time.Parse(time.RFC3339Nano, e.Until)
		rs.p.warnf("%d wrong codes tried on this device: no code is checked before %s (a sender who tries sooner is told to wait)",
			e.Wrong, until.Local().Format("15:04:05"))
	case event.CodesStopped:
		rs.p.warnf("stopped taking codes: %d wrong codes were tried here, more than a person mistypes", e.Wrong)
	case event.Refused:
		rs.p.warnf("%s", e.Message)
		rs.p.stderrHint(refusalHint(e))
	case event.Diag:
		if rs.o.diag {
			rs.p.infof("diag: receiver: %s", e.Line)
		}
	}
}

// maxListed is how many entries of an offer are listed before "and N more".
const maxListed = 8

// offered lists offer o from peer and, unless core/app answers it, asks
// the person, in the turn of the offer (incoming.go's queue), on a
// goroutine of its own.
func (rs *receiveSession) offered(t *app.Transfer, o event.Offer, peer string) {
	rs.p.infof("%s wants to send %s:", peer, describeOffer(o))
	for i, en := range o.Entries {
		if i == maxListed {
			rs.p.infof("  and %d more", len(o.Entries)-maxListed)
			break
		}
		switch en.Kind {
		case event.KindDir:
			rs.p.infof("  %s/", safe(en.Path))
		default:
			rs.p.infof("  %s  %s", safe(en.Path), humanBytes(en.Size))
		}
	}
	if !t.Asks() {
		return // core/app answers it
	}
	run := rs.incoming().queue() // here, in the order the offers came
	rs.wg.Add(1)
	go func() {
		defer rs.wg.Done()
		run(func() {
			ok, err := rs.q.confirm(t.Context(), fmt.Sprintf("accept %s from %s?%s", describeOffer(o), peer, sameNameAs(o)))
			switch {
			case err != nil:
				t.Decline(err.Error())
			case ok:
				t.Accept()
			default:
				t.Decline("you said no")
			}
		})
	}()
}

// sameNameAs is what a question adds for an offer whose sender claims
// the name of others in progress with other keys, in core's words.
func sameNameAs(o event.Offer) string {
	if w := o.SameNameWarning(); w != "" {
		return " (" + safeCap(w, 0) + ")"
	}
	return ""
}

// describeSummary renders what a finished transfer moved: "3 files and 1
// folder (1.2 GiB)".
func describeSummary(s event.Summary) string { return describeOffer(s.Offer()) }

// rateSuffix renders " in 9.1s (110 MiB/s)" for a summary.
func rateSuffix(s event.Summary) string {
	if s.Duration <= 0 || s.Bytes == 0 {
		return ""
	}
	return fmt.Sprintf(" in %s (%s)", humanDuration(s.Duration), humanRate(float64(s.Bytes)/s.Duration.Seconds()))
}

// unwrapPath drops the *PathError's repetition of the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
