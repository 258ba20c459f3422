package history

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/errkind"
)

// Bounds; see the package doc.
const (
	maxRecords   = 500     // records kept; the oldest are dropped
	maxFileBytes = 1 << 20 // bytes of file kept; the oldest records are dropped
	maxNames     = 8       // names and paths kept per record

	maxNameBytes  = 1024    // one top-level name
	maxPathBytes  = 4096    // one path; longer ones are left out
	maxErrorBytes = 512     // the error message
	maxPeerBytes  = 255     // the peer's name and address
	maxFPBytes    = 64      // a fingerprint
	maxReadBytes  = 8 << 20 // a file larger than this is damaged
)

// Direction says which end this device was.
type Direction string

const (
	Sent     Direction = "sent"
	Received Direction = "received"
)

// Outcome says how a transfer ended.
type Outcome string

const (
	Verified  Outcome = "verified"  // every file arrived and its hash matched
	Failed    Outcome = "failed"    // see ErrorKind and Error
	Declined  Outcome = "declined"  // the receiver said no (either end records it)
	Cancelled Outcome = "cancelled" // either end stopped it
)

// Auth says how the peer was authenticated.
type Auth string

const (
	ByTrust Auth = "trusted" // pinned keys, no code
	ByCode  Auth = "code"
	Unknown Auth = "" // the transfer failed before the handshake
)

// Peer is the other device.
type Peer struct {
	Name        string
	Fingerprint string
	Auth        Auth
	Addr        string
}

// Record is one transfer.
type Record struct {
	At        time.Time // when it started
	Direction Direction
	Peer      Peer

	Files, Folders, Texts int
	Bytes                 int64    // total size offered
	Names                 []string // top-level names, at most maxNames
	MoreNames             int      // top-level names beyond Names

	Folder string   // receiver: the destination; sender: the first source's folder
	Paths  []string // absolute paths, at most maxNames

	Outcome   Outcome
	ErrorKind string // Failed: a stable kind (ErrorKind)
	Error     string // the message, for anything but Verified

	Duration time.Duration
}

// SetOffer fills in what was offered: the counts, the total size and the
// top-level names of paths (the offer's entries' paths, in its order:
// transfer.Offer's Paths).
func (r *Record) SetOffer(files, folders, texts int, bytes int64, paths []string) {
	r.Files, r.Folders, r.Texts, r.Bytes = files, folders, texts, bytes
	r.Names, r.MoreNames = TopNames(paths)
}

// TopNames returns the distinct first components of slash-separated
// relative paths, in order, at most maxNames, and how many more there
// are.
func TopNames(paths []string) (names []string, more int) {
	// The names past maxNames are counted by sorting them, not with a
	// set: an offer may have 100,000 top-level names, recorded while the
	// receiver holds the offer itself, and a slice of them holds a third
	// of what a map of them did.
	top := func(p string) string {
		t, _, _ := strings.Cut(path.Clean(p), "/")
		return t
	}
	n := 0
	for _, p := range paths {
		if t := top(p); !slices.Contains(names, t) {
			if len(names) < maxNames {
				names = append(names, t)
			} else {
				n++
			}
		}
	}
	if n == 0 {
		return names, 0
	}
	rest := make([]string, 0, n)
	for _, p := range paths {
		if t := top(p); !slices.Contains(names, t) {
			rest = append(rest, t)
		}
	}
	slices.Sort(rest)
	return names, len(slices.Compact(rest))
}

// SavedPaths returns the receiver's top-level paths under dir, from each
// entry's final name (EntryDone.SavedAs, which differs from the offered
// name after a clash): at most maxNames.
func SavedPaths(dir string, saved []string) []string {
	tops, _ := TopNames(saved)
	out := make([]string, 0, len(tops))
	for _, t := range tops {
		out = append(out, filepath.Join(dir, filepath.FromSlash(t)))
	}
	return out
}

// SetEnd fills in the outcome from the transfer's error and the duration
// from start to now. A nil error is Verified; the engine returns nil only
// when every file was confirmed.
func (r *Record) SetEnd(err error, now time.Time) {
	r.Duration = now.Sub(r.At)
	r.Outcome, r.ErrorKind, r.Error = Verified, "", ""
	if err == nil {
		return
	}
	switch k := errkind.Of(err); k {
	case errkind.Declined:
		r.Outcome = Declined
	case errkind.Cancelled:
		r.Outcome = Cancelled
	default:
		r.Outcome, r.ErrorKind = Failed, string(k)
	}
	r.Error = err.Error()
}

// ErrorKind is the stable kind of a transfer's error: core/transfer's
// errkind.Of, the word `ferry --json` error events use for it ("failure"
// when none fits).
func ErrorKind(err error) string { return string(errkind.Of(err)) }

// clean bounds r to what the file keeps: valid UTF-8, capped strings and
// lists, UTC milliseconds, no negative counts.
func clean(r Record) Record {
	if r.At.IsZero() {
		r.At = time.Now()
	}
	r.At = r.At.UTC().Truncate(time.Millisecond)
	r.Duration = max(r.Duration.Truncate(time.Millisecond), 0)
	r.Peer.Name = clip(r.Peer.Name, maxPeerBytes)
	r.Peer.Fingerprint = clip(r.Peer.Fingerprint, maxFPBytes)
	r.Peer.Addr = clip(r.Peer.Addr, maxPeerBytes)
	r.Files, r.Folders, r.Texts = max(r.Files, 0), max(r.Folders, 0), max(r.Texts, 0)
	r.Bytes, r.MoreNames = max(r.Bytes, 0), max(r.MoreNames, 0)
	var names []string
	for _, n := range r.Names {
		if len(names) == maxNames {
			r.MoreNames++
			continue
		}
		names = append(names, clip(n, maxNameBytes))
	}
	r.Names = names
	if len(r.Folder) > maxPathBytes || !utf8.ValidString(r.Folder) {
		r.Folder = ""
	}
	var paths []string
	for _, p := range r.Paths {
		if len(paths) < maxNames && len(p) <= maxPathBytes && utf8.ValidString(p) {
			paths = append(paths, p)
		}
	}
	r.Paths = paths
	if r.Outcome != Failed {
		r.ErrorKind = ""
	} else if r.ErrorKind == "" {
		r.ErrorKind = "failure"
	}
	r.ErrorKind = clip(r.ErrorKind, maxPeerBytes)
	r.Error = clip(r.Error, maxErrorBytes)
	return r
}

// clip makes s valid UTF-8 of at most n bytes, cut between runes.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
