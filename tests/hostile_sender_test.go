package tests

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"lukechampine.com/blake3"

	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/tests/hostile"
	"github.com/ferry-project/ferry/tests/proc"
)

// TestHostileSender points tests/hostile, a sender that speaks the real
// protocol and breaks its rules, at one real `ferry receive --keep`
// process: every manifest attack of core/transfer's hostile tests and
// more, more data than declared, a tiny file streamed forever, a flood of
// connections that never finish the handshake, a sender that goes silent
// after the handshake, and wrong codes, at once and then at full speed
// until the guess budget is spent. Between and during the attacks an
// honest `ferry send` must keep getting through; nothing may appear
// outside the destination (or in it, but for honest files); each code
// must retire after its limit, the receiver must check no more wrong
// codes than its budget and then exit 6; and the receiver's peak memory
// is reported and bounded.
func TestHostileSender(t *testing.T) {
	t.Parallel() // the stall waits for the peer timeout: share it with other waiting tests
	base := t.TempDir()
	dest, outside := filepath.Join(base, "dest"), filepath.Join(base, "outside")
	for _, d := range []string{dest, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	recv := proc.Start(t, exec.Command(proc.Ferry(t), "receive", "--keep", "--yes", "--json", "--no-mdns",
		"--dir", dest, "--code", "135790", "--listen", "127.0.0.1:0"), true)
	ev := recv.Until("listening", 20*time.Second)
	rig := &hostileRig{t: t, recv: recv, addr: fmt.Sprintf("127.0.0.1:%d", evInt(t, ev, "port")),
		code: "135790", base: base, dest: dest, outside: outside, src: t.TempDir()}
	rig.honest(t)

	peak := func(phase string) {
		t.Logf("receiver peak RSS (VmHWM) after %s: %s", phase, mib(vmHWM(t, recv.Cmd.Process.Pid)))
	}
	t.Run("manifest and stream attacks", rig.manifestAttacks)
	peak("the manifest and stream attacks")
	t.Run("tiny file streamed forever", rig.streamForever)
	peak("streaming forever")
	t.Run("many large texts", rig.manyTexts)
	peak("many large texts")
	t.Run("half-open handshake flood", rig.flood)
	peak("the handshake flood")
	t.Run("silent after the handshake", rig.stallAfterHandshake)
	t.Run("concurrent wrong codes", rig.concurrentWrongCodes)
	peak("the concurrent wrong codes")

	hwm := vmHWM(t, recv.Cmd.Process.Pid)
	t.Logf("receiver peak RSS through every attack: %s; %d honest sends, all received", mib(hwm), len(rig.honestNames))
	// The design's budget is 32 MiB per process; attacks must not make
	// memory grow with their number (500 stalled handshakes, many codes).
	if limit := int64(32 << 20); hwm > limit {
		t.Errorf("receiver peak RSS %s over %s", mib(hwm), mib(limit))
	}
	rig.checkDisk(t)
	// Last, as it ends the receiver: guessing at full speed spends the
	// guess budget, and the receiver stops taking codes and exits 6.
	t.Run("wrong codes until the receiver stops", rig.wrongCodes)
}

// hostileRig is the receiver under attack and what the test knows of it.
type hostileRig struct {
	t                     *testing.T
	recv                  *proc.Proc
	addr                  string
	mu                    sync.Mutex
	code                  string // the receiver's current code
	base, dest, outside   string
	src                   string   // the honest sender's files
	honestNames           []string // what honest sends put in dest
	honestN               int
	wrongGuesses, retired int
	concurrentChecked     int // wrong codes the concurrent guesses had checked
}

func (r *hostileRig) currentCode() string { r.mu.Lock(); defer r.mu.Unlock(); return r.code }

// outcome waits for the receiver's next done or error event, following
// code changes on the way.
func (r *hostileRig) outcome(t *testing.T) outcome {
	t.Helper()
	o := nextOutcome(t, r.recv, time.Minute)
	for _, ev := range o.events {
		if ev["event"] == "code_changed" {
			r.noteCode(t, ev)
		}
	}
	return o
}

func (r *hostileRig) noteCode(t *testing.T, ev map[string]any) {
	t.Helper()
	c, _ := ev["code"].(string)
	r.mu.Lock()
	defer r.mu.Unlock()
	if c == "" || c == r.code {
		t.Errorf("code_changed to %q from %q", c, r.code)
	}
	r.code = c
	// Only wrong guesses retire codes; a picked code used by a transfer
	// is replaced too (reason "used"), which the guess counts must not see.
	if ev["reason"] == "retired" {
		r.retired++
	}
}

// codeChanged waits for the receiver's next code_changed event.
func (r *hostileRig) codeChanged(t *testing.T) {
	t.Helper()
	r.noteCode(t, r.recv.Until("code_changed", 20*time.Second))
}

// honest sends a small new file with the real ferry and checks that it
// arrived whole.
func (r *hostileRig) honest(t *testing.T) {
	t.Helper()
	r.honestN++
	name := fmt.Sprintf("honest-%03d.txt", r.honestN)
	body := strings.Repeat(name+"\n", 1000)
	p := filepath.Join(r.src, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := proc.Run(t, exec.Command(proc.Ferry(t), "send", "--to", r.addr, "--code", r.currentCode(), "--quiet", p))
	if code != 0 {
		t.Fatalf("honest send %d exited %d:\n%s", r.honestN, code, stderr)
	}
	if o := r.outcome(t); !o.ok() {
		t.Fatalf("receiver after honest send %d: %v", r.honestN, o.ev)
	}
	got, err := os.ReadFile(filepath.Join(r.dest, name))
	if err != nil || string(got) != body {
		t.Fatalf("honest file %s did not arrive intact: %v", name, err)
	}
	r.honestNames = append(r.honestNames, name)
}

// checkDisk fails unless the destination holds only the honest files (and
// the partial folder) and nothing was written next to it or outside.
func (r *hostileRig) checkDisk(t *testing.T) {
	t.Helper()
	got := finalNames(t, r.dest)
	want := slices.Clone(r.honestNames)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("destination holds %v, want only the honest files %v", got, want)
	}
	if out, _ := os.ReadDir(r.outside); len(out) != 0 {
		t.Errorf("written outside the destination: %v", out)
	}
	if out, _ := os.ReadDir(r.base); len(out) != 2 {
		t.Errorf("written next to the destination: %v", out)
	}
}

// dial connects the hostile sender with the current code.
func (r *hostileRig) dial(t *testing.T) *hostile.Sender {
	t.Helper()
	s, err := hostile.Dial(t.Context(), r.addr, r.currentCode())
	if err != nil {
		t.Fatalf("hostile handshake: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// expectMsg reads the receiver's next message and fails unless it is of
// type want; it returns the body.
func expectMsg(t *testing.T, s *hostile.Sender, want uint8) []byte {
	t.Helper()
	typ, body, err := s.Next(20 * time.Second)
	if err != nil {
		t.Fatalf("waiting for message %d: %v", want, err)
	}
	if typ != want {
		if typ == hostile.Abort {
			a, _ := hostile.ParseAbort(body)
			t.Fatalf("got abort %d (%q), want message %d", a.Code, a.Reason, want)
		}
		t.Fatalf("got message %d, want %d", typ, want)
	}
	return body
}

// attack is one hostile transfer: what it plants in the destination,
// what it sends, and how the receiver must end it.
type attack struct {
	name    string
	entries []hostile.Entry // an offer of these (total: their sum), unless raw is set
	total   *uint64         // a declared total other than the sum
	raw     func(s *hostile.Sender)
	plant   func(t *testing.T, dest, outside string) (undo func())
	stream  func(s *hostile.Sender) // after the answer; nil expects the abort at once
	abort   uint8                   // the abort code the receiver must send; 0: none (the attacker hangs up)
	kind    string                  // the receiver's error kind
}

func offerFile(p string) hostile.Entry {
	return hostile.Entry{Kind: hostile.File, Path: p, Size: 1, Mode: 0o644}
}
func offerFolder(p string) hostile.Entry {
	return hostile.Entry{Kind: hostile.Folder, Path: p, Mode: 0o755}
}

const (
	abortRefused  = hostile.AbortRefusedPath
	abortProtocol = hostile.AbortProtocol
)

func attacks() []attack {
	long := strings.Repeat("d", 200)
	var deep []hostile.Entry
	for p := long; len(p) <= 4096+200; p += "/" + long {
		deep = append(deep, offerFolder(p))
	}
	one := uint64(1)
	half := uint64(math.MaxInt64/2 + 1)
	tenBytes := []hostile.Entry{{Kind: hostile.File, Path: "f", Size: 10, Mode: 0o644}}
	offer := func(version uint8, total uint64, es ...hostile.Entry) func(s *hostile.Sender) {
		return func(s *hostile.Sender) { s.Send(hostile.Offer, hostile.OfferBody(version, "hostile", total, es)) }
	}
	header := func(typ uint8, n uint32) func(s *hostile.Sender) {
		return func(s *hostile.Sender) { s.Header(typ, n) }
	}
	symlinkAt := func(name string) func(t *testing.T, dest, outside string) func() {
		return func(t *testing.T, dest, outside string) func() {
			p := filepath.Join(dest, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
			return func() { os.RemoveAll(filepath.Join(dest, strings.Split(name, "/")[0])) }
		}
	}
	streamed := func(steps ...func(s *hostile.Sender)) func(s *hostile.Sender) {
		return func(s *hostile.Sender) {
			for _, step := range steps {
				step(s)
			}
		}
	}
	begin := func(i, off uint64) func(s *hostile.Sender) {
		return func(s *hostile.Sender) { s.Send(hostile.Begin, hostile.BeginBody(i, off)) }
	}
	data := func(n int) func(s *hostile.Sender) {
		return func(s *hostile.Sender) { s.Send(hostile.Data, make([]byte, n)) }
	}
	end := func(s *hostile.Sender) { s.Send(hostile.End, hostile.EndBody(0, [32]byte{})) }

	return []attack{
		// core/transfer's TestHostileOffers, one by one.
		{name: "dotdot", entries: []hostile.Entry{offerFile("../x")}, abort: abortRefused},
		{name: "nested dotdot", entries: []hostile.Entry{offerFolder("a"), offerFile("a/../../x")}, abort: abortRefused},
		{name: "absolute", entries: []hostile.Entry{offerFile("/etc/x")}, abort: abortRefused},
		{name: "drive letter", entries: []hostile.Entry{offerFile(`C:\x`)}, abort: abortRefused},
		{name: "backslash dotdot", entries: []hostile.Entry{offerFile(`x\..\y`)}, abort: abortRefused},
		{name: "NUL byte", entries: []hostile.Entry{offerFile("a\x00b")}, abort: abortRefused},
		{name: "dot", entries: []hostile.Entry{offerFile(".")}, abort: abortRefused},
		{name: "dotdot alone", entries: []hostile.Entry{offerFolder("..")}, abort: abortRefused},
		{name: "dot inside", entries: []hostile.Entry{offerFolder("a"), offerFile("a/./b")}, abort: abortRefused},
		{name: "empty component", entries: []hostile.Entry{offerFolder("a"), offerFile("a//b")}, abort: abortRefused},
		{name: "name over 255 bytes", entries: []hostile.Entry{offerFile(strings.Repeat("n", 256))}, abort: abortRefused},
		{name: "path over 4096 bytes", entries: deep, abort: abortProtocol},
		{name: "CON", entries: []hostile.Entry{offerFile("CON")}, abort: abortRefused},
		{name: "nul.txt", entries: []hostile.Entry{offerFile("nul.txt")}, abort: abortRefused},
		{name: "COM1", entries: []hostile.Entry{offerFile("com1")}, abort: abortRefused},
		{name: "LPT9.log", entries: []hostile.Entry{offerFile("LPT9.log")}, abort: abortRefused},
		{name: "AUX in folder", entries: []hostile.Entry{offerFolder("a"), offerFolder("a/Aux")}, abort: abortRefused},
		{name: "PRN", entries: []hostile.Entry{offerFile("PRN")}, abort: abortRefused},
		{name: "trailing dot", entries: []hostile.Entry{offerFile("x.")}, abort: abortRefused},
		{name: "trailing space", entries: []hostile.Entry{offerFile("x ")}, abort: abortRefused},
		{name: "partial folder", entries: []hostile.Entry{offerFolder(partialFolder), offerFile(partialFolder + "/x")}, abort: abortRefused},
		{name: "not UTF-8", entries: []hostile.Entry{offerFile("a\xffb")}, abort: abortProtocol},
		{name: "same path twice", entries: []hostile.Entry{offerFile("a.txt"), offerFile("a.txt")}, abort: abortRefused},
		{name: "case only", entries: []hostile.Entry{offerFile("Photo.JPG"), offerFile("photo.jpg")}, abort: abortRefused},
		{name: "parent not offered", entries: []hostile.Entry{offerFile("a/b")}, abort: abortProtocol},
		{name: "folder with size", entries: []hostile.Entry{{Kind: hostile.Folder, Path: "a", Size: 5}}, abort: abortProtocol},
		{name: "unknown kind", entries: []hostile.Entry{{Kind: 9, Path: "a"}}, abort: abortProtocol},
		{name: "text over limit", entries: []hostile.Entry{{Kind: hostile.Text, Path: "t.txt", Size: 1<<20 + 1}}, abort: abortProtocol},
		{name: "more than the disk", entries: []hostile.Entry{{Kind: hostile.File, Path: "big", Size: 1 << 60}}, abort: hostile.AbortNoSpace},
		{name: "size sum overflows", entries: []hostile.Entry{{Kind: hostile.File, Path: "a", Size: half}, {Kind: hostile.File, Path: "b", Size: half}}, total: &one, abort: abortProtocol},
		{name: "symlink out of the destination", entries: []hostile.Entry{offerFolder("link"), offerFile("link/passwd")}, plant: symlinkAt("link"), abort: abortRefused},
		{name: "nested symlink", entries: []hostile.Entry{offerFolder("a"), offerFolder("a/b"), offerFile("a/b/x")}, plant: symlinkAt("a/b"), abort: abortRefused},
		{name: "partial folder is a symlink", entries: []hostile.Entry{offerFile("x")}, plant: func(t *testing.T, dest, outside string) func() {
			// Earlier sends left a partial folder: put it aside meanwhile.
			real, aside := filepath.Join(dest, partialFolder), dest+"-aside"
			if err := os.Rename(real, aside); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			undo := symlinkAt(partialFolder)(t, dest, outside)
			return func() {
				undo()
				if err := os.Rename(aside, real); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Error(err)
				}
			}
		}, stream: begin(0, 0), abort: abortRefused},

		// core/transfer's TestHostileStructure.
		{name: "millions of entries", raw: func(s *hostile.Sender) {
			s.Send(hostile.Offer, new(hostile.Body).U8(hostile.Version).Str("x").Uvarint(5_000_000).Uvarint(0).Bytes())
		}, abort: abortProtocol},
		{name: "manifest over the cap", raw: header(hostile.Offer, 4<<20+1), abort: abortProtocol},
		{name: "total that lies", entries: []hostile.Entry{offerFile("a")}, total: ptrTo(uint64(5)), abort: abortProtocol},
		{name: "negative size", entries: []hostile.Entry{{Kind: hostile.File, Path: "a", Size: 1 << 63, Mode: 0o644}}, abort: abortProtocol},
		{name: "unknown message type", raw: header(77, 0), abort: abortProtocol},
		{name: "data before offer", raw: func(s *hostile.Sender) { s.Send(hostile.Data, []byte("x")) }, abort: abortProtocol},
		{name: "other protocol version", raw: offer(9, 1, offerFile("a")), abort: abortProtocol, kind: "incompatible_version"},
		{name: "protocol 1 offer", raw: offer(1, 1, offerFile("a")), abort: abortProtocol, kind: "incompatible_version"},

		// core/transfer's TestHostileStream: the offer of one 10-byte
		// file is accepted, then the bytes lie.
		{name: "more bytes than declared", entries: tenBytes, stream: streamed(begin(0, 0), data(11)), abort: abortProtocol},
		{name: "more bytes over two chunks", entries: tenBytes, stream: streamed(begin(0, 0), data(6), data(6)), abort: abortProtocol},
		{name: "fewer bytes than declared", entries: tenBytes, stream: streamed(begin(0, 0), data(5), end), abort: abortProtocol},
		{name: "wrong hash", entries: tenBytes, stream: streamed(begin(0, 0), data(10), end), abort: hostile.AbortVerify, kind: "verify"},
		{name: "resume never offered", entries: tenBytes, stream: begin(0, 4), abort: abortProtocol},
		{name: "skip never offered", entries: tenBytes, stream: func(s *hostile.Sender) { s.Send(hostile.Skip, hostile.SkipBody(0)) }, abort: abortProtocol},
		{name: "entry out of order", entries: tenBytes, stream: begin(3, 0), abort: abortProtocol},
		{name: "finish too early", entries: tenBytes, stream: func(s *hostile.Sender) { s.Send(hostile.Finish, nil) }, abort: abortProtocol},
		{name: "stream cut", entries: tenBytes, stream: streamed(begin(0, 0), data(5), func(s *hostile.Sender) { s.Close() }), kind: "connection_lost"},

		// More than core/transfer's tests try.
		{name: "control character", entries: []hostile.Entry{offerFile("a\x1b[31mb")}, abort: abortRefused},
		{name: "UNC path", entries: []hostile.Entry{offerFile(`\\host\share\x`)}, abort: abortRefused},
		{name: "partial folder in another case", entries: []hostile.Entry{offerFolder(".FERRY-Partial"), offerFile(".FERRY-Partial/x")}, abort: abortRefused},
		{name: "CONIN$", entries: []hostile.Entry{offerFile("CONIN$")}, abort: abortRefused},
		{name: "set-uid mode", entries: []hostile.Entry{{Kind: hostile.File, Path: "a", Size: 1, Mode: 0o4755}}, abort: abortProtocol},
		{name: "nanoseconds over a second", entries: []hostile.Entry{{Kind: hostile.File, Path: "a", Size: 1, Mode: 0o644, Nsec: 1e9}}, abort: abortProtocol},
		{name: "trailing bytes after the offer", raw: func(s *hostile.Sender) {
			s.Send(hostile.Offer, append(hostile.OfferBody(hostile.Version, "x", 1, []hostile.Entry{offerFile("a")}), 0))
		}, abort: abortProtocol},
		{name: "hello instead of an offer", raw: func(s *hostile.Sender) { s.Send(hostile.Hello, new(hostile.Body).U8(hostile.Version).Str("x").Bytes()) }, abort: abortProtocol},
		{name: "empty data chunk", entries: tenBytes, stream: streamed(begin(0, 0), header(hostile.Data, 0)), abort: abortProtocol},
		{name: "data chunk over the limit", entries: tenBytes, stream: streamed(begin(0, 0), header(hostile.Data, hostile.ChunkSize+1)), abort: abortProtocol},
		{name: "keepalive with a body", entries: tenBytes, stream: header(hostile.Keepalive, 1), abort: abortProtocol},
		{name: "abort reason over the limit", entries: tenBytes, stream: header(hostile.Abort, 4096), abort: abortProtocol},
		{name: "answer from the sender", entries: tenBytes, stream: func(s *hostile.Sender) {
			s.Send(hostile.Answer, new(hostile.Body).Uvarint(0).Bytes())
		}, abort: abortProtocol},
		{name: "index past the entries", entries: tenBytes, stream: begin(1<<40, 0), abort: abortProtocol},
		{name: "hashes when nothing was had", entries: tenBytes, stream: func(s *hostile.Sender) {
			s.Send(hostile.Hashes, hostile.HashesBody([]hostile.HashItem{{Index: 0}}))
		}, abort: abortProtocol},
	}
}

func ptrTo[T any](v T) *T { return &v }

var abortKinds = map[uint8]string{
	hostile.AbortRefusedPath: "refused_path",
	hostile.AbortProtocol:    "protocol", // "failure" before issue 15 gave protocol violations a kind
	hostile.AbortNoSpace:     "no_space",
	hostile.AbortVerify:      "verify",
}

func (r *hostileRig) manifestAttacks(t *testing.T) {
	for _, a := range attacks() {
		t.Run(a.name, func(t *testing.T) {
			undo := func() {}
			if a.plant != nil {
				var once sync.Once
				u := a.plant(t, r.dest, r.outside)
				undo = func() { once.Do(u) }
				t.Cleanup(undo)
			}
			partsBefore := partials(t, r.dest)
			s := r.dial(t)
			if a.raw != nil {
				a.raw(s)
			} else {
				total := hostile.Total(a.entries)
				if a.total != nil {
					total = *a.total
				}
				s.Send(hostile.Offer, hostile.OfferBody(hostile.Version, "hostile", total, a.entries))
			}
			// The receiver's hello comes first whatever the offer.
			expectMsg(t, s, hostile.Hello)
			if a.stream != nil {
				expectMsg(t, s, hostile.Answer)
				a.stream(s)
			}
			if a.abort != 0 {
				ab, err := hostile.ParseAbort(expectMsg(t, s, hostile.Abort))
				if err != nil {
					t.Fatal(err)
				}
				if ab.Code != a.abort {
					t.Errorf("abort code %d (%q), want %d", ab.Code, ab.Reason, a.abort)
				}
			}
			o := r.outcome(t)
			want := a.kind
			if want == "" {
				want = abortKinds[a.abort]
			}
			if o.ok() || o.kind() != want {
				t.Errorf("receiver: %s (%s), want %s", o.kind(), o.message(), want)
			}
			t.Logf("refused: %s", o.message())
			undo()
			r.checkDisk(t)
			if a.abort == hostile.AbortVerify {
				for name := range partials(t, r.dest) {
					if _, ok := partsBefore[name]; !ok {
						t.Errorf("partial %s kept after a hash mismatch", name)
					}
				}
			}
		})
		r.honest(t)
	}
	t.Run("symlink at a file's final name", r.symlinkAtFinalName)
	r.honest(t)
}

// symlinkAtFinalName sends a valid file whose name is taken, in the
// destination, by a symlink to a file outside: the receiver must not
// write through the link.
func (r *hostileRig) symlinkAtFinalName(t *testing.T) {
	secret := filepath.Join(r.outside, "notes.txt")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(r.dest, "notes.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(secret)
	defer os.Remove(link)
	content := []byte("overwritten by a hostile sender\n")
	s := r.dial(t)
	s.Send(hostile.Offer, hostile.OfferBody(hostile.Version, "hostile", uint64(len(content)),
		[]hostile.Entry{{Kind: hostile.File, Path: "notes.txt", Size: uint64(len(content)), Mode: 0o644}}))
	expectMsg(t, s, hostile.Hello)
	expectMsg(t, s, hostile.Answer)
	s.Send(hostile.Begin, hostile.BeginBody(0, 0))
	s.Send(hostile.Data, content)
	s.Send(hostile.End, hostile.EndBody(0, blake3.Sum256(content)))
	s.Send(hostile.Finish, nil)
	typ, body, err := s.Next(20 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	o := r.outcome(t)
	t.Logf("receiver: message %d, then %v", typ, o.ev)
	if got, _ := os.ReadFile(secret); string(got) != "secret\n" {
		t.Fatalf("the file outside the destination was overwritten through a symlink: %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v", err)
	}
	if o.ok() {
		// Saved under another name: that name is the sender's right.
		saved := ""
		for _, ev := range o.events {
			if ev["event"] == "entry" {
				saved, _ = ev["saved_as"].(string)
			}
		}
		if saved == "" || saved == "notes.txt" {
			t.Fatalf("saved as %q", saved)
		}
		got, err := os.ReadFile(filepath.Join(r.dest, saved))
		if err != nil || string(got) != string(content) {
			t.Fatalf("%s: %q, %v", saved, got, err)
		}
		r.honestNames = append(r.honestNames, saved)
		t.Logf("saved as %q beside the symlink", saved)
	} else if typ != hostile.Abort {
		t.Errorf("receiver failed (%s) without telling the sender: message %d %q", o.message(), typ, body)
	}
}

// streamForever declares a 10-byte file and then sends data without end.
// The receiver must stop it at the first byte too many, and keep no more
// than the declared bytes.
func (r *hostileRig) streamForever(t *testing.T) {
	s := r.dial(t)
	s.Send(hostile.Offer, hostile.OfferBody(hostile.Version, "hostile", 10,
		[]hostile.Entry{{Kind: hostile.File, Path: "tiny.txt", Size: 10, Mode: 0o644}}))
	expectMsg(t, s, hostile.Hello)
	expectMsg(t, s, hostile.Answer)
	s.Send(hostile.Begin, hostile.BeginBody(0, 0))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	began := time.Now()
	n, err := s.StreamData(ctx)
	if ctx.Err() != nil {
		t.Fatalf("the receiver was still taking data after %v (%s)", time.Since(began), mib(n))
	}
	t.Logf("the receiver cut the stream after %s had been written into it (%v): %v", mib(n), time.Since(began).Round(time.Millisecond), err)
	o := r.outcome(t)
	if o.ok() || !strings.Contains(o.message(), "protocol violation") {
		t.Errorf("receiver: %v, want a protocol violation", o.ev)
	}
	for name, size := range partials(t, r.dest) {
		if size > 10 {
			t.Errorf("partial %s holds %d bytes of a 10-byte file", name, size)
		}
	}
	r.checkDisk(t)
	r.honest(t)
}

// manyTexts sends 64 text snippets of 512 KiB each, correctly: the
// receiver holds one text at a time, not all of them.
func (r *hostileRig) manyTexts(t *testing.T) {
	const n, size = 64, 512 << 10
	entries := make([]hostile.Entry, n)
	for i := range entries {
		entries[i] = hostile.Entry{Kind: hostile.Text, Path: fmt.Sprintf("t%02d.txt", i), Size: size}
	}
	s := r.dial(t)
	s.Send(hostile.Offer, hostile.OfferBody(hostile.Version, "hostile", hostile.Total(entries), entries))
	expectMsg(t, s, hostile.Hello)
	expectMsg(t, s, hostile.Answer)
	text := []byte(strings.Repeat("abcdefgh", size/8))
	sum := blake3.Sum256(text)
	for i := range entries {
		s.Send(hostile.Begin, hostile.BeginBody(uint64(i), 0))
		for off := 0; off < size; off += hostile.ChunkSize {
			s.Send(hostile.Data, text[off:min(off+hostile.ChunkSize, size)])
		}
		s.Send(hostile.End, hostile.EndBody(uint64(i), sum))
	}
	s.Send(hostile.Finish, nil)
	o := r.outcome(t)
	if !o.ok() || countEvents(o, "text") != n {
		t.Errorf("receiver: %v, %d texts", o.ev, countEvents(o, "text"))
	}
	r.checkDisk(t)
}

// flood opens 500 connections that never finish their handshake, all
// from the honest sender's own address, then sends honestly while they
// are pending; then floods from another address while sending honestly.
// Every stalled connection must be closed by the receiver in the end.
func (r *hostileRig) flood(t *testing.T) {
	const n = 500
	stalled := make([]*hostile.Stalled, 0, 2*n)
	defer func() {
		for _, st := range stalled {
			st.Close()
		}
	}()
	began := time.Now()
	for i := range n {
		st, err := hostile.Stall(t.Context(), nil, r.addr, r.currentCode(), i%3)
		if err != nil {
			t.Fatalf("opening stalled connection %d: %v", i, err)
		}
		stalled = append(stalled, st)
	}
	t.Logf("%d stalled connections opened in %v", n, time.Since(began).Round(time.Millisecond))
	sent := time.Now()
	r.honest(t)
	t.Logf("honest send through the flood took %v", time.Since(sent).Round(time.Millisecond))

	// A flood from another address while honest sends run.
	other := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	var wg sync.WaitGroup
	flooded := make(chan []*hostile.Stalled, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		var mine []*hostile.Stalled
		for i := range n {
			st, err := hostile.Stall(t.Context(), other, r.addr, r.currentCode(), i%3)
			if err != nil {
				t.Errorf("opening stalled connection from 127.0.0.2: %v", err)
				break
			}
			mine = append(mine, st)
		}
		flooded <- mine
	}()
	for range 3 {
		r.honest(t)
	}
	wg.Wait()
	stalled = append(stalled, <-flooded...)

	// Pending handshakes are evicted or time out (core/secure: 10 s).
	var closedSoon, closedLater, open int
	var cwg sync.WaitGroup
	var mu sync.Mutex
	for _, st := range stalled {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			soon := st.Closed(time.Second)
			later := soon || st.Closed(15*time.Second)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case soon:
				closedSoon++
			case later:
				closedLater++
			default:
				open++
			}
		}()
	}
	cwg.Wait()
	t.Logf("of %d stalled connections the receiver closed %d within a second (evicted, or closed when a transfer ended) and %d later (handshake timeout); %d still open",
		len(stalled), closedSoon, closedLater, open)
	if open != 0 {
		t.Errorf("%d stalled connections still open after the handshake timeout", open)
	}
	r.honest(t)
}

// wrongCodes guesses at full speed, one guess after another, until the
// receiver stops taking codes: every code retires after exactly three
// checked wrong guesses, the first code (retired long ago) does not work,
// guesses that come too soon are answered "held" unchecked, and in all
// the receiver checks its budget of twelve (counting those of the
// concurrent guesses before), then says codes_stopped and exits 6. A
// guess that reaches it as it ends finds the connection closed or
// refused, never "busy" (core/transfer's TestEndingServeIsNotBusy).
func (r *hostileRig) wrongCodes(t *testing.T) {
	began := time.Now()
	checked, held, perCode := 0, 0, 0
	for i := 0; ; i++ {
		code := r.currentCode()
		guess := fmt.Sprintf("%06d", (codeNum(code)+1+i)%1_000_000)
		if i == 0 {
			guess = "135790" // the first code, retired by now: it must not work
		}
		err := r.guess(t, guess)
		switch {
		case errors.Is(err, secure.ErrCodesHeld):
			held++
			continue
		case errors.Is(err, secure.ErrCodeRetired):
			checked++
			if perCode++; perCode != 3 {
				t.Fatalf("guess %d: the code was retired after %d wrong guesses, want 3", i+1, perCode)
			}
			r.codeChanged(t)
			perCode = 0
			continue
		case errors.Is(err, secure.ErrWrongCode):
			checked++
			// The guess that spends the budget stops the codes instead
			// of retiring this one.
			if perCode++; perCode >= 3 && checked+r.concurrentChecked != 12 {
				t.Fatalf("guess %d: %d wrong guesses against one code and it is still not retired", i+1, perCode)
			}
			continue
		case err != nil && !errors.Is(err, secure.ErrConnectionLost) && !isGone(err):
			t.Fatalf("guess %d: %v, want a wrong code, or the receiver gone", i+1, err)
		case err == nil:
			t.Fatalf("guess %d (%s) was right", i+1, guess)
		}
		break // the receiver is gone
	}
	took := time.Since(began)
	ev := failsAs(t, r.recv, 20*time.Second, "the receiver", "codes_stopped")
	stderr := r.recv.StderrText()
	t.Logf("%d wrong guesses checked and %d held back unchecked in %v (after %d checked at once before); the receiver exited %v",
		checked, held, took.Round(time.Millisecond), r.concurrentChecked, ev["exit_code"])
	if total := checked + r.concurrentChecked; total != 12 {
		t.Errorf("%d wrong codes checked in all, want the budget's 12", total)
	}
	if !strings.Contains(stderr, "stopped taking codes") {
		t.Errorf("the receiver did not say it stopped taking codes:\n%s", stderr)
	}
	// No honest send is possible now: the receiver is gone, and its
	// person has been told to start it again.
	r.checkDisk(t)
}

// isGone reports a guess that met a receiver that has gone: nobody
// listens on the port any more (refused), the listener closed as the
// connection came (reset), or the receiver, ending, closed a connection
// whose handshake had already sent its last message: the guesser's first
// read then finds the stream cut before any record (truncated; a CI run
// under a CPU hog met it at the last guess).
func isGone(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, secure.ErrTruncated)
}

func codeNum(s string) int {
	n := 0
	for _, c := range s {
		n = 10*n + int(c-'0')
	}
	return n
}

// guess runs one handshake with code and returns what its first read
// said: nil if the code was right.
func (r *hostileRig) guess(t *testing.T, code string) error {
	return r.guessFrom(t, nil, code)
}

func (r *hostileRig) guessFrom(t *testing.T, d *net.Dialer, code string) error {
	s, err := hostile.DialFrom(t.Context(), d, r.addr, code)
	if err != nil {
		return err
	}
	defer s.Close()
	_, _, err = s.Next(20 * time.Second)
	return err
}

// concurrentWrongCodes makes 30 wrong guesses at once, each from an
// address of its own (127.0.0.10 and up: from one address, all but the
// last 8 would be closed unanswered, by design). However the handshakes
// interleave, no code may be checked against more than its limit: every
// retired code was answered "wrong code" exactly twice, so the plain
// "wrong code" answers are twice the codes retired, plus at most two
// against the code left current. Past the guess budget's free ones, the
// guesses are held back unchecked.
func (r *hostileRig) concurrentWrongCodes(t *testing.T) {
	const n = 30
	retiredBefore := r.retired
	code := r.currentCode()
	errs := make(chan error, n)
	for i := range n {
		from := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(10+i))}}
		go func() { errs <- r.guessFrom(t, from, fmt.Sprintf("%06d", (codeNum(code)+1+i)%1_000_000)) }()
	}
	var wrong, retired, held, lucky, busy int
	for range n {
		err := <-errs
		switch {
		case errors.Is(err, secure.ErrWrongCode):
			wrong++
		case errors.Is(err, secure.ErrCodeRetired):
			retired++
		case errors.Is(err, secure.ErrCodesHeld):
			held++
		case err == nil:
			// The guess matched a code picked meanwhile (one chance in a
			// million per guess): a session, ended when guess hung up.
			lucky++
		case errors.Is(err, secure.ErrBusy):
			busy++ // refused during a lucky guess's session
		default:
			t.Errorf("concurrent guess: %v, want a wrong code", err)
		}
	}
	if busy > 0 && lucky == 0 {
		t.Errorf("%d guesses refused as busy, with no session running", busy)
	}
	for range lucky {
		r.outcome(t)
	}
	// Every code change, and every hold, was printed before the answer
	// that followed it was sent. Wait out the last hold, then take events
	// until a handshake with the latest code succeeds.
	for {
		for drained := false; !drained; {
			select {
			case ev := <-r.recv.Events:
				switch ev["event"] {
				case "code_changed":
					r.noteCode(t, ev)
				case "codes_held":
					if until, err := time.Parse(time.RFC3339Nano, ev["until"].(string)); err == nil {
						time.Sleep(time.Until(until)) // the hold is a time, not an event to await
					}
				}
			default:
				drained = true
			}
		}
		err := r.guess(t, r.currentCode())
		if err == nil || !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) && !errors.Is(err, secure.ErrCodesHeld) {
			break
		}
		if errors.Is(err, secure.ErrWrongCode) {
			// Our guess used a code retired meanwhile, whose change the
			// receiver printed but we had not read yet: the receiver
			// checked it against the current code, so it counts.
			wrong++
		}
		if !errors.Is(err, secure.ErrCodesHeld) {
			r.codeChanged(t) // our guess used a code retired meanwhile
		}
	}
	// The successful handshake above became a transfer that ended when
	// guess hung up.
	if o := r.outcome(t); o.ok() {
		t.Errorf("an empty session succeeded: %v", o.ev)
	}
	changed := r.retired - retiredBefore
	// Checked: every plain wrong answer, and the third guess against
	// each retired code (other "retired" answers were not checked).
	r.concurrentChecked = wrong + changed
	t.Logf("%d concurrent wrong guesses: %d answered wrong code (with any stale guess after them), %d code retired, %d held back unchecked; %d codes retired",
		n, wrong, retired, held, changed)
	if changed < 1 || wrong < 2*changed || wrong > 2*changed+2 {
		t.Errorf("%d plain wrong-code answers for %d retired codes: some code was checked more than three times", wrong, changed)
	}
	if r.concurrentChecked > 11 {
		t.Errorf("%d wrong codes checked at once: the budget checks 6 at once, then one per back-off step", r.concurrentChecked)
	}
	r.honest(t)
}

