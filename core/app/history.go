//go:build !js

package app

import (
	"path/filepath"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
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
	// The record is core/history's own (its local time, its damaged-file
	// rules); stores.History shows front ends the schema's form of it.
	<-n.warmed
	aside, err := n.rec.Add(r)
	if aside != nil {
		n.warn(&HistoryError{Aside: &stores.HistoryAside{Path: aside.Path, Reason: aside.Reason}})
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
	Aside *stores.HistoryAside
}

func (e *HistoryError) Error() string {
	if e.Aside != nil {
		return e.Aside.String()
	}
	return "this transfer is not in the history: " + e.Err.Error()
}

func (e *HistoryError) Unwrap() error { return e.Err }

// History is the device's transfer history, for a front end's history
// view; nil when recording is off.
func (n *Node) History() *stores.History { return n.hist }

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
