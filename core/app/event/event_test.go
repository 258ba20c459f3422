package event

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/transfer"
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
	b, err := Marshal(NewDone(transfer.Summary{Local: split, Wall: time.Second}, Sender, true))
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
	b, _ = Marshal(NewOffer(transfer.Offer{Entries: make([]transfer.Entry, MaxOfferEntries+1)}))
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
