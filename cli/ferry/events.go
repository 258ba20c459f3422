package main

// The --json event stream: one object per line on stdout, each with an
// "event" field naming its type. Field names are snake_case and never
// change meaning; byte counts are bytes, rates bytes per second, durations
// seconds (a float). cli/README.md lists every event with its fields.

import (
	"time"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/transfer"
)

type listeningEvent struct {
	Event       string   `json:"event"` // "listening"
	Code        string   `json:"code"`
	Port        int      `json:"port"`
	Addresses   []string `json:"addresses"`
	Name        string   `json:"name"`
	Fingerprint string   `json:"fingerprint"`
	Dir         string   `json:"dir"`
}

type connectedEvent struct {
	Event           string `json:"event"` // "connected"
	PeerName        string `json:"peer_name"`
	PeerFingerprint string `json:"peer_fingerprint"`
	Addr            string `json:"addr"`
	Paired          bool   `json:"paired"` // authenticated by pinned keys, without a code
	// PinnedName (receiver, paired) is the name this device pinned the
	// sender's key under; PeerName is the name the sender claims.
	PinnedName string `json:"pinned_name,omitempty"`
	// WrongCodes (receiver, by code) is how many wrong codes were tried
	// here since the last transfer by code before this sender's was right.
	WrongCodes int `json:"wrong_codes"`
}

type jsonEntry struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // "file", "folder" or "text"
	Size int64  `json:"size"`
}

type offerEvent struct {
	Event           string `json:"event"` // "offer"
	PeerName        string `json:"peer_name"`
	PeerFingerprint string `json:"peer_fingerprint"`
	Files           int    `json:"files"`
	Folders         int    `json:"folders"`
	Texts           int    `json:"texts"`
	TotalBytes      int64  `json:"total_bytes"`
	// Entries lists the first maxOfferEntries entries of the offer, in
	// its order; EntriesTotal says how many it holds, EntriesListed how
	// many are listed (fewer only when it holds more).
	Entries       []jsonEntry `json:"entries"`
	EntriesTotal  int         `json:"entries_total"`
	EntriesListed int         `json:"entries_listed"`
}

// maxOfferEntries is how many entries an offer event lists. An offer may
// hold 100,000 (core/transfer's MaxEntries): all of them would make one
// line of several MiB, built in memory at once, over a receiver's 32 MiB
// budget. A script that needs every name gets each one in its entry
// event as the transfer goes.
const maxOfferEntries = 1000

type acceptedEvent struct {
	Event string `json:"event"` // "accepted"
	// By says who accepted: "peer" on the sender (the receiver accepted),
	// "flag" (--yes), "person" (answered the question) or "trusted"
	// (--accept-trusted, a paired sender) on the receiver.
	By         string `json:"by"`
	TotalBytes int64  `json:"total_bytes"` // bytes that will cross (sender: skips and resumes taken off)
}

type progressEvent struct {
	Event       string  `json:"event"` // "progress"
	Done        int64   `json:"done"`
	Total       int64   `json:"total"`
	Rate        float64 `json:"rate"`
	ETA         float64 `json:"eta"` // 0 when unknown
	Current     string  `json:"current"`
	CurrentDone int64   `json:"current_done"`
	CurrentSize int64   `json:"current_size"`
	EntriesDone int     `json:"entries_done"`
	Entries     int     `json:"entries"`
}

type entryEvent struct {
	Event   string `json:"event"` // "entry"
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Size    int64  `json:"size"`
	Outcome string `json:"outcome"`            // "received", "skipped", "resumed", "created"
	SavedAs string `json:"saved_as,omitempty"` // receiver, relative to the destination
}

type textEvent struct {
	Event string `json:"event"` // "text"
	Name  string `json:"name"`
	Text  string `json:"text"`
}

type codeChangedEvent struct {
	Event  string `json:"event"` // "code_changed"
	Code   string `json:"code"`
	Reason string `json:"reason"` // "retired" (too many wrong codes) or "used" (by the transfer that just ended)
}

