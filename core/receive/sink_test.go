package receive

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// memSink is a Sink that keeps everything in memory and records what it
// was told, as a browser page's download sink would be told it. It is
// not a mock of anything: it is the second real implementation of the
// interface, beside the folder.
type memSink struct {
	mu        sync.Mutex
	calls     []string // "folder p", "file p", "commit p", "discard p", "end"
	entries   map[string]event.Entry
	committed map[string][]byte
	discarded map[string][]byte
	ends      []error
	failFile  string // File fails for this path
}

func newMemSink() *memSink {
	return &memSink{entries: map[string]event.Entry{}, committed: map[string][]byte{}, discarded: map[string][]byte{}}
}

func (m *memSink) log(s string) { m.calls = append(m.calls, s) }

func (m *memSink) Folder(e event.Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log("folder " + e.Path)
	m.entries[e.Path] = e
	return nil
}

func (m *memSink) File(e event.Entry) (transfer.SinkFile, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log("file " + e.Path)
	if e.Path == m.failFile {
		return nil, fmt.Errorf("the page's storage at /secret/place refuses %s", e.Path)
	}
	m.entries[e.Path] = e
	return &memFile{m: m, e: e}, nil
}

func (m *memSink) End(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log("end")
	m.ends = append(m.ends, err)
}

type memFile struct {
	m      *memSink
	e      event.Entry
	buf    bytes.Buffer
	closed bool
}

func (f *memFile) Write(p []byte) (int, error) {
	if f.closed {
		return 0, errors.New("write after close")
	}
	return f.buf.Write(p)
}

func (f *memFile) Close(verified bool) error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.closed {
		f.m.log("closed twice " + f.e.Path)
		return errors.New("closed twice")
	}
	f.closed = true
	if verified {
		f.m.log("commit " + f.e.Path)
		f.m.committed[f.e.Path] = f.buf.Bytes()
	} else {
		f.m.log("discard " + f.e.Path)
		f.m.discarded[f.e.Path] = f.buf.Bytes()
	}
	return nil
}

func (m *memSink) snapshot() (calls []string, committed, discarded map[string][]byte, ends []error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.calls...), m.committed, m.discarded, append([]error(nil), m.ends...)
}

