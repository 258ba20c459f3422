package ui

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
)

// TestReceiveServesPage: the Receive view's QR code carries the page
// link, and the real receiver behind it serves the page on that port:
// what a phone that scans the code opens.
func TestReceiveServesPage(t *testing.T) {
	h := newHarness(t)
	h.u.Start()
	v := h.u.recv
	h.waitFor("a code", func() bool { return len(v.code) >= 6 && v.qr.Image != nil })
	var link string
	h.loop.run(func() { link = v.link })
	if !strings.HasPrefix(link, "http://") || !strings.Contains(link, "/#code="+v.code) {
		t.Fatalf("the QR code holds %q, want http://HOST:PORT/#code=%s&fp=...", link, v.code)
	}
	l, err := nearby.ParseLink(link)
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

// TestSendToPhone: "Send to a phone" shows a QR code with the page link
// and a fresh code, and waits; the page (pageClient) connects through the
// WebSocket and receives the files, checked, and the Send view shows the
// result.
func TestSendToPhone(t *testing.T) {
	h := newHarness(t, noReceive, withHistory(t, &folderLog{}))
	src := t.TempDir()
	a := writeFile(t, src, "holiday.jpg", 300_000)
	b := writeFile(t, src, "notes.txt", 1_000)
	h.drop(a, b)
	v := h.u.send
	h.waitFor("Send to a phone to be enabled", func() bool { return !v.phoneBtn.Disabled() })
	h.tap(v.phoneBtn)
	var link string
	h.waitFor("the phone's QR code", func() bool {
		link = v.phone.url
		return link != "" && v.phone.root.Visible() && v.phone.qr.Image != nil
	})
	if !strings.HasPrefix(link, "http://") || !regexp.MustCompile(`#code=[0-9]{12}&`).MatchString(link) {
		t.Fatalf("the phone's link is %q, want a twelve-digit code in its fragment", link)
	}
	if s := h.screen(); !contains(s, "Scan this with the phone") || !contains(s, "Waiting for the phone to open the page") {
		t.Errorf("the Send view does not say to scan and wait:\n%s", s)
	}

	dest := t.TempDir()
	sum, err := pageClient(t, link, dest)
	if err != nil {
		t.Fatalf("the page's receive: %v", err)
	}
	if len(sum.Entries) != 2 {
		t.Errorf("the page received %d entries, want 2", len(sum.Entries))
	}
	for _, f := range []string{a, b} {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(dest, filepath.Base(f)))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: %d bytes (%v), want %d", filepath.Base(f), len(got), err, len(want))
		}
	}
	h.waitFor("the send to finish", func() bool { return h.u.send.prog.state == stateVerified })
	h.check(func() bool {
		if v.phone.root.Visible() {
			t.Error("the QR code is still shown after the send")
		}
		return true
	})
	hv := h.historyRows(1)
	h.check(func() bool {
		r := hv.recs[0]
		if r.Direction != stores.HistorySent || r.Outcome != stores.HistoryVerified || r.Files != 2 || r.Folder != src || r.PeerName == "" {
			t.Errorf("the send to the phone's record: %+v", r)
		}
		return true
	})
}

// TestSendToPhoneCancel: cancelling while no phone came closes the port.
func TestSendToPhoneCancel(t *testing.T) {
	h := newHarness(t, noReceive)
	h.drop(writeFile(t, t.TempDir(), "a.txt", 10))
	v := h.u.send
	h.waitFor("Send to a phone to be enabled", func() bool { return !v.phoneBtn.Disabled() })
	h.tap(v.phoneBtn)
	var link string
	h.waitFor("the phone's QR code", func() bool { link = v.phone.url; return link != "" })
	h.tap(v.prog.cancel)
	h.waitFor("the send to end", func() bool { return h.u.send.cancel == nil })
	l, _ := nearby.ParseLink(link)
	port := l.Addr[strings.LastIndex(l.Addr, ":")+1:]
	if resp, err := http.Get("http://127.0.0.1:" + port + "/"); err == nil {
		resp.Body.Close()
		t.Errorf("the page's port still answers after cancel")
	}
}

// TestSendToPhoneWrongPage: a page that comes with another code is a
// guess the desktop counts (the Node's SendConfig.Listener, told
// through its unproven events): the Send view says so and goes on
// waiting, and the phone with the right code still gets the file.
func TestSendToPhoneWrongPage(t *testing.T) {
	h := newHarness(t, noReceive)
	h.drop(writeFile(t, t.TempDir(), "a.txt", 10))
	v := h.u.send
	h.waitFor("Send to a phone to be enabled", func() bool { return !v.phoneBtn.Disabled() })
	h.tap(v.phoneBtn)
	var link string
	h.waitFor("the phone's QR code", func() bool { link = v.phone.url; return link != "" })
	l, err := nearby.ParseLink(link)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(l.Addr)
	p, _ := strconv.Atoi(port)
	wrong := "111111111111"
	if l.Code == wrong {
		wrong = "222222222222"
	}
	if _, err := pageClient(t, nearby.PageLink(host, p, wrong, l.Fingerprint), t.TempDir()); err == nil {
		t.Fatal("a page with another code received the files")
	}
	h.waitFor("the guess said", func() bool {
		return strings.HasPrefix(v.prog.current.Text, "A page connected without the code (1 of ") && v.prog.state == stateRunning
	})
	if _, err := pageClient(t, link, t.TempDir()); err != nil {
		t.Fatalf("the phone with the code: %v", err)
	}
	h.waitFor("the send to finish", func() bool { return v.prog.state == stateVerified })
}
