package ui

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestReceiveServesPage: the Receive view's QR code carries the page
// link, and the real receiver behind it serves the page on that port:
// what a phone that scans the code opens.
func TestReceiveServesPage(t *testing.T) {
	h := newHarness(t, CoreEngine{})
	h.u.Start()
	v := h.u.recv
	h.waitFor("a code", func() bool { return len(v.code) >= 6 && v.qr.Image != nil })
	var link string
	h.loop.run(func() { link = v.link })
	if !strings.HasPrefix(link, "http://") || !strings.Contains(link, "/#code="+v.code) {
		t.Fatalf("the QR code holds %q, want http://HOST:PORT/#code=%s&fp=...", link, v.code)
	}
	l, err := ParseLink(link)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(l.Addr, ":")
	if i := strings.LastIndex(l.Addr, ":"); i >= 0 {
		port = l.Addr[i+1:]
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/")
	if err != nil {
		t.Fatalf("the receiver's port does not serve the page: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<title>Ferry</title>") {
		t.Fatalf("GET / on the receiver's port: %s\n%.300s", resp.Status, body)
	}
	// The code is never in what the page serves: it stays in the link's
	// fragment on the phone.
	if strings.Contains(string(body), v.code) {
		t.Errorf("the page served over the network contains the code %s", v.code)
	}
}