// TestSinkTree: a tree from disk and a text, received into a Sink: every
// folder comes before what it holds, every file's bytes arrive whole and
// are committed as verified, with the sender's mode and time, End comes
// last with nil, and the receiver's folder is not touched.
func TestSinkTree(t *testing.T) {
	ctx := t.Context()
	src := filepath.Join(t.TempDir(), "album")
	files := map[string][]byte{
		"album/empty.txt":          nil,
		"album/a/b/deep.bin":       pattern(3*transfer.MaxChunk+17, 1),
		"album/naïve café ✓.txt":   []byte("café"),
		"album/a/chunk.bin":        pattern(transfer.MaxChunk, 2),
		"album/a/b/c/also a file":  pattern(1000, 3),
		"album/z last/x":           []byte("x"),
		"album/z last/y/zz/deeper": pattern(70_000, 4),
	}
	for p, b := range files {
		writeFile(t, filepath.Join(filepath.Dir(src), filepath.FromSlash(p)), b)
	}
	os.MkdirAll(filepath.Join(src, "empty dir"), 0o755)
	old := time.Date(2001, 2, 3, 4, 5, 6, 7000, time.UTC)
	os.Chtimes(filepath.Join(src, "a", "chunk.bin"), old, old)
	os.Chmod(filepath.Join(src, "a", "chunk.bin"), 0o600)

	sink := newMemSink()
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, Sink: sink, SaveText: true})
	ssum, serr, rsum, rerr := p.run(ctx, event.Item{Path: src}, event.Item{Text: "hello there", Name: "note.txt"})
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	calls, committed, discarded, ends := sink.snapshot()
	files["note.txt"] = []byte("hello there")
	for path, want := range files {
		if got, ok := committed[path]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: committed %v, %d bytes, want %d", path, ok, len(got), len(want))
		}
	}
	if len(committed) != len(files) || len(discarded) != 0 {
		t.Errorf("committed %d entries (want %d), discarded %d", len(committed), len(files), len(discarded))
	}
	if e := sink.entries["album/a/chunk.bin"]; e.Mode != 0o600 || !e.ModTime.Equal(old) || e.Kind != event.KindFile {
		t.Errorf("chunk.bin told as %+v", e)
	}
	if e := sink.entries["note.txt"]; e.Kind != event.KindText {
		t.Errorf("the text told as %+v", e)
	}
	if e, ok := sink.entries["album/empty dir"]; !ok || e.Kind != event.KindDir {
		t.Errorf("empty folder told as %+v, %v", e, ok)
	}
	// Order: a folder before anything under it; each file opened, then
	// committed, before the next; End last and once.
	seen := map[string]bool{}
	open := ""
	for i, c := range calls {
		verb, path, _ := strings.Cut(c, " ")
		switch verb {
		case "folder", "file":
			if open != "" {
				t.Errorf("call %d %q while %q is open", i, c, open)
			}
			if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." && !seen[dir] {
				t.Errorf("call %d %q before its folder", i, c)
			}
			seen[path] = true
			if verb == "file" {
				open = path
			}
		case "commit":
			if path != open {
				t.Errorf("call %d %q, open was %q", i, c, open)
			}
			open = ""
		case "end":
			if i != len(calls)-1 {
				t.Errorf("End is call %d of %d", i, len(calls))
			}
		default:
			t.Errorf("call %d: %q", i, c)
		}
	}
	if len(ends) != 1 || ends[0] != nil {
		t.Errorf("End told %v", ends)
	}
	if names := listDir(t, p.r.cfg.Dir); len(names) != 0 {
		t.Errorf("the unused folder got %v", names)
	}
	if _, err := os.Stat(filepath.Join(p.r.cfg.Dir, place.PartialDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("partial folder created with a sink: %v", err)
	}
	if ssum.Bytes != rsum.Bytes || ssum.ResumedBytes != 0 || ssum.SkippedBytes != 0 {
		t.Errorf("sender sent %d (resumed %d, skipped %d), receiver got %d", ssum.Bytes, ssum.ResumedBytes, ssum.SkippedBytes, rsum.Bytes)
	}
	for _, ed := range ssum.Entries {
		if ed.SavedAs != ed.Entry.Path {
			t.Errorf("%s confirmed as saved at %q", ed.Entry.Path, ed.SavedAs)
		}
	}
	if texts := eventsOf[event.Text](p.rev); len(texts) != 1 || texts[0].Text != "hello there" {
		t.Errorf("texts: %+v", texts)
	}
}

// TestSinkTakesEverythingWhole: a sink holds nothing for the sender to
// skip or resume, so a file that the folder receiver would skip (the
// same file under its name) or resume is sent whole.
func TestSinkTakesEverythingWhole(t *testing.T) {
	ctx := t.Context()
	src := filepath.Join(t.TempDir(), "big.bin")
	data := pattern(2*transfer.MaxChunk+5, 9)
	writeFile(t, src, data)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "big.bin"), data) // a folder receiver would skip it
	sink := newMemSink()
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, Sink: sink, Dir: dir})
	ssum, serr, _, rerr := p.run(ctx, event.Item{Path: src})
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	if ssum.Bytes != int64(len(data)) || ssum.SkippedBytes != 0 {
		t.Errorf("sent %d bytes, skipped %d: want all %d sent", ssum.Bytes, ssum.SkippedBytes, len(data))
	}
	if _, committed, _, _ := sink.snapshot(); !bytes.Equal(committed["big.bin"], data) {
		t.Error("big.bin not committed whole")
	}
}

