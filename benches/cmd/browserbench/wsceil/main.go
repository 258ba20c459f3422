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