// stallAfterHandshake completes a handshake and then says nothing. The
// receiver is then in a transfer: an honest sender must be told at once
// that it is busy, not left hanging; the silent one must time out; and
// then the honest sender gets through.
func (r *hostileRig) stallAfterHandshake(t *testing.T) {
	s := r.dial(t)
	expectMsg(t, s, hostile.Hello) // the receiver has started the session
	began := time.Now()
	p := filepath.Join(r.src, "while-busy.txt")
	if err := os.WriteFile(p, []byte("later\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := proc.Run(t, exec.Command(proc.Ferry(t), "send", "--to", r.addr, "--code", r.currentCode(), "--quiet", p))
	t.Logf("honest send during the silent session: exit %d after %v: %s", code, time.Since(began).Round(time.Millisecond), strings.TrimSpace(stderr))
	if code == 0 {
		t.Errorf("an honest send completed while another session held the receiver")
	} else if !strings.Contains(stderr, "busy") {
		t.Errorf("the honest sender was not told the receiver is busy: exit %d:\n%s", code, stderr)
	}
	o := r.outcome(t)
	took := time.Since(began)
	t.Logf("the silent session ended after %v: %s: %s", took.Round(time.Millisecond), o.kind(), o.message())
	if o.ok() || o.kind() != "timeout" {
		t.Errorf("receiver: %v, want a timeout", o.ev)
	}
	if took > 2*peerTimeout {
		t.Errorf("the silent session held the receiver %v", took)
	}
	if typ, _, err := s.Next(5 * time.Second); err == nil && typ != hostile.Abort {
		t.Errorf("the silent session's connection still carries message %d", typ)
	}
	r.honest(t)
}

// TestHostileLargestManifest offers as many entries as the protocol
// allows (100,000 files, in an offer just under its 4 MiB limit), waits
// for the receiver to accept it, and hangs up. The receiver must answer
// and survive it, and its peak memory is reported. It has a receiver of
// its own whose stdout is kept as text; its offer event must list only
// the first 1,000 entries and say how many there are (a list of all
// 100,000 would be a line of several MiB, built in the receiver's
// memory).
func TestHostileLargestManifest(t *testing.T) {
	dest := t.TempDir()
	recv := proc.Start(t, exec.Command(proc.Ferry(t), "receive", "--keep", "--yes", "--json", "--no-mdns",
		"--dir", dest, "--code", "246802", "--listen", "127.0.0.1:0"), false)
	recv.Stdout.WaitFor(t, `"event":"listening"`, 20*time.Second)
	var port int
	if _, err := fmt.Sscanf(recv.Stdout.String()[strings.Index(recv.Stdout.String(), `"port":`):], `"port":%d`, &port); err != nil {
		t.Fatalf("no port in %s: %v", recv.Stdout, err)
	}
	pid := recv.Cmd.Process.Pid
	before := vmHWM(t, pid)

	entries := make([]hostile.Entry, 100_000)
	for i := range entries {
		entries[i] = hostile.Entry{Kind: hostile.File, Path: fmt.Sprintf("file-%06d-%s.bin", i, strings.Repeat("x", 16)), Size: 1, Mode: 0o644}
	}
	body := hostile.OfferBody(hostile.Version, "hostile", hostile.Total(entries), entries)
	s, err := hostile.Dial(t.Context(), fmt.Sprintf("127.0.0.1:%d", port), "246802")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	began := time.Now()
	s.Send(hostile.Offer, body)
	for _, want := range []uint8{hostile.Hello, hostile.Answer} {
		typ, _, err := s.Next(2 * time.Minute)
		if err != nil || typ != want {
			t.Fatalf("waiting for message %d: got %d, %v", want, typ, err)
		}
	}
	answered := time.Since(began)
	s.Close()
	recv.Stdout.WaitFor(t, `"event":"error"`, time.Minute)
	hwm := vmHWM(t, pid)
	for _, line := range strings.Split(recv.Stdout.String(), "\n") {
		if strings.Contains(line, `"event":"offer"`) &&
			(!strings.Contains(line, `"entries_total":100000`) || !strings.Contains(line, `"entries_listed":1000`) ||
				strings.Count(line, `"path":`) != 1000 || len(line) > 256<<10) {
			t.Errorf("the offer event does not list exactly the first 1,000 of 100,000 entries (a line of %d bytes)", len(line))
		}
	}
	t.Logf("offer of %d entries (%s): answered after %v; receiver peak RSS %s before, %s after",
		len(entries), mib(int64(len(body))), answered.Round(time.Millisecond), mib(before), mib(hwm))
	if names := finalNames(t, dest); len(names) != 0 {
		t.Errorf("an offer whose sender hung up left %v", names)
	}
	// The design's budget is 32 MiB per process. 77.9 MiB before the
	// CLI capped its offer event and set a soft memory limit; 38.4 to
	// 40.0 MiB later, as the engine grew, and once 53.3 MiB under load;
	// 27.3 to 29.7 MiB in 20 runs, half beside a CPU hog, on a machine
	// at load 13, once the receiver kept one list of the offer's entries
	// (core/transfer's rentry), named partial files without a hasher
	// each (core/place), and the CLI's limit fell to 20 MiB.
	if limit := int64(32 << 20); hwm > limit {
		t.Errorf("receiver peak RSS %s over the budget of %s", mib(hwm), mib(limit))
	}
	recv.Signal(os.Interrupt)
	recv.Exit(20 * time.Second)
}

// TestHostileDeviceName sends an offer whose device name, and then an
// abort whose reason, carry a newline and terminal escape sequences, to a
// receiver that prints for a person. Every line it prints must still be
// its own, and no control character from the peer may reach the
// terminal: a peer must not be able to forge a line or rewrite the
// screen.
func TestHostileDeviceName(t *testing.T) {
	dest := t.TempDir()
	recv := proc.Start(t, exec.Command(proc.Ferry(t), "receive", "--yes", "--no-mdns",
		"--dir", dest, "--code", "357913", "--listen", "127.0.0.1:0"), false)
	recv.Stderr.WaitFor(t, "listening on", 20*time.Second)
	out := recv.Stderr.String()
	var port int
	if _, err := fmt.Sscanf(out[strings.Index(out, "listening on 127.0.0.1:"):], "listening on 127.0.0.1:%d", &port); err != nil {
		t.Fatalf("no port in %q: %v", out, err)
	}
	s, err := hostile.Dial(t.Context(), fmt.Sprintf("127.0.0.1:%d", port), "357913")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	forge := "\nferry: error: forged line\r\x1b[2J\x1b]0;pwned\x07\u009b31m"
	s.Send(hostile.Offer, hostile.OfferBody(hostile.Version, "mallory"+forge, 1, []hostile.Entry{offerFile("a.txt")}))
	expectMsg(t, s, hostile.Hello)
	expectMsg(t, s, hostile.Answer)
	s.Send(hostile.Abort, new(hostile.Body).U8(hostile.AbortCancelled).Str("bye"+forge).Bytes())
	if c := recv.Exit(20 * time.Second); c != 4 {
		t.Errorf("receiver exited %d after the sender cancelled, want 4", c)
	}
	stderr := recv.Stderr.String()
	t.Logf("receiver stderr:\n%q", stderr)
	if !strings.Contains(stderr, "mallory") || !strings.Contains(stderr, "bye") {
		t.Fatal("the receiver printed neither the peer's name nor its reason")
	}
	var problems []string
	if strings.Contains(stderr, "\nferry: error: forged line") {
		problems = append(problems, "the peer forged a line")
	}
	if strings.ContainsAny(stderr, "\x1b\r\x07\u009b") {
		problems = append(problems, "the peer put control characters on the terminal")
	}
	if len(problems) > 0 {
		t.Errorf("%s through its device name and abort reason", strings.Join(problems, " and "))
	}
	// Shown, escaped: the person can see that the peer tried.
	if !strings.Contains(stderr, `mallory\x0aferry: error: forged line\x0d\x1b[2J`) {
		t.Errorf("the peer's name is not shown escaped")
	}
}
