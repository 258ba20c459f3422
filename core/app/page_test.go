//go:build !js

package app

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/send"
)

// servedPage is a Page served on loopback with a page of two files.
func servedPage(t *testing.T) *Page {
	t.Helper()
	n, err := New(Config{ConfigDir: t.TempDir(), NoHistory: true,
		PageFiles: fstest.MapFS{"page.js": {Data: []byte("")}, "page.css": {Data: []byte("")}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	p, err := n.ServePage("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func serving(p *Page) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port())), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// A send to a page that ends with the connection lost (a page proved the
// code, then went: reloaded, closed, or stopped behind a locked screen)
// leaves the page served for a send again, MaxPageCuts times; any other
// end, or the send's context ending, closes it.
func TestPageAgain(t *testing.T) {
	lost := errkind.New(errkind.ConnectionLost, "connection lost")
	t.Run("cut", func(t *testing.T) {
		p := servedPage(t)
		for i := 1; i <= MaxPageCuts+1; i++ {
			var sc send.SendConfig
			p.sendTo(context.Background(), &sc)(lost)
			if want := i <= MaxPageCuts; p.Again() != want || serving(p) != want {
				t.Fatalf("cut %d: Again %v, serving %v; want %v", i, p.Again(), serving(p), want)
			}
		}
	})
	t.Run("through", func(t *testing.T) {
		p := servedPage(t)
		var sc send.SendConfig
		p.sendTo(context.Background(), &sc)(lost)
		p.sendTo(context.Background(), &sc)(nil)
		if p.Again() || serving(p) {
			t.Errorf("after a send that went through: Again %v, serving %v", p.Again(), serving(p))
		}
	})
	t.Run("other", func(t *testing.T) {
		p := servedPage(t)
		var sc send.SendConfig
		p.sendTo(context.Background(), &sc)(errors.New("declined"))
		if p.Again() || serving(p) {
			t.Errorf("after another failure: Again %v, serving %v", p.Again(), serving(p))
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		p := servedPage(t)
		ctx, cancel := context.WithCancel(context.Background())
		var sc send.SendConfig
		end := p.sendTo(ctx, &sc)
		cancel() // the page's close is under way once cancel returns
		end(lost)
		if p.Again() {
			t.Error("a send whose context ended left the page for a send again")
		}
	})
}
