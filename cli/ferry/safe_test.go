package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
)

func TestSafe(t *testing.T) {
	long := strings.Repeat("a", 200) + ".txt"
	tests := []struct{ in, want string }{
		{"laptop", "laptop"},
		{"Ana’s Pixel 8 — café 📱", "Ana’s Pixel 8 — café 📱"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"a\nferry: error: x", `a\x0aferry: error: x`},
		{"a\rb\tc\x00d\x7fe\x07", `a\x0db\x09c\x00d\x7fe\x07`},
		{"a\u009b31m", "aU+009B31m"},               // C1 CSI
		{"a\u0085b", "aU+0085b"},                   // C1 next line
		{"evil\u202egpj.exe", "evilU+202Egpj.exe"}, // bidi override
		{"a\u2066b\u2069", "aU+2066bU+2069"},       // bidi isolates
		{"de\u200bsk\ufeff", "deU+200BskU+FEFF"},   // zero-width space, BOM
		{"a\u2028b\u2029", "aU+2028bU+2029"},       // line and paragraph separators
		{"a\xffb\xc3", `a\xffb\xc3`},               // invalid UTF-8
		{long, strings.Repeat("a", 60) + "…" + strings.Repeat("a", 55) + ".txt"},
	}
	for _, tt := range tests {
		if got := safe(tt.in); got != tt.want {
			t.Errorf("safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// The cap counts printed characters and never cuts an escape in two.
	got := safe(strings.Repeat("\x1b", 100))
	if n := utf8.RuneCountInString(got); n > maxShown {
		t.Errorf("safe of 100 ESC prints %d characters, over %d", n, maxShown)
	}
	if strings.Trim(strings.ReplaceAll(strings.ReplaceAll(got, `\x1b`, ""), "…", ""), "") != "" {
		t.Errorf("safe cut an escape: %q", got)
	}
	if got := safeCap("a-very-long-file-name-indeed.iso", 10); got != "a-ver….iso" {
		t.Errorf("safeCap = %q", got)
	}
	// A text snippet on a terminal keeps its lines and tabs.
	if got := escape("one\ttwo\nthree\x1b]0;t\x07\r\n", 0, true); got != "one\ttwo\nthree\\x1b]0;t\\x07\\x0d\n" {
		t.Errorf("escape for a snippet = %q", got)
	}
}

// hostileName is a peer-chosen string that tries everything: a forged
// line, a carriage return, escape sequences (CSI, OSC, C1), a bidi
// override, and a run of "A"s long enough that only safe's cap keeps it
// from being printed whole, which is how this test sees a print path
// that skips safe (the whole-line escaping behind it would hide the
// control characters, not the length).
var hostileName = "mallory\nferry: error: forged line\r\x1b[2J\x1b]0;pwned\x07\u009b31m\u202e" +
	strings.Repeat("A", 150)

// checkHostileOutput fails if out carries a control character other
// than the newline ending each line, a line that does not start with
// "ferry: " (stderr only), or the peer string uncapped.
func checkHostileOutput(t *testing.T, what, out string, stderr bool) {
	t.Helper()
	if !strings.Contains(out, "mallory") {
		t.Errorf("%s: the peer's string is not shown at all:\n%q", what, out)
	}
	if strings.Contains(out, strings.Repeat("A", maxShown)) {
		t.Errorf("%s: a peer string was printed without safe (not capped):\n%q", what, out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !printable(line, false) {
			t.Errorf("%s: a control or format character reached the output: %q", what, line)
		}
		if stderr && !strings.HasPrefix(line, prefix) {
			t.Errorf("%s: a line without the %q prefix (forged or broken): %q", what, prefix, line)
		}
	}
}

// TestPeerStringsEscapedEverywhere drives every human print path that
// shows a peer-chosen string, through the command's own handlers, with
// a hostile name and path: the receiver's and the sender's engine events
// (connected, offer listing, progress, entries, refusals), the trust
// question and its answer, the device list to pick from, the peers table,
// a key-changed warning and an error quoting a peer's abort reason.
func TestPeerStringsEscapedEverywhere(t *testing.T) {
	path := "dir/" + hostileName + "/file"
	entry := event.Entry{Path: path, Kind: event.KindFile, Size: 3}
	peerKey := bytes.Repeat([]byte{7}, 32)
	fp := stores.Device{Key: peerKey}.Fingerprint()

	t.Run("receiver", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		p := &printer{stdout: &stdout, stderr: &stderr}
		clock := &fakeClock{t: time.Unix(1e9, 0)}
		rs := &receiveSession{p: p, pr: newProgress(p, progressPlain, clock.now)}
		// A paired sender with --accept-trusted: the listing is printed
		// and no question is asked (that path needs a live receiver).
		rs.o.acceptTrusted = true
		rs.onEvent(nil, event.Connected{PeerName: hostileName, PeerFingerprint: fp, Addr: "10.0.0.2:1", Paired: true})
		rs.onEvent(nil, event.Offer{PeerName: hostileName, PeerFingerprint: fp, Files: 9,
			Folders: 1, TotalBytes: 27, Entries: append([]event.Entry{{Path: path, Kind: event.KindDir}},
				entry, entry, entry, entry, entry, entry, entry, entry, entry)})
		rs.onEvent(nil, event.Progress{Done: 1, Total: 27, Current: path})
		rs.onEvent(nil, event.EntryDone{Entry: entry, Outcome: event.Skipped})
		rs.onEvent(nil, event.EntryDone{Entry: entry, Outcome: event.Resumed})
		rs.onEvent(nil, event.EntryDone{Entry: entry, Outcome: event.Received, SavedAs: path + " (1)"})
		store := trustHome(t)
		if err := store.NoteRecent(stores.Device{Name: hostileName, Key: peerKey}); err != nil {
			// The trust file refuses control characters in a name; a long
			// one it keeps, and that is enough for the listing's cap.
			if err := store.NoteRecent(stores.Device{Name: "mallory" + strings.Repeat("A", 150), Key: peerKey}); err != nil {
				t.Fatal(err)
			}
		}
		rs.after = afterCode{p: p, q: &prompter{p: p, in: strings.NewReader("y\n")}, n: testNode(t), ask: true}
		rs.after.run(context.Background(), app.Result{Peer: stores.Device{Name: hostileName, Key: peerKey}})
		p.warnf("transfer failed: %v", errors.New("the sender ended the transfer: "+hostileName[:70]+": cancelled"))
		report(p, withHint(keyChanged(hostileName, fp, stores.Device{Name: "x", Key: peerKey}), "h"))
		checkHostileOutput(t, "receiver stderr", stderr.String(), true)
		if stdout.Len() != 0 {
			t.Errorf("stdout: %q", stdout.String())
		}
	})

	t.Run("sender", func(t *testing.T) {
		var stderr bytes.Buffer
		p := &printer{stderr: &stderr}
		ss := &sendSession{p: p, pr: newProgress(p, progressPlain, time.Now)}
		ss.onEvent(nil, event.Connected{PeerName: hostileName, PeerFingerprint: fp, Addr: "10.0.0.1:1"})
		ss.onEvent(nil, event.Progress{Done: 1, Total: 3, Current: path})
		ss.onEvent(nil, event.EntryDone{Entry: entry, Outcome: event.Skipped})
		ss.onEvent(nil, event.EntryDone{Entry: entry, Outcome: event.Resumed})
		peers := []nearby.Peer{{Name: hostileName, Fingerprint: fp, Port: 1}}
		q := &prompter{p: p, in: strings.NewReader("1\n")}
		if _, err := pickPeer(context.Background(), p, q, peers, nil); err != nil {
			t.Fatal(err)
		}
		dest := fromPeer(peers[0])
		store := trustHome(t)
		if err := store.Add(stores.Device{Name: "mallory", Key: bytes.Repeat([]byte{8}, 32), PairedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		dest.name = "mallory"
		if _, err := classifyReceiver(p, store, dest, true); err != nil {
			t.Fatal(err)
		}
		checkHostileOutput(t, "sender stderr", stderr.String(), true)

		table := peersTable(peers, nil)
		checkHostileOutput(t, "peers table", table, false)
		if strings.Count(table, "\t") != 0 || strings.Count(table, "\n") != 2 {
			t.Errorf("the peers table is not two lines without tabs: %q", table)
		}
	})

	t.Run("bar", func(t *testing.T) {
		var stderr bytes.Buffer
		p := &printer{stderr: &stderr}
		pr := newProgress(p, progressBar, time.Now)
		pr.update(event.Progress{Done: 1, Total: 3, Current: "dir/mallory" + hostileName})
		pr.update(event.Progress{Done: 2, Total: 3, Current: "dir/mallory2" + hostileName})
		pr.finish(false)
		// The bar redraws with \r and its own escapes; what it shows of
		// the file name must carry none from the peer.
		for _, bad := range []string{"\x1b[2J", "\x1b]0", "\x07", "\u009b", "\u202e", "\nferry: error: forged"} {
			if strings.Contains(stderr.String(), bad) {
				t.Errorf("the progress bar shows %q from the peer: %q", bad, stderr.String())
			}
		}
	})
}

// TestTextSnippetOnTerminal: a snippet is written as sent to a pipe or a
// file, and with its control characters (but newlines and tabs) escaped
// on a terminal.
func TestTextSnippetOnTerminal(t *testing.T) {
	const text = "line one\n\tline two \x1b[2J\r\n"
	for _, term := range []bool{false, true} {
		var stdout bytes.Buffer
		p := &printer{stdout: &stdout, stdoutTerminal: term}
		rs := &receiveSession{p: p}
		rs.onEvent(nil, event.Text{Text: text})
		want := text
		if term {
			want = "line one\n\tline two \\x1b[2J\\x0d\n"
		}
		if stdout.String() != want {
			t.Errorf("stdout a terminal %v: got %q, want %q", term, stdout.String(), want)
		}
	}
}
