package mobile

import (
	"encoding/json"
	"io/fs"

	"github.com/ferry-project/ferry/core/transfer"
)

// Events is implemented by the app. Every call comes on a thread that
// Go owns, never the app's main thread: hop to it before touching the UI
// (runOnUiThread, DispatchQueue.main.async). Calls come one at a time, in
// the order things happened, and no lock of Ferry's is held while one
// runs: a callback may call any method, Accept or Cancel from OnOffer,
// PeerFound or StopBrowse from OnPeers, even Node.Close. A call should
// return quickly, because the calls behind it wait, and when too many
// wait the transfers hold still; and it must not throw, because an
// exception has nowhere to go.
//
// transferID is Transfer.ID of the transfer concerned; 0 means no
// transfer (OnPeers, and OnFailed for a failed mDNS browse).
//
// Each transfer ends with exactly one OnFinished or OnFailed, after which
// its ID is never used again.
type Events interface {
	// OnPeers: the list of receivers nearby changed. peersJSON is the
	// whole list, as Node.Peers returns it when the call is made: changes
	// in quick succession may come as one call, and a later call never
	// brings an older list.
	OnPeers(peersJSON string)
	// OnConnected: the handshake succeeded; the peer proved the code.
	OnConnected(transferID int64, peerName, peerFingerprint, addr string)
	// OnOffer (receiving): an offer waits for Transfer.Accept or
	// Transfer.Decline, unless the transfer was started with AutoAccept.
	OnOffer(transferID int64, offer *Offer)
	// OnAccepted (sending): the receiver accepted; totalBytes will cross.
	OnAccepted(transferID int64, totalBytes int64)
	// OnProgress: at most a few times a second while bytes move.
	OnProgress(transferID int64, progress *Progress)
	// OnEntryDone: one entry is verified and in place, or was skipped.
	// outcome is "received", "skipped", "resumed" or "created"; savedAs
	// (receiving) is the path under the destination, which differs from
	// path when a file of that name was already there.
	OnEntryDone(transferID int64, path, outcome, savedAs string)
	// OnText (receiving): a text snippet arrived.
	OnText(transferID int64, name, text string)
	// OnCodeChanged (receiving): too many wrong codes retired the old one,
	// or Transfer.NewCode picked a new one; show the new code.
	OnCodeChanged(transferID int64, code string)
	// OnCodesHeld (receiving): wrongCodes wrong codes were tried since
	// the person last acted (Config.StartedByPerson, Transfer.NewCode),
	// more than a person mistypes, so the receiver checks
	// no code before untilUnixMillis; a sender who tries sooner, with any
	// code, fails with KindCodesHeld. Tell the person, who may wait.
	OnCodesHeld(transferID int64, untilUnixMillis int64, wrongCodes int)
	// OnCodesStopped (receiving): the receiver stopped taking codes after
	// wrongCodes wrong ones (or a receive starts with the count already
	// spent, kept from before a restart): someone nearby may be guessing.
	// No code works
	// until the person asks for a new one (Transfer.NewCode); say so, and
	// offer that.
	OnCodesStopped(transferID int64, wrongCodes int)
	// OnFinished: the transfer completed and every entry was confirmed.
	OnFinished(transferID int64, summary *Summary)
	// OnFailed: the transfer ended without completing (or, with ID 0,
	// browsing failed). failure.Kind is one of the Kind constants.
	OnFailed(transferID int64, failure *Failure)
}

// Offer is what a sender proposes. The entries stay on the Go side and
// are read a page at a time, so a folder of a hundred thousand files
// never crosses the boundary at once.
type Offer struct {
	Files           int
	Dirs            int
	Texts           int
	TotalBytes      int64
	PeerName        string
	PeerFingerprint string

	entries []transfer.Entry
}

// EntryCount is the number of entries in the offer.
func (o *Offer) EntryCount() int {
	defer quiet()
	return len(o.entries)
}

// EntriesJSON returns entries [start, start+count) as a JSON array of
// objects: {"path": "dir/a.txt", "kind": "file"|"folder"|"text",
// "size": bytes, "mode": permission bits, "mtime": unix seconds}. A range
// past the end is cut short; the result is "[]" when nothing is left.
func (o *Offer) EntriesJSON(start, count int) (_ string, err error) {
	defer guard("listing offer entries", &err)
	return entriesJSON(o.entries, start, count, func(e transfer.Entry) any { return entryOf(e) })
}

// Progress is a transfer's progress. Byte counts are payload bytes of
// this transfer: skipped and resumed bytes are not in Total.
type Progress struct {
	Done        int64
	Total       int64
	BytesPerSec float64 // smoothed
	ETASeconds  float64 // 0 when unknown
	Current     string  // path of the entry moving now
	CurrentDone int64
	CurrentSize int64
	EntriesDone int
	Entries     int
}

