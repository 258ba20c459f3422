package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/ferry-project/ferry/core/app/event"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/platform"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/trust"
	"github.com/ferry-project/ferry/core/web"
)

type receiveOpts struct {
	transferFlags
	dir, code, listen            string
	yes, overwrite, keep, noMDNS bool
	trust, acceptTrusted         bool
	daemon                       bool // daemon.go
	web, qr                      bool // --web: serve the browser page too (web.go)
	toClipboard                  bool // received texts to the clipboard (clipboard.go)
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
	id, name, err := thisDevice(o.name)
	if err != nil {
		return err
	}

	rs := &receiveSession{
		p: p, o: o, dir: dir, q: &prompter{p: p, in: e.stdin},
		pr:    newProgress(p, o.progressFor(e.stderrTerminal && !o.daemon), e.now),
		store: trustStore(p),
		hist:  openHistory(e, p, o.noHistory),
		now:   e.now,
	}
	if !o.yes && (o.json || !e.stdinTerminal) {
		rs.noAsk = noTerminal(o.json)
	}
	if o.daemon {
		rs.noAsk = daemonNoAsk
	}
	rs.after = afterCode{p: p, q: rs.q, store: rs.store, flag: o.trust, ask: e.stdinTerminal && !o.json, selfArg: name, selfKey: id.Public()}

	cfg := transfer.ReceiverConfig{
		Dir:              dir,
		Code:             o.code,
		Listen:           o.listen,
		Identity:         id,
		Name:             name,
		Policy:           transfer.Ask,
		Overwrite:        o.overwrite,
		OnEvent:          rs.onEvent,
		Diag:             o.diag,
		AutoAcceptPaired: o.acceptTrusted,
	}
	if rs.store != nil {
		// Without a usable trust file, paired senders are refused
		// outright (the engine's nil Paired); they can still use the code.
		cfg.Paired = rs.pinned
	}
	if o.web {
		// The page shares the receiver's port: the receiver accepts
		// browsers' WebSockets with its TCP senders (core/web).
		m, err := servePage(o.listen, name, false)
		if err != nil {
			return err
		}
		cfg.Listener, cfg.Listen, rs.page = m, "", m
	}
	r, err := transfer.NewReceiver(cfg)
	if err != nil {
		if rs.page != nil {
			rs.page.Close()
		}
		return err
	}
	defer r.Close()
	rs.r = r

	host := ""
	if o.listen != "" {
		host, _, _ = net.SplitHostPort(o.listen)
	}
	addrs := shownAddrs(host, o.ifaces)
	p.event(event.Listening{
		Code: r.Code(), Port: r.Port(), Addresses: addrs,
		Name: name, Fingerprint: id.Fingerprint(), Dir: dir,
	})
	switch {
	case o.daemon: // nobody reads a code from a log
	case o.code == "":
		p.noticef("code %s", r.Code())
	default:
		p.infof("code %s", r.Code())
	}
	p.infof("this device: %s", peerLabel(name, id.Fingerprint()))
	if len(addrs) > 0 {
		p.infof("listening on %s", strings.Join(joinPort(addrs, r.Port()), ", "))
	} else {
		p.infof("listening on port %d", r.Port())
	}
	p.infof("%s", fallbackLine(addrs, r.Port()))
	rs.addrs, rs.fp = addrs, id.Fingerprint()
	rs.showLink(r.Code(), true)
	p.infof("saving to %s", dir)

	if !o.noMDNS {
		adv, err := discovery.Advertise(discovery.AdvertiseConfig{
			Name: name, Fingerprint: id.Fingerprint(), Port: r.Port(), Ifaces: o.ifaces,
			OnSkip: mdnsSkips(p, o.ifaces),
		})
		if err != nil {
			p.warnf("cannot advertise on the network, senders need --to: %v", err)
		} else {
			defer adv.Close()
		}
	}
	if rs.noAsk != "" {
		if o.daemon {
			p.infof("accepting trusted devices only, until stopped")
		} else if o.acceptTrusted {
			p.infof("offers from devices that are not trusted will be declined (%s): re-run with --yes to accept without asking", rs.noAsk)
		} else {
			p.infof("offers will be declined (%s): re-run with --yes to accept without asking", rs.noAsk)
		}
	}

	ctx, stop := onSignals(ctx, e.signals, "receiver", e.now, func() { forceExit(e, p) })
	defer stop()
	for {
		if o.daemon {
			p.infof("waiting for a trusted device")
		} else {
			p.infof("waiting for a sender: on the other device run 'ferry send PATH...' and type the code")
		}
		err := rs.serve(ctx)
		if errors.Is(err, transfer.ErrCodesStopped) {
			return err
		}
		if !o.keep {
			return err
		}
		if errors.Is(context.Cause(ctx), errInterrupted) {
			if o.daemon {
				p.infof("stopped: %v", context.Cause(ctx))
			}
			return nil
		}
		if err != nil {
			code, kind, hint := classify(err)
			p.warnf("transfer failed: %v", err)
			if o.daemon {
				p.stderrHint(hint)
			}
			p.event(event.Error{Kind: kind, ExitCode: code, Message: err.Error(), Hint: hint})
		}
		if rs.codesStopped() {
			return codesStoppedError()
		}
		if o.code == "" && !o.daemon {
			p.noticef("code %s", r.Code())
			rs.showLink(r.Code(), false)
		}
	}
}

