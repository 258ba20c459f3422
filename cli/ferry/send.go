package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ferry-project/ferry/core/transfer"
)

type sendOpts struct {
	transferFlags
	to, peer, code, text string
	paths                []string
}

func parseSend(args []string) (sendOpts, error) {
	var o sendOpts
	fs := newFlagSet("send")
	fs.StringVar(&o.to, "to", "", "")
	fs.StringVar(&o.peer, "peer", "", "")
	fs.StringVar(&o.code, "code", "", "")
	fs.StringVar(&o.text, "text", "", "")
	o.transferFlags.register(fs)
	paths, err := parseArgs(fs, args)
	if err != nil {
		return o, err
	}
	o.paths = paths
	switch {
	case o.to != "" && o.peer != "":
		return o, usagef("use one or the other", "--to and --peer cannot be used together")
	case len(o.paths) == 0 && o.text == "":
		return o, usagef("name the files or folders to send, or use --text TEXT", "nothing to send")
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

// checkPaths makes sure every path exists and can be read, folders all
// the way down, before anything touches the network: a typo must not cost
// the receiver a question. Symbolic links inside folders are left to the
// engine, which decides what to do with them.
func checkPaths(paths []string) error {
	for _, path := range paths {
		fi, err := os.Stat(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return usagef("check the path: nothing was sent", "no such file or folder: %s", path)
			}
			return usagef("nothing was sent", "cannot read %s: %v", path, unwrapPath(err))
		}
		switch {
		case fi.Mode().IsRegular():
			if err := canRead(path); err != nil {
				return err
			}
		case fi.IsDir():
			err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return usagef("nothing was sent", "cannot read %s: %v", p, unwrapPath(err))
				}
				if d.Type().IsRegular() {
					return canRead(p)
				}
				return nil
			})
			if err != nil {
				return err
			}
		default:
			return usagef("send regular files and folders only", "not a regular file or folder: %s", path)
		}
	}
	return nil
}

func canRead(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return usagef("nothing was sent", "cannot read %s: %v", path, unwrapPath(err))
	}
	f.Close()
	return nil
}

func cmdSend(ctx context.Context, e *env, p *printer, args []string) error {
	o, err := parseSend(args)
	if err == errHelp {
		p.stdoutText(sendUsage)
	}
	if err != nil {
		return err
	}
	p.json, p.quiet = o.json, o.quiet
	interactive := e.stdinTerminal && !o.json
	if o.code == "" && !interactive {
		return usagef("pass the code the receiver shows with --code CODE", "no code given and %s", noTerminal(o.json))
	}
	if o.to == "" && o.peer == "" && !interactive {
		return usagef("pass --to HOST:PORT, or --peer NAME (see 'ferry peers')", "no receiver given and %s", noTerminal(o.json))
	}
	if err := checkPaths(o.paths); err != nil {
		return err
	}
	items := make([]transfer.Item, 0, len(o.paths)+1)
	for _, path := range o.paths {
		items = append(items, transfer.Item{Path: path})
	}
	if o.text != "" {
		items = append(items, transfer.Item{Text: o.text})
	}
	id, name, err := thisDevice(o.name)
	if err != nil {
		return err
	}

	ctx, stop := onSignals(ctx, e.signals, "sender", e.now, func() { forceExit(e, p) })
	defer stop()
	q := &prompter{p: p, in: e.stdin}
	dest, err := findReceiver(ctx, p, q, o)
	if err != nil {
		return interrupted(ctx, err)
	}
	code := o.code
	if code == "" {
		if code, err = askCode(ctx, q, dest.label); err != nil {
			return interrupted(ctx, err)
		}
	}

	ss := &sendSession{p: p, o: o, pr: newProgress(p, o.progressFor(e.stderrTerminal), e.now), peer: dest.label}
	p.infof("connecting to %s", dest.addr)
	sum, err := transfer.Send(ctx, transfer.SendConfig{
		Addr:     dest.addr,
		Code:     code,
		Identity: id,
		Name:     name,
		Items:    items,
		OnEvent:  ss.onEvent,
		Diag:     o.diag,
		Dialer:   dest.dial,
	})
	ss.pr.finish(err == nil)
	if err != nil {
		return interrupted(ctx, err)
	}
	p.event(newDoneEvent(sum, "sender", o.diag))
	p.infof("sent %s to %s%s, every file confirmed", describeSummary(sum), ss.peer, rateSuffix(sum))
	if o.diag {
		p.infof("diag: sender, whole transfer: %s", sum.Local.Format(stagesOf("sender"), sum.Wall))
		p.infof("diag: receiver, whole transfer: %s", sum.Remote.Format(stagesOf("receiver"), sum.RemoteWall))
		p.infof("diag: %s", sum.Verdict)
	}
	return nil
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
		if code != "" {
			return code, nil
		}
	}
	return "", usagef("type the code the receiver shows, or pass it with --code", "no code given")
}

// sendSession handles the engine's events for the send command, on the
// engine's goroutine.
type sendSession struct {
	p    *printer
	o    sendOpts
	pr   *progress
	peer string
}

func (ss *sendSession) onEvent(ev transfer.Event) {
	if j := jsonEvent(ev, "sender"); j != nil {
		ss.p.event(j)
	}
	switch e := ev.(type) {
	case transfer.Connected:
		ss.peer = peerLabel(e.PeerName, e.PeerFingerprint)
		ss.p.infof("connected to %s, waiting for it to accept", ss.peer)
	case transfer.Accepted:
		switch {
		case e.Total == 0 && e.Offer.TotalBytes > 0:
			ss.p.infof("accepted: the receiver already has all of %s", describeOffer(e.Offer))
		case e.Total < e.Offer.TotalBytes:
			ss.p.infof("accepted: sending %s of %s, the rest is already there", humanBytes(e.Total), describeOffer(e.Offer))
		default:
			ss.p.infof("accepted: sending %s", describeOffer(e.Offer))
		}
	case transfer.Progress:
		ss.pr.update(e)
	case transfer.EntryDone:
		switch e.Outcome {
		case transfer.Skipped:
			ss.p.infof("skipped %s: the receiver already has it", e.Entry.Path)
		case transfer.Resumed:
			ss.p.infof("resumed %s where an earlier transfer stopped", e.Entry.Path)
		}
	case transfer.Diagnostics:
		if ss.o.diag {
			ss.p.infof("diag: sender: %s", e.Split.Format(stagesOf("sender"), e.Interval))
		}
	}
}
