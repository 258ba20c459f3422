package ui

// The page's end of "Send to a phone", played in Go on the page's
// WebSocket: see pageClient.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/testkit/testid"
)

// pageClient does what the page does in a phone's browser, from Go: it
// loads the page the link names, reads its token, opens the WebSocket
// the page opens (same Origin), and receives through it with the code in
// the link, saving into dir, as a device of its own. It is the page's
// protocol without the browser; tests/browser runs the real page.
//
// It speaks the wire itself: the page's receiving side is the engine on
// a connection the page opened (gui/page/wasm does the same today),
// which core/app cannot be handed, so it lives in this file.
func pageClient(t *testing.T, link, dir string) (event.Summary, error) {
	t.Helper()
	l, err := nearby.ParseLink(link)
	if err != nil {
		return event.Summary{}, err
	}
	port := l.Addr[strings.LastIndex(l.Addr, ":")+1:]
	base := "http://127.0.0.1:" + port
	resp, err := http.Get(base + "/")
	if err != nil {
		return event.Summary{}, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="ferry-token" content="([0-9a-f]+)"`).FindSubmatch(body)
	if m == nil {
		return event.Summary{}, fmt.Errorf("no token in the page:\n%.300s", body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+port+"/ws?t="+string(m[1]),
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {base}}})
	if err != nil {
		return event.Summary{}, err
	}
	conn := websocket.NetConn(context.Background(), ws, websocket.MessageBinary)
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dir, Code: l.Code, Identity: testid.New(t),
		Name: "Browser on Android", NoListen: true, Policy: receive.AcceptAll})
	if err != nil {
		conn.Close()
		return event.Summary{}, err
	}
	defer r.Close()
	return r.ServeConn(ctx, conn)
}