// showLink prints the page's link for code (--web), with the QR code
// and the hashes the first time.
func (rs *receiveSession) showLink(code string, first bool) {
	if rs.page == nil {
		return
	}
	links := pageLinks(rs.addrs, muxPort(rs.page), code, rs.fp)
	if first {
		showPage(rs.p, rs.page.Server(), links, rs.o.qr)
		return
	}
	rs.p.event(event.Page{Links: links, PageSHA256: rs.page.Server().PageHash,
		WasmSHA256: rs.page.Server().WasmHash, HasWasm: rs.page.Server().HasWasm})
	rs.p.noticef("link %s", links[0])
}

const codesStoppedHint = "someone on the network may be guessing the code: run 'ferry receive' again for a new code when you are ready (trusted devices need no code)"

func codesStoppedError() error {
	return withHint(fmt.Errorf("stopped waiting for a sender: %w", transfer.ErrCodesStopped), codesStoppedHint)
}

// receiveDir returns the destination folder: --dir, which must exist, or
// the download folder (core/platform's DownloadDir, the GUI's default
// too), created when missing.
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
	dir, err := platform.DownloadDir()
	if err != nil {
		return "", withHint(err, "choose a folder with --dir")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", withHint(fmt.Errorf("creating the download folder: %w", err), "choose another folder with --dir")
	}
	return dir, nil
}

// receiveSession handles the engine's events for the receive command. Its
// onEvent runs on the engine's goroutine; a question about an offer runs
// on a goroutine of its own (the engine must not wait on a person), which
// serve starts through the handler and waits for before it returns.
type receiveSession struct {
	p     *printer
	o     receiveOpts
	q     *prompter
	pr    *progress
	r     *transfer.Receiver
	dir   string
	noAsk string       // why offers are declined without asking; "" asks (or --yes)
	store *trust.Store // nil when the trust file cannot be used
	after afterCode
	// --web: the page sharing the port, and what its links name
	page  *web.Mux
	addrs []string
	fp    string

	// stopped is set once the engine stopped taking codes
	// (CodesStopped); stop ends the serve that waits, unless a transfer
	// has started, which may finish first.
	stopMu  sync.Mutex
	stopped bool
	stop    context.CancelCauseFunc

	// Per transfer; written by serve before Serve and by the handler.
	ctx      context.Context
	wg       sync.WaitGroup
	peer     string
	peerName string
	peerKey  []byte
	paired   bool
	wrong    int // wrong codes before this transfer's code proved right
	mu       sync.Mutex
	declined string   // set when this end declined, with why
	texts    []string // received this transfer, for --to-clipboard only
	textsCut bool     // texts past MaxTextBytes in all were not kept

	// The history: the record of the transfer a sender started, if one
	// did (see history.go), and when Serve returned.
	hist  *historyLog // nil: not recorded
	now   func() time.Time
	rec   *history.Record
	saved []string // the entries' final names, relative to dir
	ended time.Time
}

// serve runs one transfer (serveTransfer) and records it in the history
// when a sender connected.
func (rs *receiveSession) serve(parent context.Context) error {
	rs.rec = nil
	err := rs.serveTransfer(parent)
	rs.recordTransfer(err)
	return err
}

