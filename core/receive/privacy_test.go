package receive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"lukechampine.com/blake3"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// TestAbortReasonHidesLocalPaths: when a file fails on the sender's disk,
// the sender's own error names it by its absolute path, but the reason
// the receiver is told names it only by the entry's relative path.
func TestAbortReasonHidesLocalPaths(t *testing.T) {
	cases := []struct {
		name string
		want error
		// spoil makes the sender's read of abs fail; it may put hooks
		// in the sender's context, which it returns.
		spoil func(ctx context.Context, p *pair, abs string) context.Context
	}{
		{"changed while read", transfer.ErrSourceChanged, func(ctx context.Context, p *pair, abs string) context.Context {
			p.sev.hook = func(ev event.Event) {
				if _, ok := ev.(event.Progress); ok {
					later := time.Now().Add(time.Hour)
					os.Chtimes(abs, later, later)
				}
			}
			return ctx
		}},
		{"ends early", transfer.ErrSourceChanged, func(ctx context.Context, p *pair, abs string) context.Context {
			return testhooks.With(ctx, &testhooks.Hooks{DiskRead: func(io.Reader) io.Reader { return strings.NewReader("") }})
		}},
		{"read error", transfer.ErrPeerFailed, func(ctx context.Context, p *pair, abs string) context.Context {
			return testhooks.With(ctx, &testhooks.Hooks{DiskRead: func(io.Reader) io.Reader {
				return iotest.ErrReader(&fs.PathError{Op: "read", Path: abs, Err: syscall.EIO})
			}})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "home", "someone")
			abs := filepath.Join(root, "album", "2024", "photo.jpg")
			writeFile(t, abs, pattern(3*transfer.MaxChunk, 4))
			p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll})
			ctx := tc.spoil(t.Context(), p, abs)
			_, serr, _, rerr := p.run(ctx, event.Item{Path: filepath.Join(root, "album")})
			if serr == nil || rerr == nil {
				t.Fatalf("send: %v; receive: %v; want both to fail", serr, rerr)
			}
			if !errors.Is(rerr, tc.want) {
				t.Errorf("receiver: %v, want %v", rerr, tc.want)
			}
			t.Logf("sender: %v", serr)
			t.Logf("receiver: %v", rerr)
			if !strings.Contains(serr.Error(), abs) {
				t.Errorf("the sender's own error does not name %s: %v", abs, serr)
			}
			if strings.Contains(rerr.Error(), root) {
				t.Errorf("the receiver learnt the sender's path %s: %v", root, rerr)
			}
			if !strings.Contains(rerr.Error(), "album/2024/photo.jpg") {
				t.Errorf("the receiver was not told which entry failed: %v", rerr)
			}
		})
	}
}

// TestAbortReasonHidesDestination: the receiver's destination folder is
// not told to the sender either.
func TestAbortReasonHidesDestination(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "private", "downloads")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, src, []byte("hello"))
	p := newPair(t, t.Context(), ReceiverConfig{Dir: dir, Policy: AcceptAll})
	// The folder goes away after the receiver checked it: opening it for
	// the offer fails.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	if serr == nil || rerr == nil {
		t.Fatalf("send: %v; receive: %v; want both to fail", serr, rerr)
	}
	t.Logf("sender: %v", serr)
	t.Logf("receiver: %v", rerr)
	if !strings.Contains(rerr.Error(), dir) {
		t.Errorf("the receiver's own error does not name %s: %v", dir, rerr)
	}
	if strings.Contains(serr.Error(), dir) {
		t.Errorf("the sender learnt the receiver's folder %s: %v", dir, serr)
	}
}

// failingWriter fails every write as a full disk does: os.File's own
// error, which names the file by the name it was opened with.
type failingWriter struct{ name string }

func (w failingWriter) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: w.name, Err: syscall.ENOSPC}
}

