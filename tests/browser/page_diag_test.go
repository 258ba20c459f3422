package browser

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/web"
)

// TestPageDiag: with diagnostics on, the page's own split has the stage
// only a page has, "JS crossing" (its WebSocket, the picked file's
// reads), with the bytes that crossed: core/app hands the page's
// WebSocket the transfer's Crossings.
func TestPageDiag(t *testing.T) {
	const size = 8 << 20
	b := Start(t)
	mux, id := pageServer(t, false)
	sink := &zeroSink{}
	r, err := receive.NewReceiver(receive.ReceiverConfig{Sink: sink, Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.AcceptAll, Diag: true})
	must(t, err)
	t.Cleanup(func() { r.Close() })
	served := make(chan error, 1)
	go func() { _, err := r.Serve(context.Background()); served <- err }()

	src := testkit.SparseFile(t, filepath.Join(t.TempDir(), "disk.img"), size)
	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(LANAddr, port, "246810", id.Fingerprint())))
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	must(t, b.Eval(`document.getElementById('files').onchange = null; true`, nil))
	must(t, b.Upload("#files", src))
	var done struct {
		Local struct {
			Stages []struct {
				Stage string `json:"stage"`
				Bytes int64  `json:"bytes"`
			} `json:"stages"`
		} `json:"local"`
	}
	must(t, b.EvalFor(2*time.Minute, `ferry.send({code: '246810', name: 'Phone', diag: true,
		files: document.getElementById('files').files, onEvent: () => {}})`, &done))
	must(t, <-served)
	var crossed int64 = -1
	for _, s := range done.Local.Stages {
		if s.Stage == "JS crossing" {
			crossed = s.Bytes
		}
	}
	// Each byte crosses at least twice: read out of the File, and
	// written into the WebSocket.
	if crossed < 2*size {
		t.Errorf("the page's split has JS crossing bytes %d, want at least %d: %+v", crossed, 2*size, done.Local.Stages)
	}
}
