package ui

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/errkind"
)

func TestExplain(t *testing.T) {
	// A real refused connection, as a person would meet it: a Node's
	// dial to a closed port (the engine gives the system's errors their
	// kind where they leave it). The engine's errors that core/app does
	// not name are errors of their kind with their words, as the engine
	// makes them (core/receive/kinds_test.go holds each one's kind).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	refused := newDevice(t, "Laptop").Send(t.Context(), app.SendConfig{Addrs: []string{addr}, Code: "482913",
		Items: []event.Item{{Text: "x"}}}).Wait().Err
	if refused == nil {
		t.Fatalf("a closed port (%s) accepted a transfer", addr)
	}
	wrap := func(err error) error { return fmt.Errorf("sending: reading reply: %w", err) }
	tests := []struct {
		err      error
		headline string
	}{
		{wrap(app.ErrWrongCode), "Wrong code"},
		{wrap(app.ErrCodeRetired), "The code has changed"},
		{wrap(app.ErrNotPaired), "Not paired any more"},
		{wrap(app.ErrKeyChanged), "Device key changed"},
		{wrap(errkind.New(errkind.Busy, "receiver busy")), "The other device is busy"},
		{wrap(app.ErrDeclined), "Declined"},
		{wrap(app.ErrCancelled), "Cancelled"},
		{context.Canceled, "Cancelled"},
		{wrap(errkind.New(errkind.NoSpace, "not enough free space")), "Not enough space"},
		{wrap(errkind.New(errkind.RefusedPath, "refused path")), "A file name was refused"},
		{wrap(errkind.New(errkind.Verify, "verification failed: hash mismatch")), "A file arrived damaged"},
		{wrap(errkind.New(errkind.SourceChanged, "a file changed on the sender's disk during the transfer")), "A file changed while it was being sent"},
		{wrap(errkind.New(errkind.Timeout, "the peer went silent")), "The other device stopped responding"},
		{wrap(errkind.New(errkind.ConnectionLost, "connection lost")), "Connection lost"},
		{wrap(errkind.New(errkind.ConnectionLost, "stream truncated")), "Connection lost"},
		{wrap(errkind.New(errkind.Incompatible, "incompatible protocol version")), "Incompatible versions"},
		{wrap(errkind.New(errkind.NotFerry, "peer is not speaking the ferry protocol")), "That isn't a Ferry device"},
		{wrap(refused), "Couldn't reach the device"},
		{wrap(errkind.New(errkind.Protocol, "protocol violation")), "The other device sent something unexpected"},
		{fmt.Errorf("something odd"), "Something went wrong"},
	}
	for _, tt := range tests {
		p := explain(tt.err)
		if p.Headline != tt.headline {
			t.Errorf("explain(%v).Headline = %q, want %q", tt.err, p.Headline, tt.headline)
		}
		if p.Advice == "" || !strings.HasSuffix(p.Advice, ".") {
			t.Errorf("explain(%v).Advice = %q: want a sentence", tt.err, p.Advice)
		}
		if p.Detail != tt.err.Error() {
			t.Errorf("explain(%v).Detail = %q", tt.err, p.Detail)
		}
	}
}

func TestFormat(t *testing.T) {
	left := map[time.Duration]string{
		0: "", 800 * time.Millisecond: "1 s left", 59 * time.Second: "59 s left",
		150 * time.Second: "3 min left", 80 * time.Minute: "1 h 20 min left", 2 * time.Hour: "2 h left",
	}
	for d, want := range left {
		if got := formatLeft(d); got != want {
			t.Errorf("formatLeft(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestQRHoldsLink(t *testing.T) {
	img, err := qrImage(nearby.PageLink("192.168.1.23", 41000, "482913", "K7QX-M2PA-9RTE-WD4C"))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 256 || b.Dx() != b.Dy() {
		t.Errorf("QR image is %v", b)
	}
}
