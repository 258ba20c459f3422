package ui

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
)

func TestExplain(t *testing.T) {
	// A real refused connection, as a person would meet it: the engine's
	// dial to a closed port (the engine gives the system's errors their
	// kind where they leave it).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	id, err := secure.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	_, refused := transfer.Send(t.Context(), transfer.SendConfig{Addrs: []string{addr}, Code: "482913", Identity: id,
		Items: []event.Item{{Text: "x"}}})
	if refused == nil {
		t.Fatalf("a closed port (%s) accepted a transfer", addr)
	}
	wrap := func(err error) error { return fmt.Errorf("sending: reading reply: %w", err) }
	tests := []struct {
		err      error
		headline string
	}{
		{wrap(secure.ErrWrongCode), "Wrong code"},
		{wrap(secure.ErrCodeRetired), "The code has changed"},
		{wrap(secure.ErrNotPaired), "Not paired any more"},
		{wrap(secure.ErrKeyChanged), "Device key changed"},
		{wrap(secure.ErrBusy), "The other device is busy"},
		{wrap(transfer.ErrDeclined), "Declined"},
		{wrap(transfer.ErrCancelled), "Cancelled"},
		{context.Canceled, "Cancelled"},
		{wrap(transfer.ErrNoSpace), "Not enough space"},
		{wrap(transfer.ErrRefusedPath), "A file name was refused"},
		{wrap(transfer.ErrVerify), "A file arrived damaged"},
		{wrap(transfer.ErrSourceChanged), "A file changed while it was being sent"},
		{wrap(transfer.ErrTimeout), "The other device stopped responding"},
		{wrap(secure.ErrConnectionLost), "Connection lost"},
		{wrap(secure.ErrTruncated), "Connection lost"},
		{wrap(secure.ErrIncompatibleVersion), "Incompatible versions"},
		{wrap(secure.ErrNotFerry), "That isn't a Ferry device"},
		{wrap(refused), "Couldn't reach the device"},
		{wrap(transfer.ErrProtocol), "The other device sent something unexpected"},
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
	bytes := map[int64]string{
		0: "0 bytes", 1: "1 byte", 999: "999 bytes", 1000: "1.00 kB", 2500: "2.50 kB",
		99_949: "99.9 kB", 999_949: "1.00 MB", 1_843_200_000: "1.84 GB", 1 << 62: "4.61 EB",
	}
	for n, want := range bytes {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	left := map[time.Duration]string{
		0: "", 800 * time.Millisecond: "1 s left", 59 * time.Second: "59 s left",
		150 * time.Second: "3 min left", 80 * time.Minute: "1 h 20 min left", 2 * time.Hour: "2 h left",
	}
	for d, want := range left {
		if got := formatLeft(d); got != want {
			t.Errorf("formatLeft(%v) = %q, want %q", d, got, want)
		}
	}
	if got := formatRate(48_700_000); got != "48.7 MB/s" {
		t.Errorf("formatRate = %q", got)
	}
	if got := formatRate(0); got != "" {
		t.Errorf("formatRate(0) = %q, want nothing", got)
	}
}

func TestQRHoldsLink(t *testing.T) {
	img, err := qrImage(web.Link("192.168.1.23", 41000, "482913", "K7QX-M2PA-9RTE-WD4C"))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 256 || b.Dx() != b.Dy() {
		t.Errorf("QR image is %v", b)
	}
}