// codesHeldEvent: after too many wrong codes the receiver checks none
// before Until; a sender that tries sooner is told to wait.
type codesHeldEvent struct {
	Event string `json:"event"` // "codes_held"
	Until string `json:"until"` // RFC 3339
	Wrong int    `json:"wrong"` // wrong codes checked in the last 24 hours
}

// codesStoppedEvent: the receiver stopped taking codes; an error event
// with kind "codes_stopped" follows when the receiver exits (at once, or
// when a transfer running then ends).
type codesStoppedEvent struct {
	Event string `json:"event"` // "codes_stopped"
	Wrong int    `json:"wrong"`
}

type jsonStage struct {
	Stage   string  `json:"stage"`
	Busy    float64 `json:"busy"` // share of the wall time, 0..1 (can exceed 1 across goroutines)
	Seconds float64 `json:"seconds"`
	Bytes   int64   `json:"bytes"`
}

type diagEvent struct {
	Event  string      `json:"event"` // "diag"
	End    string      `json:"end"`   // "sender" or "receiver"
	Wall   float64     `json:"wall"`  // seconds the split covers
	Stages []jsonStage `json:"stages"`
	CPU    *jsonCPU    `json:"cpu,omitempty"` // whole transfer, when the end measured it
	Line   string      `json:"line"`          // the same split as the human line
}

// jsonCPU is an end's process CPU over the wall time of its split.
type jsonCPU struct {
	Busy         float64 `json:"busy"`          // share of wall it ran or waited for a core, 0..1
	CoresUsed    float64 `json:"cores_used"`    // CPU seconds per second
	CoresWaiting float64 `json:"cores_waiting"` // its threads' wait for a core, seconds per second
	Cores        int     `json:"cores"`         // cores it may use
}

type doneEvent struct {
	Event        string     `json:"event"` // "done"
	Entries      int        `json:"entries"`
	Bytes        int64      `json:"bytes"`
	SkippedBytes int64      `json:"skipped_bytes"`
	ResumedBytes int64      `json:"resumed_bytes"`
	Duration     float64    `json:"duration"`
	Local        *diagEvent `json:"local,omitempty"`   // with --diag
	Remote       *diagEvent `json:"remote,omitempty"`  // sender with --diag
	Verdict      string     `json:"verdict,omitempty"` // sender with --diag
	runtimeCounts
}

