package mobile

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// call is one event as a recorder saw it.
type call struct {
	method string // the "event" field
	id     int64  // the "transfer" field
	arg    string // a short rendering of the fields
	fail   *failure
	until  time.Time // codes_held's
	js     string    // the whole JSON
}

// failure is an "error" event's kind and message.
type failure struct{ Kind, Message string }

// parseCall reads one event's JSON as an app would, failing on a form
// the package doc does not promise: an object whose first field is
// "event" and whose second is "transfer".
func parseCall(js string) (call, error) {
	var f struct {
		Event    string          `json:"event"`
		Transfer *int64          `json:"transfer"`
		Peers    json.RawMessage `json:"peers"`
		Code     string          `json:"code"`
		Wrong    int             `json:"wrong"`
		Until    string          `json:"until"`
		Name     string          `json:"name"`
		Text     string          `json:"text"`
		Kind     string          `json:"kind"`
		Message  string          `json:"message"`
		Files    int             `json:"files"`
		Total    int64           `json:"total_bytes"`
		Entries  json.RawMessage `json:"entries"` // a number in done, a list in offer
		Bytes    int64           `json:"bytes"`
		Path     string          `json:"path"`
		Outcome  string          `json:"outcome"`
		SavedAs  string          `json:"saved_as"`
	}
	if err := json.Unmarshal([]byte(js), &f); err != nil {
		return call{}, err
	}
	if f.Transfer == nil || !strings.HasPrefix(js, `{"event":"`+f.Event+`","transfer":`) {
		return call{}, fmt.Errorf("not event and transfer first: %s", js)
	}
	c := call{method: f.Event, id: *f.Transfer, js: js}
	switch f.Event {
	case "peers":
		c.arg = string(f.Peers)
	case "code_changed":
		c.arg = f.Code
	case "codes_held":
		c.arg = fmt.Sprint(f.Wrong)
		u, err := time.Parse(time.RFC3339Nano, f.Until)
		if err != nil {
			return call{}, err
		}
		c.until = u
	case "codes_stopped":
		c.arg = fmt.Sprint(f.Wrong)
	case "text":
		c.arg = f.Name + " " + f.Text
	case "offer":
		c.arg = fmt.Sprint(f.Files, f.Total)
	case "entry":
		c.arg = f.Path + " " + f.Outcome + " " + f.SavedAs
	case "done":
		c.arg = fmt.Sprint(string(f.Entries), " ", f.Bytes)
	case "error":
		c.arg = f.Kind + ": " + f.Message
		c.fail = &failure{f.Kind, f.Message}
	case "warning":
		c.arg = f.Message
	}
	return c, nil
}

// recorder is an Events that keeps every event and lets a test wait for
// one. onCall, if set, runs inside the callback, as an app's handler
// would (to accept an offer, say).
type recorder struct {
	mu     sync.Mutex
	calls  []call
	wake   chan struct{}
	onCall func(call)
}

func newRecorder() *recorder { return &recorder{wake: make(chan struct{}, 1)} }

func (r *recorder) add(c call) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	if r.onCall != nil {
		r.onCall(c)
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// wait returns the first call that match accepts, waiting up to d.
func (r *recorder) wait(t testing.TB, d time.Duration, match func(call) bool) call {
	t.Helper()
	return r.waitFrom(t, d, 0, match)
}

// mark is where the next call will be in the list, for waitFrom.
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// waitFrom is wait for the calls from mark from on.
func (r *recorder) waitFrom(t testing.TB, d time.Duration, from int, match func(call) bool) call {
	t.Helper()
	c, ok := r.find(d, from, match)
	if !ok {
		t.Fatalf("no matching event within %v; got %v", d, r.list())
	}
	return c
}

// find is waitFrom without a test to fail, for the child processes: it
// reports false if no matching call came within d.
func (r *recorder) find(d time.Duration, from int, match func(call) bool) (call, bool) {
	deadline := time.After(d)
	for {
		r.mu.Lock()
		for _, c := range r.calls[min(from, len(r.calls)):] {
			if match(c) {
				r.mu.Unlock()
				return c, true
			}
		}
		r.mu.Unlock()
		select {
		case <-r.wake:
		case <-deadline:
			return call{}, false
		}
	}
}

// ended matches a transfer's last event, "done" or "error".
func ended(id int64) func(call) bool {
	return func(c call) bool {
		return c.id == id && (c.method == "done" || c.method == "error")
	}
}

// terminal waits for a transfer's last event.
func (r *recorder) terminal(t testing.TB, id int64, d time.Duration) call {
	t.Helper()
	return r.wait(t, d, ended(id))
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.calls))
	for i, c := range r.calls {
		out[i] = fmt.Sprintf("%s(%d, %s)", c.method, c.id, c.arg)
	}
	return out
}

func (r *recorder) count(id int64, method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		if c.id == id && c.method == method {
			n++
		}
	}
	return n
}

// OnEvent records one event; one that does not parse is recorded as
// "bad" with its JSON, for the test that waits for something else to
// fail with it in the list.
func (r *recorder) OnEvent(js string) {
	c, err := parseCall(js)
	if err != nil {
		c = call{method: "bad", arg: err.Error(), js: js}
	}
	r.add(c)
}

// checkSchema fails t if an event did not parse or is not one of core's
// (core/app/event's All) or this package's own ("peers", "warning").
func (r *recorder) checkSchema(t testing.TB) {
	t.Helper()
	known := map[string]bool{"peers": true, "warning": true}
	for _, ev := range event.All() {
		known[ev.Type()] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.calls {
		if !known[c.method] {
			t.Errorf("event %q (%s): %s", c.method, c.arg, c.js)
		}
	}
}

// TestEventsOneMethod: the interface the apps implement is one method,
// so that a new event, a new "event" name in the JSON, changes no Kotlin
// or Swift app; check-bind.sh proves gobind binds it.
func TestEventsOneMethod(t *testing.T) {
	it := reflect.TypeFor[Events]()
	if it.NumMethod() != 1 || it.Method(0).Name != "OnEvent" {
		t.Fatalf("Events has %d methods, want only OnEvent(eventJSON string)", it.NumMethod())
	}
}

// TestUnprovenEvent: core's unproven event (a page connection that ended
// before it proved the code) reaches the app as JSON like every other,
// with its transfer's number second.
func TestUnprovenEvent(t *testing.T) {
	n, rec := newTestNode(t, "A")
	tr := &Transfer{n: n, sending: true, id: 7}
	tr.onEvent(nil, event.Unproven{Addr: "192.168.1.20:51234", Guessed: true, Wrong: 1, Allowed: 3,
		Message: "wrong code", Err: errors.New("wrong code")})
	c := rec.wait(t, 5*time.Second, func(c call) bool { return c.method == "unproven" })
	const want = `{"event":"unproven","transfer":7,"addr":"192.168.1.20:51234","guessed":true,"wrong":1,"allowed":3,"message":"wrong code"}`
	if c.js != want {
		t.Errorf("unproven event:\n got %s\nwant %s", c.js, want)
	}
	rec.checkSchema(t)
}