func (rs *receiveSession) serveTransfer(parent context.Context) error {
	ctx, cancel := context.WithCancelCause(parent)
	rs.ctx, rs.peer, rs.declined = ctx, "", ""
	rs.peerName, rs.peerKey, rs.paired, rs.wrong = "", nil, false, 0
	rs.texts, rs.textsCut = nil, false
	rs.stopMu.Lock()
	rs.stop = cancel
	rs.stopMu.Unlock()
	sum, err := rs.r.Serve(ctx)
	rs.ended = rs.now()
	cancel(errors.New("transfer over"))
	rs.stopMu.Lock()
	rs.stop = nil
	rs.stopMu.Unlock()
	if err != nil && rs.peer == "" && rs.codesStopped() {
		rs.pr.finish(false)
		return codesStoppedError()
	}
	rs.wg.Wait()
	rs.pr.finish(err == nil)

	rs.mu.Lock()
	declined := rs.declined
	rs.mu.Unlock()
	if declined != "" && (err == nil || errors.Is(err, transfer.ErrDeclined)) {
		msg := fmt.Sprintf("declined the offer from %s: %s", rs.peer, declined)
		if rs.o.daemon {
			return withHint(relabel(msg, transfer.ErrDeclined), "to take files from that device, pair it once with 'ferry receive' and trust it")
		}
		if rs.noAsk != "" {
			return withHint(relabel(msg, transfer.ErrDeclined), "re-run with --yes to accept without asking")
		}
		return relabel(msg, transfer.ErrDeclined)
	}
	if err != nil {
		return interrupted(ctx, err)
	}
	rs.p.event(event.NewDone(sum, "receiver", rs.o.diag))
	rs.p.infof("received %s%s%s", describeSummary(sum), savedInto(sum, rs.dir), rateSuffix(sum))
	if rs.o.diag {
		rs.p.infof("diag: receiver, whole transfer: %s", event.EndLine("receiver", sum.Local, sum.Wall, sum.LocalCPU))
	}
	rs.textsToClipboard(parent)
	if !rs.paired {
		// The transfer's ctx is over; the question belongs to the command.
		rs.after.run(parent, trust.Device{Name: rs.peerName, Key: rs.peerKey}, rs.wrong)
	}
	return nil
}

// codesStopped says whether the engine stopped taking codes.
func (rs *receiveSession) codesStopped() bool {
	rs.stopMu.Lock()
	defer rs.stopMu.Unlock()
	return rs.stopped
}

