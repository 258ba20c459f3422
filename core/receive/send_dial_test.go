package receive

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/send"
)

// Send goes through core/dial's First: a receiver reached at its second address
// gets what is sent, and one reached at none fails naming every address.
func TestSendTriesEveryAddress(t *testing.T) {
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()

	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll})
	p.send.Addrs = append([]string{deadAddr}, p.send.Addrs...)
	if _, serr, _, rerr := p.run(t.Context(), event.Item{Text: "hello"}); serr != nil || rerr != nil {
		t.Fatalf("send to the second address: %v; receiver: %v", serr, rerr)
	}

	cfg := p.send
	cfg.Addrs = []string{deadAddr, deadAddr}
	cfg.Items = []event.Item{{Text: "hello"}}
	_, err = send.Send(t.Context(), cfg)
	var opErr *net.OpError
	if err == nil || strings.Count(err.Error(), deadAddr) != 2 || !errors.As(err, &opErr) {
		t.Errorf("send to no answering address: %v; want both attempts named", err)
	}
}