// TestNoSpaceAbortHidesDestination: a write that fails on the receiver's
// disk names the partial file by its full path in the receiver's own
// error, never in the reason the sender is told.
func TestNoSpaceAbortHidesDestination(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "private", "downloads")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "a.bin")
	writeFile(t, src, pattern(3*transfer.MaxChunk, 5))
	p := newPair(t, t.Context(), ReceiverConfig{Dir: dir, Policy: AcceptAll, hooks: &testhooks.Hooks{
		DiskWrite: func(w io.Writer) io.Writer { return failingWriter{w.(*place.Partial).Name()} },
	}})
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	if !errors.Is(serr, transfer.ErrNoSpace) || !errors.Is(rerr, transfer.ErrNoSpace) {
		t.Fatalf("send: %v; receive: %v; want ErrNoSpace on both", serr, rerr)
	}
	t.Logf("sender: %v", serr)
	t.Logf("receiver: %v", rerr)
	if !strings.Contains(rerr.Error(), filepath.Join(dir, place.PartialDir)) {
		t.Errorf("the receiver's own error does not name its partial file: %v", rerr)
	}
	if strings.Contains(serr.Error(), dir) {
		t.Errorf("the sender learnt the receiver's folder %s: %v", dir, serr)
	}
	if !strings.Contains(serr.Error(), "a.bin") || !strings.Contains(serr.Error(), "no space") {
		t.Errorf("the sender was not told which entry failed and why: %v", serr)
	}
}

// TestHaveHashStaysHome is issue 13's disclosure: a sender that guesses
// a name and a size learned the BLAKE3 of the receiver's whole file at
// that name (here one holding pin=4711), which it could then test
// guesses of the content against offline. Now the answer says only
// "a file of this size is here", the sender must commit to its own hash,
// and the receiver says only whether that matched. Nothing the receiver
// sends, in the whole exchange, holds its file's hash.
func TestHaveHashStaysHome(t *testing.T) {
	secret := []byte("pin=4711")
	mine := blake3.Sum256(secret)
	for _, tc := range []struct {
		name  string
		guess []byte
	}{
		{"wrong guess", []byte("pin=0000")},
		{"right guess", secret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			writeFile(t, filepath.Join(dest, "secret.txt"), secret)
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			size := int64(len(tc.guess))
			r.send(wire.MsgOffer, wire.Offer{Version: wire.Version, Name: "guesser", Total: size, Entries: []event.Entry{
				{Path: "secret.txt", Kind: event.KindFile, Size: size, Mode: 0o644},
			}}.Encode())
			var heard [][]byte
			heard = append(heard, r.expect(wire.MsgHello))
			ans := r.expect(wire.MsgAnswer)
			heard = append(heard, ans)
			// count 1, entry 0, have: one bit, and nothing more.
			if want := []byte{1, 0, byte(wire.ActHave)}; !bytes.Equal(ans, want) {
				t.Errorf("answer %x, want exactly %x", ans, want)
			}
			guess := blake3.Sum256(tc.guess)
			r.send(wire.MsgHashes, wire.Hashes{Items: []wire.HashItem{{Index: 0, Hash: guess}}}.Encode())
			mb := r.expect(wire.MsgMatches)
			heard = append(heard, mb)
			m, err := wire.DecodeMatches(mb, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			same := bytes.Equal(tc.guess, secret)
			if (len(m.Indexes) == 1) != same {
				t.Fatalf("matches %v for a guess that is same=%v", m.Indexes, same)
			}
			if same {
				r.send(wire.MsgSkip, wire.Skip{Index: 0}.Encode())
			} else {
				r.send(wire.MsgBegin, wire.Begin{Index: 0}.Encode())
				r.send(wire.MsgData, tc.guess)
				r.send(wire.MsgEnd, wire.End{Index: 0, Hash: guess}.Encode())
			}
			r.send(wire.MsgFinish, nil)
			for {
				typ, b, err := r.recv()
				if err != nil {
					t.Fatalf("waiting for done: %v", err)
				}
				heard = append(heard, b)
				if typ == wire.MsgDone {
					break
				}
			}
			r.c.CloseWrite()
			if err := p.serveErr(t); err != nil {
				t.Fatalf("receiver: %v", err)
			}
			for _, b := range heard {
				if bytes.Contains(b, mine[:]) || bytes.Contains(b, mine[:8]) {
					t.Fatalf("the receiver sent its file's hash: %x", b)
				}
			}
			if got, _ := os.ReadFile(filepath.Join(dest, "secret.txt")); !bytes.Equal(got, secret) {
				t.Errorf("secret.txt became %q", got)
			}
			t.Logf("the sender heard %d messages, %d bytes of matches", len(heard), len(mb))
		})
	}
}

