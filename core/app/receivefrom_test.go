//go:build !js

package app

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// memSink keeps what ReceiveFrom hands it.
type memSink struct {
	mu    sync.Mutex
	files map[string]*bytes.Buffer
	kept  []string
	end   []error
}

type memFile struct {
	s    *memSink
	path string
	buf  *bytes.Buffer
}

func (s *memSink) Folder(event.Entry) error { return nil }
func (s *memSink) File(e event.Entry) (event.SinkFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]*bytes.Buffer{}
	}
	b := new(bytes.Buffer)
	s.files[e.Path] = b
	return &memFile{s: s, path: e.Path, buf: b}, nil
}
func (s *memSink) End(err error) {
	s.mu.Lock()
	s.end = append(s.end, err)
	s.mu.Unlock()
}
func (f *memFile) Write(p []byte) (int, error) { return f.buf.Write(p) }
func (f *memFile) Close(verified bool) error {
	if verified {
		f.s.mu.Lock()
		f.s.kept = append(f.s.kept, f.path)
		f.s.mu.Unlock()
	}
	return nil
}

// crossConn is a CrossingConn: it notes the Crossings it is handed.
type crossConn struct {
	net.Conn
	got chan *Crossings
}

func (c crossConn) UseCrossings(x *Crossings) {
	x.Add(StageSocketRead, time.Now(), 0) // a Crossings handed over takes samples
	c.got <- x
}

