package event

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// Item is one thing a person picked to send: a file or folder on disk (or
// in another file system, FS), or a text snippet.
type Item struct {
	// Path is a file or folder on the sender's disk. A folder is sent
	// whole, empty subfolders included, under its own base name. With FS
	// set, Path is a path inside FS instead (see FS).
	Path string
	// FS, when set, is where Path is read from instead of the OS file
	// system: Path is then an io/fs path in it (slash-separated,
	// unrooted, fs.ValidPath; "." for FS's root), a file or a folder,
	// walked with fs.WalkDir. Sizes, modes and modification times come
	// from its fs.FileInfo; files are opened through it, and the rules
	// for the OS disk hold (see core/transfer's package doc, Sources). Nil
	// reads the OS file system, which is itself one such FS (os.DirFS of
	// the item's parent folder).
	FS fs.FS
	// Text, when Path is empty, is a snippet sent as an entry of its own.
	Text string
	// Name optionally names a text entry; the default is "text.txt". For
	// a file or folder it names the top-level entry in place of its base
	// name (and must be set for an FS item whose Path is "."): a host's
	// file picker knows a display name that its FS path may not carry.
	Name string
}

// Kind says what an Entry is. Its numbers are the wire's (a manifest
// carries them); its JSON form is its String.
type Kind uint8

const (
	KindFile Kind = 1
	KindDir  Kind = 2
	KindText Kind = 3
)

func (k Kind) String() string {
	switch k {
	case KindFile:
		return "file"
	case KindDir:
		return "folder"
	case KindText:
		return "text"
	}
	return "unknown"
}

// MarshalText is k's JSON form: "file", "folder" or "text".
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads k's JSON form, for tools that read the events.
func (k *Kind) UnmarshalText(b []byte) error {
	for _, c := range []Kind{KindFile, KindDir, KindText} {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("unknown entry kind %q", b)
}

// Entry is one line of a manifest as both ends see it. Its JSON form is
// {path, kind, size}; mode and time are Go only.
type Entry struct {
	Path    string      `json:"path"` // relative, slash-separated, validated
	Kind    Kind        `json:"kind"`
	Size    int64       `json:"size"` // bytes of content (0 for folders)
	Mode    fs.FileMode `json:"-"`    // permission bits only
	ModTime time.Time   `json:"-"`
}

// Outcome says what happened to one entry. Its JSON form is its String.
type Outcome uint8

const (
	Received Outcome = iota + 1 // all bytes sent and verified
	Skipped                     // an identical file was already there
	Resumed                     // continued from a verified partial file
	Created                     // a folder was created
)

func (o Outcome) String() string {
	switch o {
	case Received:
		return "received"
	case Skipped:
		return "skipped"
	case Resumed:
		return "resumed"
	case Created:
		return "created"
	}
	return "unknown"
}

// MarshalText is o's JSON form: "received", "skipped", "resumed" or
// "created".
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads o's JSON form, for tools that read the events.
func (o *Outcome) UnmarshalText(b []byte) error {
	for _, c := range []Outcome{Received, Skipped, Resumed, Created} {
		if c.String() == string(b) {
			*o = c
			return nil
		}
	}
	return fmt.Errorf("unknown outcome %q", b)
}

// Summary is the result of a completed transfer (Go only: its JSON form
// is the Done event that core/app makes of it).
type Summary struct {
	Entries      []EntryDone
	Bytes        int64         // payload bytes that crossed the network
	SkippedBytes int64         // bytes not sent because an identical file was there
	ResumedBytes int64         // bytes not sent because a verified partial was there
	Duration     time.Duration // from accept to the last confirmation

	// Local is this end's stage split over the whole transfer, Wall the
	// time it covers. Remote is the receiver's split as it reported it at
	// the end (sender only; zero on the receiver).
	Local      diag.Split
	Wall       time.Duration
	Remote     diag.Split
	RemoteWall time.Duration
	// LocalCPU is this process's CPU use over Wall, RemoteCPU the
	// receiver's over RemoteWall (sender only). SameMachine: the sender
	// reached the receiver at a loopback address or its own, so the two
	// share one machine's cores (sender only).
	LocalCPU    diag.CPU
	RemoteCPU   diag.CPU
	SameMachine bool
	// Verdict names what limited the transfer, on either end (sender
	// only).
	Verdict string
}

// OfferOf is an offer of entries, its counts and total filled in from
// them (the sender and its key left for the caller).
func OfferOf(entries []Entry) Offer {
	o := Offer{Entries: entries}
	for _, e := range entries {
		switch e.Kind {
		case KindFile:
			o.Files++
		case KindDir:
			o.Folders++
		case KindText:
			o.Texts++
		}
		o.TotalBytes += e.Size
	}
	return o
}

// Offer is what the summary's entries add up to, as an offer of them
// would count them.
func (s Summary) Offer() Offer {
	entries := make([]Entry, len(s.Entries))
	for i, e := range s.Entries {
		entries[i] = e.Entry
	}
	return OfferOf(entries)
}

// Paths are the offer's entries' paths, in its order.
func (o Offer) Paths() []string {
	paths := make([]string, len(o.Entries))
	for i, e := range o.Entries {
		paths[i] = e.Path
	}
	return paths
}

// MarshalJSON is the offer's one JSON form: named "offer", with its
// first MaxOfferEntries entries listed and entries_total and
// entries_listed counted from Entries.
func (o Offer) MarshalJSON() ([]byte, error) {
	type plain Offer // without this method
	p := plain(o)
	p.EntriesTotal, p.EntriesListed = len(o.Entries), min(len(o.Entries), MaxOfferEntries)
	p.Entries = o.Entries[:p.EntriesListed]
	if p.Entries == nil {
		p.Entries = []Entry{}
	}
	b, err := json.Marshal(struct {
		plain
		Warning string `json:"warning,omitempty"` // SameNameWarning
	}{p, o.SameNameWarning()})
	if err != nil {
		return nil, fmt.Errorf("encoding event offer: %w", err)
	}
	return named(o.Type(), b), nil
}
