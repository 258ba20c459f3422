package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
)

func TestClassify(t *testing.T) {
	// The system's errors get their kinds from the engine, where they
	// leave it: a real dial to a closed port, a real listen on a taken
	// one, through core/app as the CLI makes them.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	n, err := app.New(app.Config{Name: "desk", ConfigDir: t.TempDir(), NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	_, inUse := n.Listen(app.ReceiveConfig{Listen: taken.Addr().String(), Dir: t.TempDir()})
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	dial := n.Send(t.Context(), app.SendConfig{Addrs: []string{closed.Addr().String()}, Code: "424242",
		Items: []event.Item{{Text: "x"}}}).Wait().Err
	if inUse == nil || dial == nil {
		t.Fatalf("listen on a taken port: %v; dial to a closed one: %v; want errors", inUse, dial)
	}
	tests := []struct {
		err  error
		code int
		kind string
	}{
		{nil, exitOK, ""},
		{errors.New("disk on fire"), exitFailure, "failure"},
		{usagef("h", "bad"), exitUsage, "usage"},
		{fmt.Errorf("handshake: %w", app.ErrWrongCode), exitWrong, "wrong_code"},
		{fmt.Errorf("handshake: %w", app.ErrCodeRetired), exitWrong, "code_retired"},
		{fmt.Errorf("offer: %w", app.ErrDeclined), exitDeclined, "declined"},
		{relabel("declined the offer from x: you said no", app.ErrDeclined), exitDeclined, "declined"},
		{fmt.Errorf("peer: %w", app.ErrCancelled), exitDeclined, "cancelled"},
		{interrupt{role: "sender", sig: os.Interrupt}, exitDeclined, "cancelled"},
		{fmt.Errorf("b.txt: %w", errkind.New(errkind.Verify, "verification failed: hash mismatch")), exitVerify, "verify"},
		{fmt.Errorf("connecting: %w", dial), exitFailure, "unreachable"},
		{fmt.Errorf("receiving: %w", inUse), exitFailure, "address_in_use"},
	}
	for _, tt := range tests {
		code, kind, _ := classify(tt.err)
		if code != tt.code || kind != tt.kind {
			t.Errorf("classify(%v) = %d %q, want %d %q", tt.err, code, kind, tt.code, tt.kind)
		}
	}
	if _, _, hint := classify(withHint(errors.New("x"), "do y")); hint != "do y" {
		t.Errorf("hint lost: %q", hint)
	}
}

func TestSignals(t *testing.T) {
	sigs := make(chan os.Signal)
	forced := make(chan struct{})
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	ctx, stop := onSignals(context.Background(), sigs, "sender", clock.now, func() { close(forced) })
	defer stop()
	sigs <- os.Interrupt
	<-ctx.Done()
	cause := context.Cause(ctx)
	if cause.Error() != "cancelled by the sender (interrupt)" || !errors.Is(cause, errInterrupted) {
		t.Errorf("cause %q", cause)
	}
	// The same signal delivered twice at once (to the process and to its
	// group) is one interrupt. The second send returns only once the
	// watcher is back in its select, so the first duplicate was judged
	// with the clock unmoved.
	sigs <- os.Interrupt
	sigs <- os.Interrupt
	select {
	case <-forced:
		t.Fatal("a duplicate signal forced the exit")
	default:
	}
	clock.advance(forceAfter)
	// The last duplicate may read the moved clock and force the exit
	// itself; either way a later signal forces it.
	select {
	case sigs <- syscall.SIGTERM:
	case <-forced:
	}
	<-forced
}

func TestSignalsStop(t *testing.T) {
	ctx, stop := onSignals(context.Background(), make(chan os.Signal), "receiver", time.Now, func() {})
	stop()
	stop()
	if errors.Is(context.Cause(ctx), errInterrupted) {
		t.Error("stop looks like an interrupt")
	}
}

// TestReceiveDirCreatesDefault: without --dir the receiver saves into
// core/platform's DownloadDir (tested there), creating it when missing.
func TestReceiveDirCreatesDefault(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on windows the default is the Downloads known folder, which HOME does not move (core/platform tests it)")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DOWNLOAD_DIR", "")
	dir, err := receiveDir("")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "Downloads"); dir != want {
		t.Errorf("download folder %s, want %s", dir, want)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("download folder %s not created: %v", dir, err)
	}
}