// pair runs a Send from one in-memory Node to a ReceiveFrom on another
// over a pipe and returns both transfers' events and results.
func pair(t *testing.T, sendCode, recvCode string, diag bool, sink *memSink) (sent, got []event.Event, sres, rres Result, crossed chan *Crossings) {
	t.Helper()
	a, err := NewInMemory(Config{Name: "page"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewInMemory(Config{Name: "desk"})
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := net.Pipe()
	crossed = make(chan *Crossings, 1)
	var mu sync.Mutex
	ctx := context.Background()
	rt := a.ReceiveFrom(ctx, ReceiveFromConfig{
		Dial: func(context.Context) (net.Conn, error) { return crossConn{c1, crossed}, nil },
		Code: recvCode, Sink: sink, Diag: diag,
		OnEvent: func(_ *Transfer, ev event.Event) { mu.Lock(); got = append(got, ev); mu.Unlock() },
	})
	items := []event.Item{{FS: fstest.MapFS{"a.txt": {Data: []byte("hello, page")}}, Path: "a.txt"}}
	st := b.Send(ctx, SendConfig{
		Addrs: []string{"page"}, Code: sendCode, Items: items, Diag: diag,
		Dialer:  func(context.Context, string) (net.Conn, error) { return c2, nil },
		OnEvent: func(_ *Transfer, ev event.Event) { mu.Lock(); sent = append(sent, ev); mu.Unlock() },
	})
	sres, rres = st.Wait(), rt.Wait()
	return sent, got, sres, rres, crossed
}

// A Node that keeps nothing on disk receives over a connection it
// opened, into a sink, with the events a Receiver's transfer has, and
// hands a CrossingConn its Crossings when diagnostics are on.
func TestReceiveFrom(t *testing.T) {
	sink := &memSink{}
	sent, got, sres, rres, crossed := pair(t, "123456", "123456", true, sink)
	if sres.Err != nil || rres.Err != nil {
		t.Fatalf("send: %v, receive: %v", sres.Err, rres.Err)
	}
	if s := sink.files["a.txt"]; s == nil || s.String() != "hello, page" || len(sink.kept) != 1 {
		t.Errorf("sink got %v, kept %v", sink.files, sink.kept)
	}
	if len(sink.end) != 1 || sink.end[0] != nil {
		t.Errorf("sink ended with %v", sink.end)
	}
	if rres.Peer.Name != "desk" || len(rres.Peer.Key) == 0 {
		t.Errorf("receiver's peer %+v", rres.Peer)
	}
	if sres.Peer.Name != "page" {
		t.Errorf("sender's peer %+v", sres.Peer)
	}
	kinds := func(evs []event.Event) map[string]bool {
		m := map[string]bool{}
		for _, ev := range evs {
			m[ev.Type()] = true
		}
		return m
	}
	for _, k := range []string{"connected", "offer", "entry", "done"} {
		if !kinds(got)[k] {
			t.Errorf("the receiver was not told %q: %v", k, got)
		}
	}
	if last, ok := got[len(got)-1].(event.Done); !ok || last.Local == nil || last.Local.End != event.Receiver {
		t.Errorf("the receiver's last event is %#v", got[len(got)-1])
	}
	if !kinds(sent)["done"] {
		t.Errorf("the sender was not told done: %v", sent)
	}
	select {
	case x := <-crossed:
		if x == nil {
			t.Error("the conn was handed nil Crossings")
		}
	default:
		t.Error("the CrossingConn was not handed its Crossings")
	}
}

// A wrong code ends both ends with the wrong-code error, and the sink
// is never told anything.
func TestReceiveFromWrongCode(t *testing.T) {
	sink := &memSink{}
	_, got, sres, rres, _ := pair(t, "111111", "123456", false, sink)
	if !errors.Is(sres.Err, ErrWrongCode) || rres.Err == nil {
		t.Fatalf("send: %v, receive: %v", sres.Err, rres.Err)
	}
	if e, ok := got[len(got)-1].(event.Error); !ok || e.Kind != "wrong_code" {
		t.Errorf("the receiver's last event is %#v", got[len(got)-1])
	}
	if len(sink.files) != 0 || len(sink.end) != 0 {
		t.Errorf("the sink was told %v, %v", sink.files, sink.end)
	}
}

// A Node that keeps nothing on disk does not Listen: a receiver keeps
// its count of wrong codes on disk.
func TestInMemoryDoesNotListen(t *testing.T) {
	n, err := NewInMemory(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Listen(ReceiveConfig{Dir: t.TempDir()}); err == nil {
		t.Error("an in-memory Node listened")
	}
	if n.Trust() != nil || n.History() != nil {
		t.Error("an in-memory Node has a trust store or a history")
	}
}

// An offer waits for a person unless the receiver's config answers it:
// AcceptAll, Unattended, or AcceptTrusted for a paired sender.
func TestTransferAsks(t *testing.T) {
	paired := &event.Connected{Paired: true}
	for _, c := range []struct {
		cfg  ReceiveConfig
		conn *event.Connected
		want bool
	}{
		{ReceiveConfig{}, nil, true},
		{ReceiveConfig{}, paired, true},
		{ReceiveConfig{AcceptAll: true}, nil, false},
		{ReceiveConfig{Unattended: "no terminal"}, nil, false},
		{ReceiveConfig{AcceptTrusted: true}, &event.Connected{}, true},
		{ReceiveConfig{AcceptTrusted: true}, paired, false},
	} {
		tr := &Transfer{receiving: receiving{recv: &Receiver{cfg: c.cfg}}, conn: c.conn}
		if got := tr.Asks(); got != c.want {
			t.Errorf("%+v, connected %+v: Asks %v, want %v", c.cfg, c.conn, got, c.want)
		}
	}
	if (&Transfer{}).Asks() || (*Transfer)(nil).Asks() {
		t.Error("a sender's transfer, or a nil one, asks")
	}
}

func TestReceiveConfigAsks(t *testing.T) {
	for _, c := range []struct {
		cfg    ReceiveConfig
		paired bool
		want   bool
	}{
		{ReceiveConfig{}, false, true},
		{ReceiveConfig{}, true, true},
		{ReceiveConfig{AcceptAll: true}, false, false},
		{ReceiveConfig{Unattended: "no terminal"}, true, false},
		{ReceiveConfig{AcceptTrusted: true}, false, true},
		{ReceiveConfig{AcceptTrusted: true}, true, false},
	} {
		if got := c.cfg.Asks(c.paired); got != c.want {
			t.Errorf("%+v paired %v: Asks %v, want %v", c.cfg, c.paired, got, c.want)
		}
	}
}

// An in-memory Node made again with the key an earlier one had (the
// page reloaded, its key kept in the browser) is the same device to a
// peer; a key of the wrong length is refused, not replaced.
func TestInMemoryKeptKey(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	a, err := NewInMemory(Config{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewInMemory(Config{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewInMemory(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Fingerprint() != b.Fingerprint() || a.Fingerprint() == c.Fingerprint() {
		t.Errorf("kept key: %s and %s; fresh: %s", a.Fingerprint(), b.Fingerprint(), c.Fingerprint())
	}
	if _, err := NewInMemory(Config{Key: key[:31]}); err == nil {
		t.Error("a key of 31 bytes was taken")
	}
}
