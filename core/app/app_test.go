//go:build !js

package app

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// recorder keeps a receiver's events in order, per transfer.
type recorder struct {
	mu     sync.Mutex
	events map[int64][]event.Event
	loose  []event.Event // between transfers
	offers chan *Transfer
}

func newRecorder() *recorder {
	return &recorder{events: map[int64][]event.Event{}, offers: make(chan *Transfer, 8)}
}

func (r *recorder) on(t *Transfer, ev event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t == nil {
		r.loose = append(r.loose, ev)
		return
	}
	r.events[t.ID()] = append(r.events[t.ID()], ev)
	if _, ok := ev.(event.Offer); ok {
		r.offers <- t
	}
}

func (r *recorder) types(t *Transfer) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events[t.ID()] {
		out = append(out, ev.Type())
	}
	return out
}

func newNode(t *testing.T) *Node {
	t.Helper()
	n, err := New(Config{Name: "desk", ConfigDir: t.TempDir(), OnWarning: func(err error) { t.Errorf("warning: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func listen(t *testing.T, n *Node, rec *recorder, cfg ReceiveConfig) *Receiver {
	t.Helper()
	cfg.Listen, cfg.OnEvent = "127.0.0.1:0", rec.on
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	rc, err := n.Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	return rc
}

func sendText(t *testing.T, id *secure.Identity, rc *Receiver, code, text string) error {
	t.Helper()
	_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addrOf(rc)}, Code: code, Identity: id,
		Name: "phone", Items: []event.Item{{Text: text}}})
	return err
}

func addrOf(rc *Receiver) string { return "127.0.0.1:" + strconv.Itoa(rc.Port()) }

// A transfer received with a code, accepted by a person: its events in
// order, ending with one Done; the result; the one history record.
func TestReceiveAccepted(t *testing.T) {
	n := newNode(t)
	rec := newRecorder()
	rc := listen(t, n, rec, ReceiveConfig{KeepTexts: true})
	tr, err := rc.Receive(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Receive(t.Context()); err == nil {
		t.Error("a second Receive while one waits did not fail")
	}
	sent := make(chan error, 1)
	go func() { sent <- sendText(t, testid.New(t), rc, rc.Code(), "hello") }()
	(<-rec.offers).Accept()
	if err := <-sent; err != nil {
		t.Fatalf("send: %v", err)
	}
	res := tr.Wait()
	if res.Err != nil || res.Peer.Name != "phone" || res.Paired {
		t.Fatalf("result: %+v", res)
	}
	got := rec.types(tr)
	// The code the sender proved is used up as the handshake proves it,
	// before connected.
	want := []string{"code_changed", "connected", "offer", "accepted", "text", "entry", "done"}
	if !sameWithout(got, want, "progress") {
		t.Errorf("events %v, want %v (progress anywhere after accepted)", got, want)
	}
	if c, text := res.Clipboard(false); c != ClipNot || text != "hello" {
		t.Errorf("clipboard of an untrusted sender, nobody to ask: %v %q", c, text)
	}
	recs, _, err := rawHistory(n).List()
	if err != nil || len(recs) != 1 || recs[0].Outcome != history.Verified || recs[0].Direction != history.Received || recs[0].Peer.Name != "phone" {
		t.Fatalf("history: %v %+v", err, recs)
	}
	step, err := n.AfterCode(res, true, false)
	if err != nil || step.Do != PinNow {
		t.Errorf("after a code, asked to trust, no wrong codes: %+v %v", step, err)
	}
}

func sameWithout(got, want []string, skip string) bool {
	var g []string
	for _, s := range got {
		if s != skip {
			g = append(g, s)
		}
	}
	if len(g) != len(want) {
		return false
	}
	for i := range g {
		if g[i] != want[i] {
			return false
		}
	}
	return true
}

// Declined by a person, and unattended: the error wraps ErrDeclined, the
// history says declined, the events end with one Error.
func TestReceiveDeclined(t *testing.T) {
	for _, unattended := range []string{"", "nobody to ask"} {
		n := newNode(t)
		rec := newRecorder()
		rc := listen(t, n, rec, ReceiveConfig{Unattended: unattended})
		tr, err := rc.Receive(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sent := make(chan error, 1)
		go func() { sent <- sendText(t, testid.New(t), rc, rc.Code(), "hello") }()
		t2 := <-rec.offers
		if unattended == "" {
			t2.Decline("you said no")
		}
		if err := <-sent; !errors.Is(err, transfer.ErrDeclined) {
			t.Errorf("sender: %v", err)
		}
		res := tr.Wait()
		var de *DeclinedError
		if !errors.As(res.Err, &de) || !errors.Is(res.Err, transfer.ErrDeclined) {
			t.Errorf("result: %v", res.Err)
		}
		got := rec.types(tr)
		if got[len(got)-1] != "error" {
			t.Errorf("events %v do not end with error", got)
		}
		recs, _, _ := rawHistory(n).List()
		if len(recs) != 1 || recs[0].Outcome != history.Declined {
			t.Errorf("history: %+v", recs)
		}
	}
}

// One guess budget for the device: three rounds of eight immediate wrong
// codes, each followed by an honest transfer, check no more wrong codes
// in all than one budget allows (12, after which none is checked). A
// receiver with a fresh budget per transfer checked 6 a round, 18.
func TestOneBudgetAcrossTransfers(t *testing.T) {
	n := newNode(t)
	rec := newRecorder()
	rc := listen(t, n, rec, ReceiveConfig{AcceptAll: true})
	guesser, honest := testid.New(t), testid.New(t)
	checked := 0
	for round := range 3 {
		tr, err := rc.Receive(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for i := range 8 {
			err := sendText(t, guesser, rc, strconv.Itoa(100000+round*10+i), "guess")
			switch {
			case errors.Is(err, secure.ErrWrongCode), errors.Is(err, secure.ErrCodeRetired):
				checked++
			case errors.Is(err, secure.ErrCodesHeld):
			default:
				t.Fatalf("guess: %v", err)
			}
		}
		// The honest sender waits out the back-off, as a person would.
		deadline := time.Now().Add(30 * time.Second)
		for {
			err := sendText(t, honest, rc, rc.Code(), "honest")
			if err == nil {
				break
			}
			if !errors.Is(err, secure.ErrCodesHeld) || time.Now().After(deadline) {
				t.Fatalf("honest transfer %d: %v", round+1, err)
			}
			time.Sleep(100 * time.Millisecond) // a person trying again
		}
		if res := tr.Wait(); res.Err != nil {
			t.Fatalf("transfer %d: %v", round+1, res.Err)
		}
	}
	t.Logf("wrong codes checked across three honest transfers: %d", checked)
	if checked > 12 {
		t.Errorf("%d wrong codes checked: more than one budget (12)", checked)
	}
}

func itemsOf(paths ...string) []event.Item {
	var items []event.Item
	for _, p := range paths {
		items = append(items, event.Item{Path: p})
	}
	return items
}

func textItem(text string) []event.Item { return []event.Item{{Text: text}} }

// A Handler that answers an offer at once, inside the call, is told the
// Accepted that follows after it returns (no deadlock, same order).
func TestAcceptInsideHandler(t *testing.T) {
	n := newNode(t)
	var mu sync.Mutex
	var got []string
	rc := listen(t, n, newRecorder(), ReceiveConfig{})
	rc.cfg.OnEvent = nil // replaced below, before any transfer
	rc.em = newEmitter(func(tr *Transfer, ev event.Event) {
		mu.Lock()
		got = append(got, ev.Type())
		mu.Unlock()
		if _, ok := ev.(event.Offer); ok {
			tr.Accept()
		}
	})
	tr, err := rc.Receive(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := sendText(t, testid.New(t), rc, rc.Code(), "hi"); err != nil {
		t.Fatal(err)
	}
	if res := tr.Wait(); res.Err != nil {
		t.Fatal(res.Err)
	}
	mu.Lock()
	defer mu.Unlock()
	// code_changed first: the code was used up at the proof.
	if len(got) < 4 || got[0] != "code_changed" || got[2] != "offer" || got[3] != "accepted" || got[len(got)-1] != "done" {
		t.Errorf("events %v", got)
	}
}

// Closing the receiver while a transfer waits ends it with one Error, and
// the Node may listen again (the port is free; nothing is left running:
// TestMain checks for goroutines).
func TestCloseWhileWaiting(t *testing.T) {
	n := newNode(t)
	rec := newRecorder()
	rc := listen(t, n, rec, ReceiveConfig{})
	tr, err := rc.Receive(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Listen(ReceiveConfig{Dir: t.TempDir()}); err == nil {
		t.Error("a second Listen while receiving did not fail")
	}
	rc.Close()
	if res := tr.Wait(); res.Err == nil {
		t.Error("the waiting transfer ended without an error")
	}
	if got := rec.types(tr); len(got) != 1 || got[0] != "error" {
		t.Errorf("events %v, want one error", got)
	}
	rc2, err := n.Listen(ReceiveConfig{Dir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("listening again: %v", err)
	}
	rc2.Close()
}

// A receiver that starts with the device's budget spent (kept from
// before a restart): without KeepWaiting its wait ends with
// ErrCodesStopped; with it the wait goes on, a sender with the shown
// code is told codes are held, and after NewCode the same transfer
// takes a sender.
func TestKeepWaitingWhenStopped(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(strconv.FormatBool(keep), func(t *testing.T) {
			n := newNode(t)
			spent := guess.Record{Wrong: 12, Last: time.Now(), Stopped: true}
			if err := guess.OpenFile(filepath.Join(n.cfg.ConfigDir, "guesses.json")).Save(spent); err != nil {
				t.Fatal(err)
			}
			rec := newRecorder()
			rc := listen(t, n, rec, ReceiveConfig{AcceptAll: true, KeepWaiting: keep})
			tr, err := rc.Receive(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if !keep {
				if res := tr.Wait(); !errors.Is(res.Err, transfer.ErrCodesStopped) {
					t.Fatalf("without KeepWaiting: %v, want codes stopped", res.Err)
				}
				return
			}
			if err := sendText(t, testid.New(t), rc, rc.Code(), "early"); !errors.Is(err, secure.ErrCodesHeld) {
				t.Fatalf("the shown code while stopped: %v, want codes held", err)
			}
			select {
			case <-tr.Done():
				t.Fatalf("the wait ended while stopped: %v", tr.Wait().Err)
			default:
			}
			rc.NewCode()
			if err := sendText(t, testid.New(t), rc, rc.Code(), "after"); err != nil {
				t.Fatalf("after NewCode: %v", err)
			}
			if res := tr.Wait(); res.Err != nil {
				t.Fatal(res.Err)
			}
			if got := rec.types(tr); !slices.Contains(got, "codes_stopped") || got[len(got)-1] != "done" {
				t.Errorf("events %v, want codes_stopped and a last done", got)
			}
		})
	}
}

// rawHistory is n's history file as core/history reads it, with the
// records' own types.
func rawHistory(n *Node) *history.Store { return history.Open(n.hist.Path()) }
