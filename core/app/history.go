//go:build !js

package app

import (
	"fmt"
	"path/filepath"
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
		n.warn(&HistoryError{Aside: asideOf(aside)})
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
	Aside *HistoryAside
}

func (e *HistoryError) Error() string {
	if e.Aside != nil {
		return e.Aside.String()
	}
	return "this transfer is not in the history: " + e.Err.Error()
}

func (e *HistoryError) Unwrap() error { return e.Err }

// historyEvent is r's History event.
func historyEvent(r history.Record) event.History {
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

// The history's values of event.History's Direction, Outcome and Auth.
const (
	HistorySent      = string(history.Sent)
	HistoryReceived  = string(history.Received)
	HistoryVerified  = string(history.Verified)
	HistoryFailed    = string(history.Failed)
	HistoryDeclined  = string(history.Declined)
	HistoryCancelled = string(history.Cancelled)
	HistoryByTrust   = string(history.ByTrust)
	HistoryByCode    = string(history.ByCode)
)

// HistoryAside says that a damaged history file was moved aside and a
// fresh one started: what was wrong, and where the old bytes are now.
type HistoryAside struct {
	Path   string // the damaged file's new name
	Reason error  // what was wrong with it
}

func (a *HistoryAside) String() string {
	return fmt.Sprintf("%v; moved it to %s and started a new history", a.Reason, a.Path)
}

func asideOf(a *history.Aside) *HistoryAside {
	if a == nil {
		return nil
	}
	return &HistoryAside{Path: a.Path, Reason: a.Reason}
}

// HistoryStore is the device's transfer history, as the schema's
// History records, newest first. Every call reads the file, so several
// stores and processes may share it.
type HistoryStore struct{ s *history.Store }

// OpenHistory opens the history in configDir ("" is the user's config
// folder) without a Node, for a front end's history command: it neither
// reads nor creates the device's key.
func OpenHistory(configDir string) (*HistoryStore, error) {
	path := filepath.Join(configDir, "history.json")
	if configDir == "" {
		p, err := history.DefaultPath()
		if err != nil {
			return nil, fmt.Errorf("finding the history file: %w", err)
		}
		path = p
	}
	return &HistoryStore{s: history.Open(path)}, nil
}

// History is the device's transfer history, for a front end's history
// view; nil when recording is off.
func (n *Node) History() *HistoryStore {
	if n.hist == nil {
		return nil
	}
	return &HistoryStore{s: n.hist}
}

// Path is the history file's path.
func (h *HistoryStore) Path() string { return h.s.Path() }

// List returns the records, newest first. A damaged file is set aside
// and the history is empty; aside says so.
func (h *HistoryStore) List() ([]event.History, *HistoryAside, error) {
	recs, aside, err := h.s.List()
	var out []event.History
	for _, r := range recs {
		out = append(out, historyEvent(r))
	}
	return out, asideOf(aside), err
}

// Clear empties the history and says how many records it held.
func (h *HistoryStore) Clear() (int, *HistoryAside, error) {
	n, aside, err := h.s.Clear()
	return n, asideOf(aside), err
}

// Add records e as it is (a demo's or a test's history; a Node records
// its own transfers). e.At that is not RFC 3339 is an error.
func (h *HistoryStore) Add(e event.History) (*HistoryAside, error) {
	at, err := time.Parse(time.RFC3339Nano, e.At)
	if err != nil {
		return nil, fmt.Errorf("recording a transfer: %w", err)
	}
	r := history.Record{At: at, Direction: history.Direction(e.Direction),
		Peer:  history.Peer{Name: e.PeerName, Fingerprint: e.PeerFingerprint, Auth: history.Auth(e.Auth), Addr: e.PeerAddr},
		Files: e.Files, Folders: e.Folders, Texts: e.Texts, Bytes: e.Bytes, Names: e.Names, MoreNames: e.MoreNames,
		Folder: e.Folder, Paths: e.Paths, Outcome: history.Outcome(e.Outcome), ErrorKind: e.ErrorKind, Error: e.Error,
		Duration: time.Duration(e.DurationMS) * time.Millisecond}
	aside, err := h.s.Add(r)
	return asideOf(aside), err
}

// HistoryOutcome is what the history records of a transfer that ended
// with err: its Outcome and, for a failure, its ErrorKind.
func HistoryOutcome(err error) (outcome, kind string) {
	var r history.Record
	r.SetEnd(err, time.Time{})
	return string(r.Outcome), r.ErrorKind
}

// recordSent records a send started at start that ended with res at
// ended (see record).
func (n *Node) recordSent(start time.Time, cfg SendConfig, res Result, offer *event.Offer, ended time.Time) {
	n.record(sendRecord(sourceRecord(start, cfg.Paths, cfg.Text), cfg, res, offer), res, ended)
}

// sourceRecord starts a sender's record from what it was asked to send:
// the top-level names, the paths and their folder.
func sourceRecord(start time.Time, paths []string, text bool) history.Record {
	r := history.Record{At: start, Direction: history.Sent}
	var names []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		r.Paths = append(r.Paths, abs)
		names = append(names, filepath.Base(abs))
	}
	if len(r.Paths) > 0 {
		r.Folder = filepath.Dir(r.Paths[0])
	}
	if text {
		names = append(names, "text")
	}
	r.Names, r.MoreNames = history.TopNames(names)
	return r
}

// sendRecord completes the sender's record: the receiver as the
// handshake proved it (or, when it never answered, as it was found),
// named by its pin in paired mode, and what the accepted offer held.
func sendRecord(r history.Record, cfg SendConfig, res Result, offer *event.Offer) history.Record {
	r.Peer = history.Peer{Name: cfg.PeerName, Fingerprint: cfg.PeerFingerprint}
	if len(cfg.Addrs) > 0 {
		r.Peer.Addr = cfg.Addrs[0]
	}
	if len(res.Peer.Key) > 0 {
		r.Peer.Name, r.Peer.Fingerprint, r.Peer.Auth = res.Peer.Name, res.Peer.Fingerprint(), authOf(res.Paired)
	}
	if res.PinnedName != "" {
		r.Peer.Name = res.PinnedName
	}
	if offer != nil {
		r.SetOffer(offer.Files, offer.Folders, offer.Texts, offer.TotalBytes, offer.Paths())
	}
	return r
}