// TestSinkHashMismatch: a sender whose bytes are not what its end
// message's hash says (a hostile or broken peer): the sink commits the
// entries before it, is told that one failed (Close(false)), never sees
// the rest, and End gets ErrVerify.
func TestSinkHashMismatch(t *testing.T) {
	good, bad := []byte("all good"), []byte("tampered!")
	offer := wire.Offer{Version: wire.Version, Name: "x", Total: int64(len(good) + len(bad) + 3), Entries: []event.Entry{
		{Path: "d", Kind: event.KindDir, Mode: 0o755},
		{Path: "d/good", Kind: event.KindFile, Size: int64(len(good)), Mode: 0o644},
		{Path: "d/bad", Kind: event.KindFile, Size: int64(len(bad)), Mode: 0o644},
		{Path: "d/later", Kind: event.KindFile, Size: 3, Mode: 0o644},
	}}
	sink := newMemSink()
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, Sink: sink, Timeout: 5 * time.Second})
	r := dialRaw(t, t.Context(), p)
	r.send(wire.MsgOffer, offer.Encode())
	r.expect(wire.MsgHello)
	if ans := r.expect(wire.MsgAnswer); len(ans) != 1 || ans[0] != 0 {
		t.Errorf("a sink's answer lists something: % x", ans)
	}
	sendEntry := func(i int, data []byte, claimed []byte) {
		h := transfer.NewHasher()
		h.Write(claimed)
		end := wire.End{Index: i}
		h.Sum(end.Hash[:0])
		r.send(wire.MsgBegin, wire.Begin{Index: i}.Encode())
		r.send(wire.MsgData, data)
		r.send(wire.MsgEnd, end.Encode())
	}
	sendEntry(1, good, good)
	sendEntry(2, bad, []byte("original!"))
	if ab := r.expectAbort(); transfer.CodeSentinels[ab.Code] != transfer.ErrVerify {
		t.Errorf("abort code %d (%q)", ab.Code, ab.Reason)
	}
	if err := p.serveErr(t); !errors.Is(err, transfer.ErrVerify) {
		t.Fatalf("receiver: %v, want ErrVerify", err)
	}
	calls, committed, discarded, ends := sink.snapshot()
	want := []string{"folder d", "file d/good", "commit d/good", "file d/bad", "discard d/bad", "end"}
	if strings.Join(calls, "|") != strings.Join(want, "|") {
		t.Errorf("sink calls %q, want %q", calls, want)
	}
	if !bytes.Equal(committed["d/good"], good) || len(committed) != 1 || !bytes.Equal(discarded["d/bad"], bad) {
		t.Errorf("committed %q, discarded %q", committed, discarded)
	}
	if len(ends) != 1 || !errors.Is(ends[0], transfer.ErrVerify) {
		t.Errorf("End told %v", ends)
	}
}

// TestSinkTamperedRecord: a bit flipped on the wire inside a file's
// data fails the record's authentication: the file in progress is
// discarded (Close(false)) and never committed, End gets the error.
func TestSinkTamperedRecord(t *testing.T) {
	src := filepath.Join(t.TempDir(), "f.bin")
	data := pattern(4*transfer.MaxChunk, 5)
	writeFile(t, src, data)
	sink := newMemSink()
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, Sink: sink, Timeout: 5 * time.Second})
	p.send.Timeout = 5 * time.Second
	flip := &testkit.FlipByte{At: 2 * transfer.MaxChunk, Bit: 0x40} // well past the handshake and the offer
	p.send.Addrs = []string{testkit.StartProxy(t, p.send.Addrs[0], flip).Addr}
	cfg := p.send
	cfg.Items = []event.Item{{Path: src}}
	_, serr := send.Send(t.Context(), cfg)
	rerr := p.serveErr(t)
	if serr == nil || rerr == nil {
		t.Fatalf("a tampered record went through: send %v, receive %v", serr, rerr)
	}
	t.Logf("send: %v; receive: %v", serr, rerr)
	calls, committed, discarded, ends := sink.snapshot()
	if want := "file f.bin|discard f.bin|end"; strings.Join(calls, "|") != want {
		t.Errorf("sink calls %q, want %q", calls, want)
	}
	if len(committed) != 0 || len(discarded["f.bin"]) >= len(data) {
		t.Errorf("committed %d entries; discarded %d of %d bytes", len(committed), len(discarded["f.bin"]), len(data))
	}
	if len(ends) != 1 || ends[0] == nil {
		t.Errorf("End told %v", ends)
	}
}

