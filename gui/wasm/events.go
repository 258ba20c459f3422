//go:build js && wasm

package main

import (
	"time"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/transfer"
)

// maxOfferEntries is how many entries an "offer" event lists, as the
// CLI's.
const maxOfferEntries = 1000

// eventObject is an engine event as the page sees it: the CLI's --json
// field names, with "type" for "event". Finished and Failed give nil:
// the operation's promise carries the result.
func eventObject(ev transfer.Event, end, fp string) map[string]any {
	switch e := ev.(type) {
	case transfer.Connected:
		m := map[string]any{"type": "connected", "peer_name": e.PeerName, "peer_fingerprint": e.PeerFingerprint,
			"paired": e.Paired, "wrong_codes": e.WrongCodes}
		if fp != "" {
			m["fp_match"] = e.PeerFingerprint == fp
		}
		return m
	case transfer.Offered:
		o := e.Offer
		var list []any
		for _, x := range o.Entries[:min(len(o.Entries), maxOfferEntries)] {
			list = append(list, map[string]any{"path": x.Path, "kind": x.Kind.String(), "size": x.Size})
		}
		return map[string]any{"type": "offer", "peer_name": o.PeerName, "peer_fingerprint": o.PeerFingerprint,
			"files": o.Files, "folders": o.Dirs, "texts": o.Texts, "total_bytes": o.TotalBytes, "entries": list,
			"entries_total": len(o.Entries), "entries_listed": len(list)}
	case transfer.Accepted:
		return map[string]any{"type": "accepted", "by": "peer", "total_bytes": e.Total}
	case transfer.Progress:
		return map[string]any{"type": "progress", "done": e.Done, "total": e.Total, "rate": e.Rate,
			"eta": e.ETA.Seconds(), "current": e.Current, "current_done": e.CurrentDone,
			"current_size": e.CurrentSize, "entries_done": e.EntriesDone, "entries": e.Entries}
	case transfer.EntryDone:
		return map[string]any{"type": "entry", "path": e.Entry.Path, "kind": e.Entry.Kind.String(),
			"size": e.Entry.Size, "outcome": e.Outcome.String(), "saved_as": e.SavedAs}
	case transfer.TextReceived:
		return map[string]any{"type": "text", "name": e.Entry.Path, "text": e.Text}
	case transfer.Diagnostics:
		return diagObject(end, e.Split, e.Interval)
	}
	return nil
}

func stagesOf(end string) []diag.Stage {
	if end == "sender" {
		return diag.SenderStages()
	}
	return diag.ReceiverStages()
}

func diagObject(end string, sp diag.Split, wall time.Duration) map[string]any {
	var stages []any
	for _, st := range sp.With(stagesOf(end)) {
		stages = append(stages, map[string]any{"stage": st.String(), "busy": sp.Share(st, wall),
			"seconds": sp[st].Time.Seconds(), "bytes": sp[st].Bytes})
	}
	return map[string]any{"type": "diag", "end": end, "wall": wall.Seconds(), "stages": stages,
		"line": sp.Format(sp.With(stagesOf(end)), wall)}
}

func doneObject(s transfer.Summary, end string, withDiag bool) map[string]any {
	m := map[string]any{"type": "done", "entries": len(s.Entries), "bytes": s.Bytes,
		"skipped_bytes": s.SkippedBytes, "resumed_bytes": s.ResumedBytes, "duration": s.Duration.Seconds()}
	if withDiag {
		m["local"] = diagObject(end, s.Local, s.Wall)
		if end == "sender" {
			m["remote"] = diagObject("receiver", s.Remote, s.RemoteWall)
			m["verdict"] = s.Verdict
		}
	}
	return m
}

// errorObject gives err's kind (core/errkind's Of, the CLI's
// --json kind) with a hint in the page's words.
func errorObject(err error) map[string]any {
	kind := errkind.Of(err)
	return map[string]any{"type": "error", "kind": string(kind), "message": err.Error(), "hint": pageHints[kind]}
}

// pageHints is what the page tells a person to do about each kind.
var pageHints = map[errkind.Kind]string{
	errkind.WrongCode:      "the code in the link is not the one the other device shows: scan its QR code again",
	errkind.CodeRetired:    "the other device now shows a new code: scan its new QR code",
	errkind.CodesHeld:      "the other device is holding back codes after too many wrong ones: wait a minute and try again",
	errkind.Busy:           "the other device is in another transfer: try again when it has finished",
	errkind.Verify:         "the data was damaged or changed on the way: send again",
	errkind.Damaged:        "the data was damaged or altered on the way: send again",
	errkind.Incompatible:   "this page and the other device speak different versions: reload the page from the link",
	errkind.NoSpace:        "the other device has not enough free space",
	errkind.Timeout:        "check that both devices are still on the same network",
	errkind.SourceChanged:  "a file changed while it was being sent: pick it again and send again",
	errkind.ConnectionLost: "the connection dropped: pick the same files and send again to resume where it stopped",
	errkind.NotFerry:       "this page did not reach a ferry device: open the link again",
	errkind.Unreachable:    "check that this device is on the same network as the other one, and that it is still waiting",
	errkind.Protocol:       "reload the page from the link; if it happens again, update ferry on the other device",
}
