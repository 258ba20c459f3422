//go:build !js

package stores

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/history"
)

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

// ErrHistoryVersion: the history file was written by a newer Ferry; it
// is left as it is and nothing is recorded.
var ErrHistoryVersion = history.ErrUnsupportedVersion

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

// History is the device's transfer history, as the schema's
// History records, newest first. Every call reads the file, so several
// stores and processes may share it.
type History struct{ s *history.Store }

// OpenHistory opens the history in configDir ("" is the user's config
// folder) without a Node, for a front end's history command: it neither
// reads nor creates the device's key.
func OpenHistory(configDir string) (*History, error) {
	path := filepath.Join(configDir, "history.json")
	if configDir == "" {
		p, err := history.DefaultPath()
		if err != nil {
			return nil, fmt.Errorf("finding the history file: %w", err)
		}
		path = p
	}
	return &History{s: history.Open(path)}, nil
}

// Path is the history file's path.
func (h *History) Path() string { return h.s.Path() }

// List returns the records, newest first. A damaged file is set aside
// and the history is empty; aside says so.
func (h *History) List() ([]event.History, *HistoryAside, error) {
	recs, aside, err := h.s.List()
	var out []event.History
	for _, r := range recs {
		out = append(out, historyEvent(r))
	}
	return out, asideOf(aside), err
}

// Clear empties the history and says how many records it held.
func (h *History) Clear() (int, *HistoryAside, error) {
	n, aside, err := h.s.Clear()
	return n, asideOf(aside), err
}

// Add records e as it is (a demo's or a test's history; a Node records
// its own transfers). e.At that is not RFC 3339 is an error.
func (h *History) Add(e event.History) (*HistoryAside, error) {
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