// TestSinkSeesOnlyValidNames: an offer with any name that checkPath or
// validateEntries refuses never reaches the sink: not one call, not even
// End, and the sender is told the path was refused.
func TestSinkSeesOnlyValidNames(t *testing.T) {
	bad := [][]event.Entry{
		{{Path: "../escape", Kind: event.KindFile, Size: 1}},
		{{Path: "/etc/passwd", Kind: event.KindFile, Size: 1}},
		{{Path: "a/../../b", Kind: event.KindFile, Size: 1}},
		{{Path: ".ferry-partial/x", Kind: event.KindFile, Size: 1}},
		{{Path: "CON.txt", Kind: event.KindFile, Size: 1}},
		{{Path: "a\\b", Kind: event.KindFile, Size: 1}},
		{{Path: "bidi\u202etxt.exe", Kind: event.KindFile, Size: 1}},
		{{Path: "Report", Kind: event.KindFile, Size: 1}, {Path: "report", Kind: event.KindFile, Size: 1}},
		{{Path: "ok", Kind: event.KindFile, Size: 1}, {Path: "ok/inside", Kind: event.KindFile, Size: 1}},
	}
	for _, entries := range bad {
		t.Run(entries[len(entries)-1].Path, func(t *testing.T) {
			var total int64
			for _, e := range entries {
				total += e.Size
			}
			sink := newMemSink()
			p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, Sink: sink, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			r.send(wire.MsgOffer, wire.Offer{Version: wire.Version, Name: "x", Total: total, Entries: entries}.Encode())
			r.expect(wire.MsgHello)
			if ab := r.expectAbort(); transfer.CodeSentinels[ab.Code] != transfer.ErrRefusedPath && transfer.CodeSentinels[ab.Code] != transfer.ErrProtocol {
				t.Errorf("abort code %d (%q)", ab.Code, ab.Reason)
			}
			if err := p.serveErr(t); err == nil {
				t.Fatal("receiver accepted")
			}
			if calls, _, _, _ := sink.snapshot(); len(calls) != 0 {
				t.Errorf("the sink was told %q", calls)
			}
		})
	}
}

// TestSinkErrorIsPrivate: a sink that cannot take a file ends the
// transfer; the sender is told only that it cannot be written, not the
// sink's own words.
func TestSinkErrorIsPrivate(t *testing.T) {
	src := filepath.Join(t.TempDir(), "d")
	writeFile(t, filepath.Join(src, "a"), []byte("a"))
	writeFile(t, filepath.Join(src, "b"), []byte("b"))
	sink := newMemSink()
	sink.failFile = "d/b"
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, Sink: sink})
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	if rerr == nil || !strings.Contains(rerr.Error(), "/secret/place") {
		t.Errorf("receiver: %v, want the sink's error", rerr)
	}
	if serr == nil || !strings.Contains(serr.Error(), transfer.ReasonUnwritable) || strings.Contains(serr.Error(), "secret") {
		t.Errorf("sender: %v, want only %q", serr, transfer.ReasonUnwritable)
	}
	calls, committed, _, ends := sink.snapshot()
	if len(committed) != 1 || len(ends) != 1 || ends[0] == nil {
		t.Errorf("calls %q, ends %v", calls, ends)
	}
}

var _ transfer.Sink = (*memSink)(nil)