// TestNoSpaceRefusalHidesFigures: an offer too large for the disk is
// refused before anyone is asked, and the sender is told only "not
// enough space"; how much the offer needs and how much is free is for
// the receiver's person.
func TestNoSpaceRefusalHidesFigures(t *testing.T) {
	if _, ok := place.FreeSpace(t.TempDir()); !ok {
		t.Skip("free space cannot be known on windows or this system")
	}
	const huge = 1 << 60
	p := newPair(t, t.Context(), ReceiverConfig{Policy: Ask, Timeout: 5 * time.Second})
	r := dialRaw(t, t.Context(), p)
	r.send(wire.MsgOffer, wire.Offer{Version: wire.Version, Name: "x", Total: huge, Entries: []event.Entry{
		{Path: "big.iso", Kind: event.KindFile, Size: huge, Mode: 0o644},
	}}.Encode())
	r.expect(wire.MsgHello)
	ab := r.expectAbort()
	rerr := p.serveErr(t)
	t.Logf("sender told: code %d %q", ab.Code, ab.Reason)
	t.Logf("receiver: %v", rerr)
	if ab.Code != wire.CodeNoSpace || ab.Reason != transfer.ReasonNoSpace {
		t.Errorf("sender told code %d %q, want %d %q", ab.Code, ab.Reason, wire.CodeNoSpace, transfer.ReasonNoSpace)
	}
	if !errors.Is(rerr, transfer.ErrNoSpace) || !strings.Contains(rerr.Error(), strconv.Itoa(huge)) || !strings.Contains(rerr.Error(), "free") {
		t.Errorf("the receiver's own error does not give the figures: %v", rerr)
	}
	if n := len(eventsOf[event.Offer](p.rev)); n != 0 {
		t.Errorf("the person was asked about an offer that cannot fit (%d event.Offer events)", n)
	}
}

// TestSymlinkRefusalHidesWhat: an offered folder that lands on a symlink
// in the destination is refused before anyone is asked, and the sender
// is told only that the offer cannot be written here, not that (or
// where) the receiver has a link.
func TestSymlinkRefusalHidesWhat(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("windows: creating a symlink needs a privilege")
	}
	dest := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(dest, "Projects")); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "Projects")
	writeFile(t, filepath.Join(src, "a.txt"), []byte("a"))
	p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: Ask})
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	t.Logf("sender: %v", serr)
	t.Logf("receiver: %v", rerr)
	if !errors.Is(serr, transfer.ErrRefusedPath) || !errors.Is(rerr, transfer.ErrRefusedPath) {
		t.Fatalf("send: %v; receive: %v; want ErrRefusedPath on both", serr, rerr)
	}
	if !strings.Contains(serr.Error(), transfer.ReasonUnwritable) || strings.Contains(serr.Error(), "symlink") {
		t.Errorf("the sender was told more than %q: %v", transfer.ReasonUnwritable, serr)
	}
	if !strings.Contains(rerr.Error(), "symlink") || !strings.Contains(rerr.Error(), "Projects") {
		t.Errorf("the receiver's own error does not say what and where: %v", rerr)
	}
	if n := len(eventsOf[event.Offer](p.rev)); n != 0 {
		t.Errorf("the person was asked about an offer that cannot be written (%d event.Offer events)", n)
	}
}
