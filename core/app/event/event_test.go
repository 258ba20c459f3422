package event

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// Every event marshals with its "event" field first, and the types'
// names are distinct.
func TestMarshalNamesFirst(t *testing.T) {
	seen := map[string]bool{}
	for _, ev := range All() {
		if seen[ev.Type()] {
			t.Errorf("two event types named %q", ev.Type())
		}
		seen[ev.Type()] = true
		b, err := Marshal(ev)
		if err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		if want := `{"event":"` + ev.Type() + `"`; !strings.HasPrefix(string(b), want) {
			t.Errorf("%T: %s does not start with %s", ev, b, want)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Errorf("%T: %s: %v", ev, b, err)
		}
	}
}

// Done's diag objects carry "event":"diag", as they always have; the
// Go-only fields stay out of the JSON.
func TestMarshalNested(t *testing.T) {
	var split diag.Split
	split[diag.DiskRead] = diag.StageTotal{Time: time.Second, Bytes: 10, Calls: 1}
	b, err := Marshal(NewDone(Summary{Local: split, Wall: time.Second}, Sender, true))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"local":{"event":"diag","end":"sender"`) {
		t.Errorf("done with diag: %s", b)
	}
	b, _ = Marshal(Connected{PeerName: "a", PeerKey: make([]byte, 32)})
	if strings.Contains(string(b), "key") {
		t.Errorf("connected carries its key in JSON: %s", b)
	}
	b, _ = Marshal(Offer{Entries: make([]Entry, MaxOfferEntries+1)})
	var o struct {
		Entries []any `json:"entries"`
		Total   int   `json:"entries_total"`
	}
	if err := json.Unmarshal(b, &o); err != nil || len(o.Entries) != MaxOfferEntries || o.Total != MaxOfferEntries+1 {
		t.Errorf("offer over the listed limit: %d listed of %d (%v)", len(o.Entries), o.Total, err)
	}
}

// MarshalFor is Marshal's object with "transfer" second, for every type.
func TestMarshalFor(t *testing.T) {
	for _, ev := range append(All(), Done{Local: &Diag{End: Sender}}, CodeChanged{"123456", "renewed"}) {
		b, err := MarshalFor(ev, 42)
		if err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		if want := `{"event":"` + ev.Type() + `","transfer":42`; !strings.HasPrefix(string(b), want) {
			t.Errorf("%T: %s does not start with %s", ev, b, want)
		}
		var got, plain map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%T: %s: %v", ev, b, err)
		}
		p, _ := Marshal(ev)
		if err := json.Unmarshal(p, &plain); err != nil {
			t.Fatal(err)
		}
		if got["transfer"] != float64(42) {
			t.Errorf("%T: transfer %v", ev, got["transfer"])
		}
		delete(got, "transfer")
		if g, _ := json.Marshal(got); string(g) != string(mustJSON(t, plain)) {
			t.Errorf("%T: %s, without transfer differs from %s", ev, b, p)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The data model's JSON forms are the ones the schema always had: an
// entry is {path, kind, size} with its kind as a word, an outcome a word,
// an empty offer lists no entries as [], and the Go-only fields stay out.
func TestMarshalModel(t *testing.T) {
	e := Entry{Path: "a/b.txt", Kind: KindFile, Size: 5, Mode: 0o644, ModTime: time.Unix(1, 0)}
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{EntryDone{Entry: e, Outcome: Received, SavedAs: "a/b (1).txt", Replaced: true, Session: 3},
			`{"event":"entry","path":"a/b.txt","kind":"file","size":5,"outcome":"received","saved_as":"a/b (1).txt"}`},
		{EntryDone{Entry: Entry{Path: "d", Kind: KindDir}, Outcome: Created},
			`{"event":"entry","path":"d","kind":"folder","size":0,"outcome":"created"}`},
		{Offer{PeerName: "p", Folders: 1, Session: 2},
			`{"event":"offer","peer_name":"p","peer_fingerprint":"","files":0,"folders":1,"texts":0,"total_bytes":0,"entries":[],"entries_total":0,"entries_listed":0}`},
		{Offer{Files: 1, Entries: []Entry{e}},
			`{"event":"offer","peer_name":"","peer_fingerprint":"","files":1,"folders":0,"texts":0,"total_bytes":0,"entries":[{"path":"a/b.txt","kind":"file","size":5}],"entries_total":1,"entries_listed":1}`},
		{Text{Name: "text.txt", Text: "hi", Session: 1}, `{"event":"text","name":"text.txt","text":"hi"}`},
		{CodeChanged{"123456", CodeUsed}, `{"event":"code_changed","code":"123456","reason":"used"}`},
		{Unproven{Addr: "10.0.0.2:1", Guessed: true, Wrong: 1, Allowed: 3, Message: "wrong code", Err: errTest},
			`{"event":"unproven","addr":"10.0.0.2:1","guessed":true,"wrong":1,"allowed":3,"message":"wrong code"}`},
	} {
		b, err := Marshal(tc.ev)
		if err != nil || string(b) != tc.want {
			t.Errorf("%T:\n got %s (%v)\nwant %s", tc.ev, b, err, tc.want)
		}
	}
}

var errTest = errors.New("test")

// TestNotice: a Notice's words travel in its JSON form as "notice", and
// an offer from a sender claiming another's name carries its warning.
func TestNotice(t *testing.T) {
	var n Notice = CodeLonger{Digits: 8, Wrong: 12, Days: 90}
	b, err := Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	want := "the code is 8 digits, not 6: 12 wrong codes were tried on this device, so someone may have been guessing; codes get shorter after 90 days without a wrong one"
	if got["event"] != "code_longer" || got["digits"] != float64(8) || got["notice"] != want {
		t.Errorf("code_longer's JSON form: %s", b)
	}
	if b, _ := Marshal(CodesStopped{Wrong: 12}); strings.Contains(string(b), "notice") {
		t.Errorf("an event that is no Notice has words: %s", b)
	}

	o := Offer{PeerName: "Ann's phone", PeerFingerprint: "AAAA-BBBB", SameNameAs: []string{"CCCC-DDDD"}}
	if w := o.SameNameWarning(); !strings.Contains(w, `"Ann's phone"`) || !strings.Contains(w, "CCCC-DDDD") || !strings.Contains(w, "this one's fingerprint is AAAA-BBBB") {
		t.Errorf("the same-name warning: %q", w)
	}
	b, _ = Marshal(o)
	if err := json.Unmarshal(b, &got); err != nil || got["warning"] != o.SameNameWarning() {
		t.Errorf("an offer under another's name: %s", b)
	}
	o.SameNameAs = nil
	if b, _ := Marshal(o); strings.Contains(string(b), "warning") || o.SameNameWarning() != "" {
		t.Errorf("an offer under its own name warns: %s", b)
	}
}

// InSession stamps an event with its session, and gives back one that
// already carries it as it is, without boxing a copy: the engine stamps
// an entry event, one a file, as it makes it.
func TestInSession(t *testing.T) {
	var ev Event = EntryDone{Entry: Entry{Path: "a"}, Session: 2}
	if got := InSession(ev, 3); SessionOf(got) != 3 || got.(EntryDone).Path != "a" {
		t.Errorf("stamped with 3: %+v", got)
	}
	if got := InSession(ev, 2); got != ev {
		t.Errorf("stamped again with 2: %+v", got)
	}
	if n := testing.AllocsPerRun(100, func() { InSession(ev, 2) }); n != 0 {
		t.Errorf("%v allocations for an event that carries its session", n)
	}
	if got := InSession(CodesStopped{Wrong: 1}, 4); got != (CodesStopped{Wrong: 1}) {
		t.Errorf("an event of no session: %+v", got)
	}
}