// stopCodes is the engine's CodesStopped: say so, and end the wait for a
// sender, unless a transfer has started (it may finish; the receiver
// exits after it).
func (rs *receiveSession) stopCodes(e transfer.CodesStopped, connected bool) {
	rs.p.warnf("stopped taking codes: %d wrong codes were tried here in the last 24 hours, more than a person mistypes", e.Wrong)
	if rs.o.daemon {
		// Trusted devices need no code: a daemon goes on serving them.
		rs.p.infof("trusted devices can still send")
		return
	}
	rs.stopMu.Lock()
	rs.stopped = true
	stop := rs.stop
	rs.stopMu.Unlock()
	if stop != nil && !connected {
		stop(transfer.ErrCodesStopped)
	}
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

// pinned is the engine's Paired check, asked on a handshake goroutine
// when a sender asks for a transfer without a code. The file is read
// each time, so "ferry trust remove" in another terminal takes effect at
// once. A file that cannot be read trusts nobody; the engine's Refused
// event that follows is where the receiver says so.
func (rs *receiveSession) pinned(key []byte) bool {
	_, ok, err := rs.store.Trusted(key)
	return err == nil && ok
}

// refused reports a sender that the handshake refused in paired mode:
// one warning with its hint, and a "refused" event. It does not end the
// receiver (anyone could otherwise stop it), which goes on waiting for a
// sender with the code.
func (rs *receiveSession) refused(e transfer.Refused) {
	reason, msg, hint := refusalText(e, rs.store)
	rs.p.warnf("%s", msg)
	rs.p.stderrHint(hint)
	rs.p.event(event.Refused{Kind: "not_paired", Reason: reason, PeerFingerprint: e.PeerFingerprint,
		Addr: e.Addr, Message: msg, Hint: hint, Dropped: e.Dropped})
}

func (rs *receiveSession) onEvent(ev transfer.Event) {
	j := event.FromTransfer(ev, "receiver")
	if c, ok := ev.(transfer.Connected); ok && c.Paired && rs.store != nil {
		if d, ok, err := rs.store.Trusted(c.PeerKey); err == nil && ok {
			ce := j.(event.Connected)
			ce.PinnedName = d.Name
			j = ce
		}
	}
	if j != nil {
		rs.p.event(j)
	}
	switch e := ev.(type) {
	case transfer.Connected:
		rs.peer = peerLabel(e.PeerName, e.PeerFingerprint)
		rs.peerName, rs.peerKey, rs.paired, rs.wrong = e.PeerName, e.PeerKey, e.Paired, e.WrongCodes
		if e.Paired && rs.store != nil {
			if d, ok, err := rs.store.Trusted(e.PeerKey); err == nil && ok {
				rs.peer = pairedLabel(d.Name, e.PeerName, e.PeerFingerprint)
			}
		}
		if e.Paired {
			rs.p.infof("paired device %s connected from %s (no code)", rs.peer, e.Addr)
		} else {
			rs.p.infof("%s connected from %s", rs.peer, e.Addr)
		}
		rs.startRecord(e)
	case transfer.Offered:
		if rs.rec != nil {
			rs.rec.SetOffer(e.Offer.Files, e.Offer.Dirs, e.Offer.Texts, e.Offer.TotalBytes, e.Offer.Paths())
		}
		rs.offered(e.Offer)
	case transfer.Progress:
		rs.pr.update(e)
	case transfer.EntryDone:
		if rs.rec != nil && e.SavedAs != "" {
			rs.saved = append(rs.saved, e.SavedAs)
		}
		switch {
		case e.Outcome == transfer.Skipped:
			rs.p.infof("skipped %s: an identical file is already there", safe(e.Entry.Path))
		case e.Outcome == transfer.Resumed:
			rs.p.infof("resumed %s from a partial file", safe(e.Entry.Path))
		case e.SavedAs != "" && e.SavedAs != e.Entry.Path:
			rs.p.infof("saved %s as %s: the name was taken", safe(e.Entry.Path), safe(e.SavedAs))
		}
	case transfer.TextReceived:
		rs.keepText(e.Text)
		if !rs.o.json {
			t := e.Text
			if !strings.HasSuffix(t, "\n") {
				t += "\n"
			}
			rs.p.stdoutSnippet(t)
		}
	case transfer.CodeChanged:
		// A code used by a transfer is replaced as the transfer ends;
		// with --keep the loop shows the new one before it waits again.
		if e.Reason == transfer.CodeRetired {
			rs.p.noticef("too many wrong codes: the new code is %s", e.Code)
			rs.showLink(e.Code, false)
		}
	case transfer.CodesHeld:
		rs.p.warnf("%d wrong codes in the last 24 hours: no code is checked before %s (a sender who tries sooner is told to wait)",
			e.Wrong, e.Until.Local().Format("15:04:05"))
	case transfer.CodesStopped:
		rs.stopCodes(e, rs.peer != "")
	case transfer.Refused:
		rs.refused(e)
	case transfer.Diagnostics:
		if rs.o.diag {
			rs.p.infof("diag: receiver: %s", e.Split.Format(event.Stages("receiver"), e.Interval))
		}
	}
}

// maxListed is how many entries of an offer are listed before "and N more".
const maxListed = 8

func (rs *receiveSession) offered(o transfer.Offer) {
	if rs.peer == "" { // Connected comes first; it named a paired sender by its pin
		rs.peer = peerLabel(o.PeerName, o.PeerFingerprint)
	}
	rs.p.infof("%s wants to send %s:", rs.peer, describeOffer(o))
	rs.pr.setSummary(describeOffer(o))
	for i, en := range o.Entries {
		if i == maxListed {
			rs.p.infof("  and %d more", len(o.Entries)-maxListed)
			break
		}
		switch en.Kind {
		case transfer.KindDir:
			rs.p.infof("  %s/", safe(en.Path))
		default:
			rs.p.infof("  %s  %s", safe(en.Path), humanBytes(en.Size))
		}
	}
	// The engine keeps one answer for "the pending offer or the next one":
	// an answer given after this transfer ended would decide the next
	// transfer's offer (with --keep), so none is given then.
	ctx := rs.ctx
	if rs.paired && rs.o.acceptTrusted {
		// The engine has accepted already (AutoAcceptPaired).
		rs.p.event(event.Accepted{By: "trusted", TotalBytes: o.TotalBytes})
		rs.p.infof("accepted: %s is a trusted device (--accept-trusted)", rs.peer)
		return
	}
	accept := func(by string) {
		if ctx.Err() != nil {
			return
		}
		rs.p.event(event.Accepted{By: by, TotalBytes: o.TotalBytes})
		rs.r.Accept()
	}
	decline := func(why string) {
		if ctx.Err() != nil {
			return
		}
		rs.mu.Lock()
		rs.declined = why
		rs.mu.Unlock()
		rs.r.Decline()
	}
	rs.wg.Add(1)
	go func() {
		defer rs.wg.Done()
		switch {
		case rs.o.yes:
			accept("flag")
		case rs.noAsk != "":
			decline(rs.noAsk)
		default:
			ok, err := rs.q.confirm(ctx, fmt.Sprintf("accept %s from %s?", describeOffer(o), rs.peer))
			switch {
			case err != nil:
				decline(err.Error())
			case ok:
				accept("person")
			default:
				decline("you said no")
			}
		}
	}()
}

// describeSummary renders what a finished transfer moved: "3 files and 1
// folder (1.2 GiB)".
func describeSummary(s transfer.Summary) string {
	var o transfer.Offer
	for _, e := range s.Entries {
		switch e.Entry.Kind {
		case transfer.KindFile:
			o.Files++
		case transfer.KindDir:
			o.Dirs++
		case transfer.KindText:
			o.Texts++
		}
		o.TotalBytes += e.Entry.Size
	}
	return describeOffer(o)
}

// rateSuffix renders " in 9.1s (110 MiB/s)" for a summary.
func rateSuffix(s transfer.Summary) string {
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