// Summary is the result of a completed transfer.
type Summary struct {
	Entries      int
	Bytes        int64   // payload bytes that crossed the network
	SkippedBytes int64   // not sent: an identical file was already there
	ResumedBytes int64   // not sent: a verified partial file was there
	Seconds      float64 // from accept to the last confirmation
	// Verdict (sending) names the slowest stage on either end.
	Verdict string

	entries []transfer.EntryDone
}

// EntriesJSON returns the outcomes [start, start+count) as a JSON array
// of objects: the fields of Offer.EntriesJSON plus "outcome" and
// "savedAs".
func (s *Summary) EntriesJSON(start, count int) (_ string, err error) {
	defer guard("listing summary entries", &err)
	return entriesJSON(s.entries, start, count, func(d transfer.EntryDone) any {
		return entryDoneJSON{entryJSON: entryOf(d.Entry), Outcome: d.Outcome.String(), SavedAs: d.SavedAs}
	})
}

// Failure says why a transfer ended early.
type Failure struct {
	Kind    string // one of the Kind constants
	Message string // for people: lowercase, says what failed and why
}

type entryJSON struct {
	Path  string      `json:"path"`
	Kind  string      `json:"kind"`
	Size  int64       `json:"size"`
	Mode  fs.FileMode `json:"mode"`
	MTime int64       `json:"mtime"`
}

type entryDoneJSON struct {
	entryJSON
	Outcome string `json:"outcome"`
	SavedAs string `json:"savedAs,omitempty"`
}

func entryOf(e transfer.Entry) entryJSON {
	var mtime int64
	if !e.ModTime.IsZero() {
		mtime = e.ModTime.Unix()
	}
	return entryJSON{Path: e.Path, Kind: e.Kind.String(), Size: e.Size, Mode: e.Mode.Perm(), MTime: mtime}
}

// entriesJSON encodes the page [start, start+count) of list.
func entriesJSON[T any](list []T, start, count int, conv func(T) any) (string, error) {
	start = max(0, min(start, len(list)))
	end := start + max(0, min(count, len(list)-start))
	page := make([]any, 0, end-start)
	for _, e := range list[start:end] {
		page = append(page, conv(e))
	}
	b, err := json.Marshal(page)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// deliver hands one core event to the app. Finished and Failed are not
// passed on: the transfer's owner reports the end once, from the result
// of Send or Serve, so the app sees exactly one terminal call.
func deliver(ev Events, id int64, e transfer.Event) {
	switch e := e.(type) {
	case transfer.Connected:
		ev.OnConnected(id, e.PeerName, e.PeerFingerprint, e.Addr)
	case transfer.Offered:
		ev.OnOffer(id, offerOf(e.Offer))
	case transfer.Accepted:
		ev.OnAccepted(id, e.Total)
	case transfer.Progress:
		ev.OnProgress(id, &Progress{
			Done:        e.Done,
			Total:       e.Total,
			BytesPerSec: e.Rate,
			ETASeconds:  e.ETA.Seconds(),
			Current:     e.Current,
			CurrentDone: e.CurrentDone,
			CurrentSize: e.CurrentSize,
			EntriesDone: e.EntriesDone,
			Entries:     e.Entries,
		})
	case transfer.EntryDone:
		ev.OnEntryDone(id, e.Entry.Path, e.Outcome.String(), e.SavedAs)
	case transfer.TextReceived:
		ev.OnText(id, e.Entry.Path, e.Text)
	case transfer.CodeChanged:
		// A receiving Transfer is one transfer: the code that replaces a
		// used one would never be typed, so it is not shown.
		if e.Reason != transfer.CodeUsed {
			ev.OnCodeChanged(id, e.Code)
		}
	case transfer.CodesHeld:
		ev.OnCodesHeld(id, e.Until.UnixMilli(), e.Wrong)
	case transfer.CodesStopped:
		ev.OnCodesStopped(id, e.Wrong)
	}
}

func offerOf(o transfer.Offer) *Offer {
	return &Offer{
		Files:           o.Files,
		Dirs:            o.Dirs,
		Texts:           o.Texts,
		TotalBytes:      o.TotalBytes,
		PeerName:        o.PeerName,
		PeerFingerprint: o.PeerFingerprint,
		entries:         o.Entries,
	}
}

func summaryOf(s transfer.Summary) *Summary {
	return &Summary{
		Entries:      len(s.Entries),
		Bytes:        s.Bytes,
		SkippedBytes: s.SkippedBytes,
		ResumedBytes: s.ResumedBytes,
		Seconds:      s.Duration.Seconds(),
		Verdict:      s.Verdict,
		entries:      s.Entries,
	}
}