type errorEvent struct {
	Event    string `json:"event"` // "error"
	Kind     string `json:"kind"`  // e.g. "wrong_code", "declined", "cancelled", "usage"
	ExitCode int    `json:"exit_code"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
	runtimeCounts
}

// runtimeCounts are the process's goroutines and open descriptors, on
// done and error events when FERRY_DEBUG_RUNTIME=1: a debugging aid for
// tests that look for leaks across many transfers. Absent otherwise.
type runtimeCounts struct {
	Goroutines *int `json:"goroutines,omitempty"`
	OpenFDs    *int `json:"open_fds,omitempty"`
}

type peerEvent struct {
	Event       string   `json:"event"` // "peer"
	Name        string   `json:"name"`
	Fingerprint string   `json:"fingerprint"`
	Version     int      `json:"version"`
	Host        string   `json:"host"`
	Port        int      `json:"port"`
	Addresses   []string `json:"addresses"`
	Trust       string   `json:"trust"` // "trusted", "key_changed" or ""
}

// jsonEvent converts an engine event to its JSON form. Finished and Failed
// return nil: the command reports the result once, from the value Send or
// Serve returns.
func jsonEvent(ev transfer.Event, end string) any {
	switch e := ev.(type) {
	case transfer.Connected:
		return connectedEvent{Event: "connected", PeerName: e.PeerName, PeerFingerprint: e.PeerFingerprint, Addr: e.Addr,
			Paired: e.Paired, WrongCodes: e.WrongCodes}
	case transfer.Offered:
		return newOfferEvent(e.Offer)
	case transfer.Accepted:
		return acceptedEvent{Event: "accepted", By: "peer", TotalBytes: e.Total}
	case transfer.Progress:
		return progressEvent{
			Event: "progress", Done: e.Done, Total: e.Total, Rate: e.Rate, ETA: e.ETA.Seconds(),
			Current: e.Current, CurrentDone: e.CurrentDone, CurrentSize: e.CurrentSize,
			EntriesDone: e.EntriesDone, Entries: e.Entries,
		}
	case transfer.EntryDone:
		return entryEvent{"entry", e.Entry.Path, e.Entry.Kind.String(), e.Entry.Size, e.Outcome.String(), e.SavedAs}
	case transfer.TextReceived:
		return textEvent{"text", e.Entry.Path, e.Text}
	case transfer.CodeChanged:
		return codeChangedEvent{"code_changed", e.Code, e.Reason.String()}
	case transfer.CodesHeld:
		return codesHeldEvent{"codes_held", e.Until.UTC().Format(time.RFC3339Nano), e.Wrong}
	case transfer.CodesStopped:
		return codesStoppedEvent{"codes_stopped", e.Wrong}
	case transfer.Diagnostics:
		return newDiagEvent(end, e.Split, e.Interval)
	}
	return nil
}

func newOfferEvent(o transfer.Offer) offerEvent {
	ev := offerEvent{
		Event: "offer", PeerName: o.PeerName, PeerFingerprint: o.PeerFingerprint,
		Files: o.Files, Folders: o.Dirs, Texts: o.Texts, TotalBytes: o.TotalBytes,
		EntriesTotal: len(o.Entries), EntriesListed: min(len(o.Entries), maxOfferEntries),
	}
	ev.Entries = make([]jsonEntry, 0, ev.EntriesListed)
	for _, e := range o.Entries[:ev.EntriesListed] {
		ev.Entries = append(ev.Entries, jsonEntry{e.Path, e.Kind.String(), e.Size})
	}
	return ev
}

func stagesOf(end string) []diag.Stage {
	if end == "sender" {
		return diag.SenderStages()
	}
	return diag.ReceiverStages()
}

// endLine is one end's whole-transfer split for a person, with its CPU
// use when it measured it.
func endLine(end string, sp diag.Split, wall time.Duration, cpu diag.CPU) string {
	line := sp.Format(sp.With(stagesOf(end)), wall)
	if c := cpu.Format(wall); c != "" {
		line += "; CPU " + c
	}
	return line
}

func newDiagEvent(end string, sp diag.Split, wall time.Duration) diagEvent {
	stages := stagesOf(end)
	ev := diagEvent{Event: "diag", End: end, Wall: wall.Seconds(), Line: sp.Format(stages, wall)}
	for _, st := range stages {
		ev.Stages = append(ev.Stages, jsonStage{st.String(), sp.Share(st, wall), sp[st].Time.Seconds(), sp[st].Bytes})
	}
	return ev
}

func cpuOf(c diag.CPU, wall time.Duration) *jsonCPU {
	if !c.Known() || wall <= 0 {
		return nil
	}
	return &jsonCPU{Busy: c.Busy(wall), CoresUsed: c.Load(wall), CoresWaiting: c.Waited.Seconds() / wall.Seconds(), Cores: c.Cores}
}

func newDoneEvent(s transfer.Summary, end string, withDiag bool) doneEvent {
	ev := doneEvent{
		Event: "done", Entries: len(s.Entries), Bytes: s.Bytes, SkippedBytes: s.SkippedBytes,
		ResumedBytes: s.ResumedBytes, Duration: s.Duration.Seconds(),
	}
	if withDiag {
		local := newDiagEvent(end, s.Local, s.Wall)
		local.CPU, local.Line = cpuOf(s.LocalCPU, s.Wall), endLine(end, s.Local, s.Wall, s.LocalCPU)
		ev.Local = &local
		if end == "sender" {
			remote := newDiagEvent("receiver", s.Remote, s.RemoteWall)
			remote.CPU, remote.Line = cpuOf(s.RemoteCPU, s.RemoteWall), endLine("receiver", s.Remote, s.RemoteWall, s.RemoteCPU)
			ev.Remote = &remote
			ev.Verdict = s.Verdict
		}
	}
	return ev
}
