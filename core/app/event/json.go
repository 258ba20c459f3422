package event

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Marshal returns ev's one JSON form: {"event":NAME, ...its fields},
// and a Notice's words last, as "notice".
func Marshal(ev Event) ([]byte, error) {
	if ev == nil {
		return nil, fmt.Errorf("encoding an event: nil")
	}
	if e, ok := ev.(EntryDone); ok { // one a file: written by hand (appendjson.go)
		return e.marshalJSON(0, false), nil
	}
	if m, ok := ev.(json.Marshaler); ok { // it names itself (Diag)
		return m.MarshalJSON()
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encoding event %s: %w", ev.Type(), err)
	}
	return withNotice(ev, named(ev.Type(), b)), nil
}

// MarshalFor is ev's JSON form for a front end that runs several
// transfers at once and must tell their events apart (the mobile
// binding, and ferry receive --max-transfers above 1): Marshal's object
// with a "transfer" field, the transfer's number, right after "event":
// {"event":NAME,"transfer":ID, ...}. ID 0 is no transfer (a receiver's
// event between transfers). The CLI's --json lines with one transfer at
// a time are Marshal's and carry no such field.
func MarshalFor(ev Event, transfer int64) ([]byte, error) {
	if e, ok := ev.(EntryDone); ok {
		return e.marshalJSON(transfer, true), nil
	}
	b, err := Marshal(ev)
	if err != nil {
		return nil, err
	}
	name, _ := json.Marshal(ev.Type())
	head := len(`{"event":`) + len(name) // Marshal puts it first
	id := strconv.AppendInt([]byte(`,"transfer":`), transfer, 10)
	out := make([]byte, 0, len(b)+len(id))
	out = append(out, b[:head]...)
	out = append(out, id...)
	return append(out, b[head:]...), nil
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

// MarshalArray is a JSON array of the events' Marshal forms: the form in
// which a front end hands out a list of events at once (a page of the
// history, say).
func MarshalArray[E Event](evs []E) ([]byte, error) {
	list := make([]json.RawMessage, 0, len(evs))
	for _, ev := range evs {
		b, err := Marshal(ev)
		if err != nil {
			return nil, err
		}
		list = append(list, b)
	}
	return json.Marshal(list)
}

// PageOf is the range [lo, hi) of a list of n that a request for count
// items from start gets: cut short at the list's end, and empty past it
// or for a count below 1. Front ends hand out long lists (an offer's
// entries, the history) a page at a time.
func PageOf(n, start, count int) (lo, hi int) {
	lo = max(0, min(start, n))
	return lo, lo + max(0, min(count, n-lo))
}
