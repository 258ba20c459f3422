package event

import (
	"encoding/json"
	"fmt"
)

// Marshal returns ev's one JSON form: {"event":NAME, ...its fields}.
func Marshal(ev Event) ([]byte, error) {
	if ev == nil {
		return nil, fmt.Errorf("encoding an event: nil")
	}
	if m, ok := ev.(json.Marshaler); ok { // it names itself (Diag)
		return m.MarshalJSON()
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encoding event %s: %w", ev.Type(), err)
	}
	return named(ev.Type(), b), nil
}

// named puts the "event" field first in the object b.
func named(name string, b []byte) []byte {
	head, _ := json.Marshal(struct {
		Event string `json:"event"`
	}{name})
	if len(b) <= 2 { // {}
		return head
	}
	out := make([]byte, 0, len(head)+len(b))
	out = append(out, head[:len(head)-1]...)
	out = append(out, ',')
	return append(out, b[1:]...)
}

// MarshalJSON names a Diag in JSON wherever it appears: alone, and as
// Done's local and remote objects (which have always carried
// "event":"diag").
func (d Diag) MarshalJSON() ([]byte, error) {
	type plain Diag // without this method
	b, err := json.Marshal(plain(d))
	if err != nil {
		return nil, fmt.Errorf("encoding event diag: %w", err)
	}
	return named(d.Type(), b), nil
}
