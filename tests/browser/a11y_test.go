package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/web"
)

// axTree is Chromium's accessibility tree of the page as a screen
// reader gets it, without the nodes it ignores.
func axTree(t *testing.T, b *Browser) []*accessibility.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	r, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatalf("reading the accessibility tree: %v", err)
	}
	var out []*accessibility.Node
	for _, n := range r.Nodes {
		if !n.Ignored {
			out = append(out, n)
		}
	}
	return out
}

// axString is an accessibility value as text ("" when absent).
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	s := strings.Trim(string(v.Value), `"`)
	return s
}

func axProp(n *accessibility.Node, name string) string {
	for _, p := range n.Properties {
		if string(p.Name) == name {
			return axString(p.Value)
		}
	}
	return ""
}

// axOf is the accessibility node of the element sel selects.
func axOf(t *testing.T, b *Browser, tree []*accessibility.Node, sel string) *accessibility.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS(sel), chromedp.AtLeast(0)))
	if err != nil || len(nodes) != 1 {
		t.Fatalf("%s: %d elements (%v)", sel, len(nodes), err)
	}
	for _, n := range tree {
		if n.BackendDOMNodeID == nodes[0].BackendNodeID {
			return n
		}
	}
	t.Fatalf("%s is not in the accessibility tree (hidden from screen readers)", sel)
	return nil
}

// TestPageAccessibility reads Chromium's accessibility tree of the
// page, ready to send with a file picked, as a screen reader would:
// every button has a name, the file inputs and the name field are
// labelled, the whole transfer's bar is a named progressbar, and live
// regions are there (before anything changes, so that changes are
// announced). Then it checks what a finger and a keyboard meet: every
// control is at least 44 px each way, and Tab goes through the controls
// in the order they are seen. Last, the transfer's result reaches the
// live region.
func TestPageAccessibility(t *testing.T) {
	b := Start(t)
	mux, id := pageServer(t, false)
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: t.TempDir(), Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.AcceptAll})
	must(t, err)
	t.Cleanup(func() { r.Close() })
	served := make(chan error, 1)
	go func() { _, err := r.Serve(context.Background()); served <- err }()

	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(LANAddr, port, "246810", id.Fingerprint())))
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	dir := t.TempDir()
	for _, n := range []string{"notes.txt", "scan.pdf"} {
		must(t, os.WriteFile(filepath.Join(dir, n), []byte("a file called "+n), 0o644))
	}
	must(t, b.Upload("#files", filepath.Join(dir, "notes.txt"), filepath.Join(dir, "scan.pdf")))
	_, err = b.WaitText(5*time.Second, "2 files")
	must(t, err)

	tree := axTree(t, b)
	var buttons []string
	live := map[string]bool{}
	for _, n := range tree {
		role, name := axString(n.Role), axString(n.Name)
		if role == "button" {
			if strings.TrimSpace(name) == "" {
				t.Errorf("a button without a name (DOM node %d)", n.BackendDOMNodeID)
			}
			buttons = append(buttons, name)
		}
		if l := axProp(n, "live"); l == "polite" || l == "assertive" {
			live[l] = true
		}
	}
	for _, want := range []string{"Send 2 files", "Clear", "Remove notes.txt", "Remove scan.pdf"} {
		found := false
		for _, got := range buttons {
			found = found || got == want
		}
		if !found {
			t.Errorf("no button named %q; the buttons: %q", want, buttons)
		}
	}
	if !live["polite"] || !live["assertive"] {
		t.Errorf("live regions: %v, want a polite one (progress, results) and an assertive one (failures)", live)
	}
	for sel, want := range map[string]string{"#files": "Pick files", "#folder": "Pick a folder", "#name": "This device's name"} {
		if got := axString(axOf(t, b, tree, sel).Name); got != want {
			t.Errorf("%s is named %q, want %q", sel, got, want)
		}
	}

	// Every control is at least 44 by 44 CSS pixels where it is shown.
	var small []string
	must(t, b.Eval(`[...document.querySelectorAll("button, .button, summary, input[type=text]")]
		.filter((e) => e.offsetParent !== null)
		.map((e) => [e.id || e.getAttribute("aria-label") || e.textContent.trim(), e.getBoundingClientRect()])
		.filter(([, r]) => r.width < 44 || r.height < 44)
		.map(([n, r]) => n + " " + Math.round(r.width) + "x" + Math.round(r.height))`, &small))
	if len(small) > 0 {
		t.Errorf("controls smaller than 44 px: %q", small)
	}

	// Tab from the top goes through the controls in reading order.
	must(t, b.Eval(`document.activeElement.blur(), true`, nil))
	var order []string
	for range 9 {
		must(t, b.run(5*time.Second, chromedp.KeyEvent(kb.Tab)))
		var who string
		must(t, b.Eval(`(() => { const e = document.activeElement; return e.id || e.getAttribute("aria-label") || e.tagName.toLowerCase() })()`, &who))
		order = append(order, who)
	}
	want := []string{"files", "folder", "clear", "Remove notes.txt", "Remove scan.pdf", "name", "send", "summary"}
	if got := strings.Join(order[:len(want)], " | "); got != strings.Join(want, " | ") {
		t.Errorf("focus order:\n got %s\nwant %s", got, strings.Join(want, " | "))
	}

	// Nothing the page loaded came from anywhere but the device that
	// served it: no fonts, no images, no scripts from elsewhere.
	var foreign []string
	must(t, b.Eval(`performance.getEntriesByType("resource").map((e) => e.name).filter((n) => !n.startsWith(location.origin + "/"))`, &foreign))
	// (The proxy's refusals are no measure here: Chromium's own
	// background requests end up there too.)
	if len(foreign) > 0 {
		t.Errorf("the page asked for %q beyond its origin", foreign)
	}

	// The result, once sent.
	must(t, b.Click("#send"))
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	must(t, err)
	must(t, <-served)
	tree = axTree(t, b)
	var said string
	for _, n := range tree {
		if axProp(n, "live") == "polite" {
			said += axString(n.Name)
		}
	}
	// The region is emptied and then filled (a change is what is
	// announced): wait for it to change to the result.
	var spoken bool
	must(t, b.Eval(`new Promise((done) => {
		const el = document.getElementById("announce");
		const said = () => el.textContent.includes("Every file was checked") && done(true);
		if (said()) return;
		new MutationObserver(said).observe(el, {childList: true, characterData: true, subtree: true});
		setTimeout(() => done(false), 5000);
	})`, &spoken))
	if !spoken {
		var now string
		b.Eval(`document.getElementById("announce").textContent`, &now)
		t.Errorf("the polite live region says %q (in the tree: %q), want the result", now, said)
	}
}

