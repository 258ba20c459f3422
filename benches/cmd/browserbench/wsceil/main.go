// Command wsceil measures how fast Chromium's WebSocket, sending from a
// dedicated worker with the page's bufferedAmount back-pressure, drains
// into a Go sink on 127.0.0.1: no wasm, no cipher, no file. It is the
// ceiling the page's send can reach in this browser on this machine, to
// read beside browserbench's figures. Headless Chromium via chromedp.
//
//	go run ./benches/cmd/browserbench/wsceil
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"
)

const page = `<html><body><script>
const src = ` + "`" + `
onmessage = async (e) => {
  const [url, total, size, hw, busy] = e.data;
  const ws = new WebSocket(url); ws.binaryType = "arraybuffer";
  await new Promise(r => ws.onopen = r);
  const buf = new Uint8Array(size); let sent = 0; const t0 = performance.now();
  while (sent < total) {
    while (ws.bufferedAmount > hw) await new Promise(r => setTimeout(r, 2));
    ws.send(buf); sent += size;
    for (const t = performance.now(); performance.now() - t < busy;) {}
  }
  const done = new Promise(r => ws.onmessage = r);
  ws.send(new Uint8Array(0)); await done;
  postMessage((performance.now() - t0));
};` + "`" + `;
// recv: the worker takes total bytes the server sends in messages of
// size, busy ms after each. direct: its own WebSocket. nested: a worker
// nested in it owns the socket, a WebSocketStream read only while fewer
// than hw bytes wait for the outer worker's answer, and transfers each
// message's buffer.
const recvSrc = ` + "`" + `
const spin = ms => { for (const t = performance.now(); performance.now() - t < ms;) {} };
onmessage = async (e) => {
  const [url, total, size, hw, busy, nested] = e.data;
  let got = 0; const t0 = performance.now();
  const take = n => { got += n; spin(busy); if (got >= total) postMessage(performance.now() - t0); };
  if (!nested) {
    const ws = new WebSocket(url); ws.binaryType = "arraybuffer";
    ws.onmessage = m => take(m.data.byteLength);
    return;
  }
  const inner = new Worker(URL.createObjectURL(new Blob([innerSrc])));
  inner.onmessage = m => { const n = m.data.byteLength; take(n); inner.postMessage(n); };
  inner.postMessage([url, hw]);
};
const innerSrc = ` + "\\`" + `
onmessage = async (e) => {
  const [url, hw] = e.data; let waiting = 0, room = null;
  onmessage = a => { waiting -= a.data; if (room && waiting < hw) { const r = room; room = null; r(); } };
  const wss = new WebSocketStream(url); const {readable} = await wss.opened; const rd = readable.getReader();
  for (;;) {
    while (waiting >= hw) await new Promise(r => room = r);
    const {value, done} = await rd.read(); if (done) return;
    const b = value instanceof ArrayBuffer ? value : value.buffer;
    waiting += b.byteLength; postMessage(b, [b]);
  }
};` + "\\`" + `;
` + "`" + `;
window.recv = (url, total, size, hw, busy, nested) => new Promise(r => {
  const w = new Worker(URL.createObjectURL(new Blob([recvSrc])));
  w.onmessage = e => { r(e.data); w.terminate(); }; w.postMessage([url, total, size, hw, busy, nested]);
});
window.run = (url, total, size, hw, busy) => new Promise(r => {
  const w = new Worker(URL.createObjectURL(new Blob([src])));
  w.onmessage = e => r(e.data); w.postMessage([url, total, size, hw, busy]);
});
</script></body></html>`

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "wsceil:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, page) })
	mux.HandleFunc("/recv", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		total, _ := strconv.Atoi(r.URL.Query().Get("total"))
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		buf := make([]byte, size)
		for sent := 0; sent < total; sent += size {
			if c.Write(r.Context(), websocket.MessageBinary, buf) != nil {
				return
			}
		}
		c.Close(websocket.StatusNormalClosure, "")
	})
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c.SetReadLimit(-1)
		ctx := r.Context()
		for {
			_, rd, err := c.Reader(ctx)
			if err != nil {
				return
			}
			n, _ := io.Copy(io.Discard, rd)
			if n == 0 {
				// An empty message ends a run: the reply says all before it arrived.
				if c.Write(ctx, websocket.MessageBinary, []byte{1}) != nil {
					return
				}
			}
		}
	})
	go http.Serve(ln, mux) //nolint:errcheck // ends with the process
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.Flag("headless", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel2 := chromedp.NewContext(actx)
	defer cancel2()
	base := "http://" + ln.Addr().String()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(base+"/")); err != nil {
		fmt.Fprintln(os.Stderr, "wsceil:", err)
		os.Exit(1)
	}
	if len(os.Args) > 1 && os.Args[1] == "-recv" {
		recv(ctx, ln.Addr().String())
		return
	}
	for round := 0; round < 3; round++ {
		// message size, high water, ms of busy work in the worker after each
		// send (the page's read, hash and seal of a 256 KiB batch take ~3).
		for _, c := range [][3]int{{256 << 10, 1 << 20, 0}, {256 << 10, 1 << 20, 3}, {1 << 20, 1 << 20, 0}} {
			js := fmt.Sprintf("run('ws://%s/ws', %d, %d, %d, %d)", ln.Addr(), 128<<20, c[0], c[1], c[2])
			ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](js, chromedp.EvalAwaitPromise))
			if err != nil {
				fmt.Fprintln(os.Stderr, "wsceil:", err)
				os.Exit(1)
			}
			fmt.Printf("round %d msg %d KiB highwater %d KiB busy %d ms/msg: %.1f MiB/s\n", round, c[0]>>10, c[1]>>10, c[2], 128/(ms/1000))
		}
	}
}

// recv measures the receive: a worker's own WebSocket against one on a
// worker nested in it, each with busy ms of work per 256 KiB message
// (the page's decrypt, hash and crossing take about 4.5).
func recv(ctx context.Context, addr string) {
	const total, size = 128 << 20, 256 << 10
	for round := 0; round < 3; round++ {
		for _, c := range [][2]int{{0, 0}, {0, 1}, {4, 0}, {4, 1}} {
			url := fmt.Sprintf("ws://%s/recv?total=%d&size=%d", addr, total, size)
			js := fmt.Sprintf("recv(%q, %d, %d, %d, %d, %d)", url, total, size, 4<<20, c[0], c[1])
			ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](js, chromedp.EvalAwaitPromise))
			if err != nil {
				fmt.Fprintln(os.Stderr, "wsceil:", err)
				os.Exit(1)
			}
			where := "the worker's own socket"
			if c[1] == 1 {
				where = "a nested worker's WebSocketStream, 4 MiB ahead"
			}
			fmt.Printf("round %d receive, busy %d ms/msg, %s: %.1f MiB/s\n", round, c[0], where, 128/(ms/1000))
		}
	}
}
