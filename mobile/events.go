package mobile

import (
	"encoding/json"
	"io/fs"

	"github.com/ferry-project/ferry/core/app/event"
)

// Events is implemented by the app: one method, told every event as one
// JSON object, the form core/app/event defines for every front end (the
// CLI's --json lines carry the same objects, field for field, listed in
// cli/README.md), with the transfer's number added:
//
//	{"event":"offer","transfer":3,"peer_name":"Zoë's laptop","files":2,...}
//
// "event" names the type and comes first; "transfer" is Transfer.ID of
// the transfer concerned, 0 for none (the peer list, a warning, a failed
// browse). A new kind of event is a new "event" value, never a new
// method: an app skips the names it does not know.
//
// Every call comes on a thread that Go owns, never the app's main
// thread: hop to it before touching the UI (runOnUiThread,
// DispatchQueue.main.async). Calls come one at a time, in the order
// things happened, and no lock of Ferry's is held while one runs: a
// callback may call any method, Accept or Cancel on an offer, PeerFound
// or StopBrowse on the peer list, even Node.Close. A call should return
// quickly, because the calls behind it wait, and when too many wait the
// transfers hold still; and it must not throw, because an exception has
// nowhere to go.
//
// Each transfer ends with exactly one "done" or "error" event, after
// which its number is never used again. Besides core's events, this
// package sends two of its own, both with transfer 0:
//
//	{"event":"peers","transfer":0,"peers":[...]}   the list Node.Peers returns, whenever it changed
//	{"event":"warning","transfer":0,"message":"..."}  a problem that costs a convenience, never a transfer
//
// Changes of the peer list in quick succession may come as one "peers"
// event, and a later one never brings an older list. An "error" event's
// "kind" is one of the Kind constants.
type Events interface {
	OnEvent(eventJSON string)
}

// tell hands ev, an event of transfer id (0: none), to the app.
func (n *Node) tell(id int64, ev event.Event) {
	b, err := event.MarshalFor(ev, id)
	if err != nil {
		b, _ = event.MarshalFor(failureOf(err), id)
	}
	js := string(b)
	n.emit(func(e Events) { e.OnEvent(js) })
}

// warn tells the app of a problem that costs a convenience (core/app's
// warnings: a trust store or history that cannot be used, a failed
// advertisement). It never waits: core/app may warn with a lock held.
func (n *Node) warn(err error) {
	b, _ := json.Marshal(struct {
		Event    string `json:"event"`
		Transfer int64  `json:"transfer"`
		Message  string `json:"message"`
	}{"warning", 0, err.Error()})
	js := string(b)
	n.out.push(outgoing{call: func(e Events) { e.OnEvent(js) }})
}

// peersEvent is the "peers" event for list, a JSON array.
func peersEvent(list string) string {
	return `{"event":"peers","transfer":0,"peers":` + list + `}`
}

type entryJSON struct {
	Path  string      `json:"path"`
	Kind  string      `json:"kind"`
	Size  int64       `json:"size"`
	Mode  fs.FileMode `json:"mode"`
	MTime int64       `json:"mtime"`
}

func entryOf(e event.Entry) entryJSON {
	var mtime int64
	if !e.ModTime.IsZero() {
		mtime = e.ModTime.Unix()
	}
	return entryJSON{Path: e.Path, Kind: e.Kind.String(), Size: e.Size, Mode: e.Mode.Perm(), MTime: mtime}
}

// entriesJSON encodes the page [start, start+count) of list.
func entriesJSON(list []event.Entry, start, count int) (string, error) {
	lo, hi := event.PageOf(len(list), start, count)
	page := make([]entryJSON, 0, hi-lo)
	for _, e := range list[lo:hi] {
		page = append(page, entryOf(e))
	}
	b, err := json.Marshal(page)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
