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