// TestPageDrop: files dropped on the page (a desktop browser's drag and
// drop, given to the page as the browser gives it: a drop event with a
// DataTransfer of Files) join the list and are sent like picked ones;
// while sending, the whole transfer's bar is a named progressbar in the
// accessibility tree.
func TestPageDrop(t *testing.T) {
	b := Start(t)
	mux, id := pageServer(t, false)
	dest := t.TempDir()
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.Ask})
	must(t, err)
	t.Cleanup(func() { r.Close() })
	served := make(chan error, 1)
	go func() { _, err := r.Serve(context.Background()); served <- err }()

	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(LANAddr, port, "246810", id.Fingerprint())))
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	body := bytes.Repeat([]byte("dropped on the page\n"), 5000)
	var veiled bool
	must(t, b.Eval(fmt.Sprintf(`(() => {
		const bin = atob(%q), a = new Uint8Array(bin.length);
		for (let i = 0; i < bin.length; i++) a[i] = bin.charCodeAt(i);
		const dt = new DataTransfer();
		dt.items.add(new File([a], "dropped.txt", {type: "text/plain"}));
		const at = document.querySelector("main");
		at.dispatchEvent(new DragEvent("dragenter", {dataTransfer: dt, bubbles: true, cancelable: true}));
		const shown = !document.getElementById("drop-veil").hidden;
		at.dispatchEvent(new DragEvent("dragover", {dataTransfer: dt, bubbles: true, cancelable: true}));
		at.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		return shown && document.getElementById("drop-veil").hidden;
	})()`, base64.StdEncoding.EncodeToString(body)), &veiled))
	if !veiled {
		t.Error("dragging files over the page did not show where to drop them, or the drop did not take it away")
	}
	_, err = b.WaitText(5*time.Second, "dropped.txt")
	must(t, err)
	text, _ := b.Text()
	if !strings.Contains(text, "1 file") {
		t.Fatalf("the dropped file is not in the list:\n%s", text)
	}
	must(t, b.Click("#send"))
	_, err = b.WaitText(30*time.Second, "to accept")
	must(t, err)
	bar := axOf(t, b, axTree(t, b), "#bar")
	if role, name := axString(bar.Role), axString(bar.Name); role != "progressbar" || name != "Whole transfer" {
		t.Errorf("the whole transfer's bar is a %q named %q, want a progressbar named \"Whole transfer\"", role, name)
	}
	r.Accept()
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	must(t, err)
	must(t, <-served)
	got, err := os.ReadFile(filepath.Join(dest, "dropped.txt"))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("dropped.txt: %d bytes (%v), want %d identical", len(got), err, len(body))
	}
}
