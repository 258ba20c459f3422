package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/ferry-project/ferry/core/app/nearby"
)

func TestDropListsFilesAndFolders(t *testing.T) {
	h := newHarness(t, noReceive)
	src := t.TempDir()
	a := writeFile(t, src, "report.pdf", 2500)
	writeFile(t, src, "photos/one.jpg", 1000)
	writeFile(t, src, "photos/two.jpg", 3000)
	h.drop(a, src+"/photos", a) // the second drop of a is ignored

	v := h.u.send
	h.waitFor("the folder to be measured", func() bool {
		return len(v.sel.items) == 2 && !v.sel.items[1].Counting
	})
	h.loop.run(func() {
		if got, want := v.summary.Text, "2 items  ·  3 files  ·  6.50 kB"; got != want {
			t.Errorf("summary %q, want %q", got, want)
		}
		if v.dropHint.Visible() || !v.list.Visible() {
			t.Error("the drop hint still shows over the list")
		}
	})
	s := h.screen()
	for _, want := range []string{"report.pdf", "2.50 kB", "photos", "2 files, 4.00 kB"} {
		if !contains(s, want) {
			t.Errorf("window does not show %q", want)
		}
	}
}

func TestRemoveItem(t *testing.T) {
	h := newHarness(t, noReceive)
	src := t.TempDir()
	a := writeFile(t, src, "a.txt", 10)
	b := writeFile(t, src, "b.txt", 20)
	h.drop(a, b)
	v := h.u.send
	var removes []*widget.Button
	h.loop.run(func() {
		for _, o := range test.LaidOutObjects(v.list) {
			if btn, ok := o.(*widget.Button); ok && btn.Icon == theme.DeleteIcon() && btn.Visible() {
				removes = append(removes, btn)
			}
		}
	})
	if len(removes) != 2 {
		t.Fatalf("found %d remove buttons, want 2", len(removes))
	}
	h.tap(removes[0])
	h.check(func() bool {
		if len(v.sel.items) != 1 || v.sel.items[0].Name != "b.txt" {
			t.Errorf("after removing a.txt the selection is %v", v.sel.paths())
			return false
		}
		if v.summary.Text != "1 item  ·  1 file  ·  20 bytes" {
			t.Errorf("summary %q", v.summary.Text)
		}
		return true
	})
	h.loop.run(func() { test.Tap(v.clear) })
	h.loop.run(func() {
		if len(v.sel.items) != 0 || !v.dropHint.Visible() {
			t.Error("Clear left items behind or no drop hint")
		}
	})
}

func TestSendButtonNeedsFilesDeviceAndCode(t *testing.T) {
	h := newHarness(t, noReceive)
	v := h.u.send
	a := writeFile(t, t.TempDir(), "a.txt", 10)
	state := func() (bool, string) {
		var disabled bool
		var hint string
		h.loop.run(func() { disabled, hint = v.sendBtn.Disabled(), v.hint.Text })
		return disabled, hint
	}
	if d, hint := state(); !d || hint != "Add files or folders to send" {
		t.Errorf("empty view: disabled=%v hint %q", d, hint)
	}
	h.drop(a)
	if d, hint := state(); !d || hint != "Choose a device, or add one by its address" {
		t.Errorf("no device: disabled=%v hint %q", d, hint)
	}
	h.loop.run(func() {
		test.Type(v.addr, "127.0.0.1:9")
		test.Tap(v.addAddr)
	})
	if d, hint := state(); !d || hint != "Type the code the receiving device shows" {
		t.Errorf("no code: disabled=%v hint %q", d, hint)
	}
	h.loop.run(func() { test.Type(v.code, "123 456") })
	if d, hint := state(); d || hint != "Ready to send to 127.0.0.1:9" {
		t.Errorf("ready: disabled=%v hint %q", d, hint)
	}
	h.loop.run(func() {
		if v.codeText() != "123456" {
			t.Errorf("code %q, want spaces dropped", v.codeText())
		}
	})
}

func TestOpenLinkFillsAddressAndCode(t *testing.T) {
	h := newHarness(t, noReceive)
	v := h.u.send
	h.loop.run(func() {
		h.u.OpenLink(nearby.PageLink("10.0.0.7", 41000, "654321", "K7QX-M2PA-9RTE-WD4C"))
		d, ok := v.target()
		if !ok || d.Addrs[0] != "10.0.0.7:41000" || d.Fingerprint != "K7QX-M2PA-9RTE-WD4C" {
			t.Errorf("target %+v, %v", d, ok)
		}
		if v.codeText() != "654321" {
			t.Errorf("code %q", v.codeText())
		}
	})
}

func TestDiscoveredDevicesUpdateLive(t *testing.T) {
	updates := make(chan []Device)
	browse := func(ctx context.Context, onChange func([]Device)) error {
		for {
			select {
			case ds := <-updates:
				onChange(ds)
			case <-ctx.Done():
				return nil
			}
		}
	}
	h := newHarness(t, noReceive, func(c *Config) { c.Browse = browse })
	h.u.Start()
	v := h.u.send
	a := Device{Name: "Alpha", Fingerprint: "AAAA-AAAA-AAAA-AAAA", Addrs: []string{"127.0.0.1:1"}}
	b := Device{Name: "Beta", Fingerprint: "BBBB-BBBB-BBBB-BBBB", Addrs: []string{"127.0.0.1:2"}}
	self := Device{Name: "Me", Fingerprint: h.id.Fingerprint(), Addrs: []string{"127.0.0.1:4"}}
	updates <- []Device{a, self, b}
	h.waitFor("two devices", func() bool { return len(v.devices) == 2 })
	h.loop.run(func() {
		for _, d := range v.devices {
			if d.Name == "Me" {
				t.Error("this device's own receiver is listed")
			}
		}
	})
	h.loop.run(func() { v.devList.Select(1) })
	// Beta moves to another port and Alpha goes away: Beta stays chosen.
	b.Addrs = []string{"127.0.0.1:3"}
	updates <- []Device{b}
	h.waitFor("one device", func() bool { return len(v.devices) == 1 })
	h.loop.run(func() {
		d, ok := v.target()
		if !ok || d.Name != "Beta" || d.Addrs[0] != "127.0.0.1:3" {
			t.Errorf("target %+v, %v; want Beta at its new address", d, ok)
		}
	})
	updates <- nil
	h.waitFor("no devices", func() bool { return len(v.devices) == 0 && v.searching.Visible() })
}
