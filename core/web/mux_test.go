package web

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
)

// TestMuxAsReceiverListener: a Receiver serves from a Mux
// (ReceiverConfig.Listener) as from its own port: the Mux stays open from
// one Serve to the next (Serve ends its Accept with SetDeadline, not by
// closing it), a WebSocket and a TCP sender each get through, closing
// the Receiver closes the Mux, and no partial folder is left.
func TestMuxAsReceiverListener(t *testing.T) {
	m, addr := startMux(t, Config{Name: "desk"})
	dest := t.TempDir()
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, Code: "246810", Listener: m, Identity: testid.New(t),
		Name: "desk", Policy: receive.AcceptAll, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	src := filepath.Join(t.TempDir(), "n.txt")
	if err := os.WriteFile(src, []byte("through the mux"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, dial := range []func(context.Context, string) (net.Conn, error){wsDialer(addr, "http://"+addr), nil} {
		done := make(chan error, 1)
		go func() {
			_, err := r.Serve(context.Background())
			done <- err
		}()
		if err := sendTo(t, addr, "246810", []transfer.Item{{Path: src}}, dial); err != nil {
			t.Fatalf("transfer %d: send: %v", i, err)
		}
		if err := <-done; err != nil {
			t.Fatalf("transfer %d: serve: %v", i, err)
		}
	}
	if _, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, Identity: testid.New(t), Listener: struct{ net.Listener }{m}}); err == nil {
		t.Error("a listener without SetDeadline was taken")
	}
	r.Close()
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("the port still takes connections after the Receiver closed")
	}
	if _, err := os.Stat(filepath.Join(dest, ".ferry-partial")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("partial folder left: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "n.txt")); err != nil || string(got) != "through the mux" {
		t.Errorf("n.txt: %q, %v", got, err)
	}
}
