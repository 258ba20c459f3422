// Command concurbench is one end of benches/concur-rss.sh: a receiver
// that takes several senders at once (core/transfer's ServeMany, before
// the CLI offers it), or one sender. Both ends are real processes on
// loopback, so that the receiver's peak RSS is its own.
//
//	concurbench receive -dir D -max N -sessions K -code C
//	concurbench send -to HOST:PORT -code C FILE
//
// The receiver accepts every offer, prints "listening PORT" once bound,
// and exits after K sessions ended, printing how many finished; it exits
// 1 if any failed. The sender sends FILE and exits 1 on failure.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"

	"github.com/ferry-project/ferry/benches"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: concurbench receive|send ...")
		os.Exit(2)
	}
	if err := benches.CheckThisBuild(); err != nil {
		fmt.Fprintln(os.Stderr, "concurbench:", err)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "receive":
		err = runReceive(os.Args[2:])
	case "send":
		err = runSend(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "concurbench:", err)
		os.Exit(1)
	}
}

func runReceive(args []string) error {
	fs := flag.NewFlagSet("receive", flag.ExitOnError)
	dir := fs.String("dir", "", "destination folder")
	maxN := fs.Int("max", 1, "sessions at once (MaxConcurrent)")
	sessions := fs.Int("sessions", 1, "exit after this many sessions ended")
	code := fs.String("code", "", "the code")
	fs.Parse(args)
	id, err := secure.NewIdentity()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	ok, failed := 0, 0
	var firstErr error
	r, err := receive.NewReceiver(receive.ReceiverConfig{
		Dir: *dir, Code: *code, Listen: "127.0.0.1:0", Identity: id, Name: "concurbench",
		Policy: receive.AcceptAll, MaxConcurrent: *maxN,
		OnEvent: func(ev event.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e := ev.(type) {
			case event.Done:
				ok++
			case event.Error:
				if e.Session == 0 {
					return
				}
				failed++
				if firstErr == nil {
					firstErr = e.Err
				}
			default:
				return
			}
			if ok+failed == *sessions {
				cancel()
			}
		},
	})
	if err != nil {
		return err
	}
	defer r.Close()
	fmt.Printf("listening %d\n", r.Port())
	r.ServeMany(ctx) // ends with ctx, once every session ended
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("done finished=%d failed=%d\n", ok, failed)
	if failed > 0 {
		return fmt.Errorf("%d sessions failed, the first: %w", failed, firstErr)
	}
	return nil
}

func runSend(args []string) error {
	fs := flag.NewFlagSet("send", flag.ExitOnError)
	to := fs.String("to", "", "the receiver, host:port")
	code := fs.String("code", "", "the code")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return fmt.Errorf("send takes one file")
	}
	id, err := secure.NewIdentity()
	if err != nil {
		return err
	}
	_, err = send.Send(context.Background(), send.SendConfig{Addrs: []string{*to}, Code: *code,
		Identity: id, Name: "concurbench-sender", Items: []event.Item{{Path: fs.Arg(0)}}})
	return err
}
