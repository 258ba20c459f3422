package app

import (
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/history"
)

// record adds a transfer's record to the history: r as begun, ended with
// res at ended. A receiver records only transfers where a sender
// connected (a wrong code is no transfer); a sender records every
// attempt, a failed dial included, since "why did that not arrive" is
// what the history answers. Texts are recorded by name and size, never
// their content. Problems are warnings: the transfer is what its result
// says.
func (n *Node) record(r history.Record, res Result, ended time.Time) {
	if n.hist == nil || (n.cfg.KeepHistory != nil && !n.cfg.KeepHistory()) {
		return
	}
	r.SetEnd(res.Err, ended)
	if res.Cancelled && res.Err != nil {
		r.Outcome, r.ErrorKind = history.Cancelled, ""
	}
	aside, err := n.hist.Add(r)
	if aside != nil {
		n.warn(&HistoryError{Aside: aside})
	}
	if err != nil {
		n.warn(&HistoryError{Err: err})
	}
}

// HistoryError is the warning (Config.OnWarning) of a transfer that the
// history did not take as it should: Err says why it is not recorded, or
// Aside names the damaged file that was put aside for a new one (the
// transfer is in the new one). An app shows it beside its history.
type HistoryError struct {
	Err   error
	Aside *history.Aside
}

func (e *HistoryError) Error() string {
	if e.Aside != nil {
		return e.Aside.String()
	}
	return "this transfer is not in the history: " + e.Err.Error()
}

func (e *HistoryError) Unwrap() error { return e.Err }

// HistoryEvent is r's History event.
func HistoryEvent(r history.Record) event.History {
	names, paths := r.Names, r.Paths
	if names == nil {
		names = []string{}
	}
	if paths == nil {
		paths = []string{}
	}
	return event.History{
		At: r.At.UTC().Format(time.RFC3339Nano), Direction: string(r.Direction),
		PeerName: r.Peer.Name, PeerFingerprint: r.Peer.Fingerprint, Auth: string(r.Peer.Auth), PeerAddr: r.Peer.Addr,
		Files: r.Files, Folders: r.Folders, Texts: r.Texts, Bytes: r.Bytes, Names: names, MoreNames: r.MoreNames,
		Folder: r.Folder, Paths: paths, Outcome: string(r.Outcome), ErrorKind: r.ErrorKind, Error: r.Error,
		DurationMS: r.Duration.Milliseconds(),
	}
}
