package transfer

import (
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
	// for the OS disk hold (see the package doc's Sources). Nil reads the
	// OS file system, which is itself one such FS (os.DirFS of the item's
	// parent folder).
	FS fs.FS
	// Text, when Path is empty, is a snippet sent as an entry of its own.
	Text string
	// Name optionally names a text entry; the default is "text.txt". For
	// a file or folder it names the top-level entry in place of its base
	// name (and must be set for an FS item whose Path is "."): a host's
	// file picker knows a display name that its FS path may not carry.
	Name string
}

// Kind says what an Entry is.
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

// Entry is one line of a manifest as both ends see it.
type Entry struct {
	Path    string      // relative, slash-separated, validated
	Kind    Kind        //
	Size    int64       // bytes of content (0 for folders)
	Mode    fs.FileMode // permission bits only
	ModTime time.Time   //
}

// Offer is what a sender proposes: the manifest plus totals and who sent it.
type Offer struct {
	Entries         []Entry
	Files           int
	Dirs            int
	Texts           int
	TotalBytes      int64
	PeerName        string
	PeerFingerprint string
}

// Paths are the offer's entries' paths, in its order.
func (o Offer) Paths() []string {
	paths := make([]string, len(o.Entries))
	for i, e := range o.Entries {
		paths[i] = e.Path
	}
	return paths
}

// Outcome says what happened to one entry.
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

// Event is everything a front end is told. Events are delivered by calling
// the configured func from the transfer's goroutine, in order; a handler
// must not block for long (the GUI hands them to fyne.Do, the CLI prints).
type Event interface{ isEvent() }

// Connected: the handshake succeeded; the peer is who it says it is.
type Connected struct {
	PeerName        string
	PeerFingerprint string
	PeerKey         []byte // the peer's 32-byte static key, proven in the handshake
	Paired          bool   // authenticated by pinned keys, not by a code
	Addr            string
	// WrongCodes (receiver, code mode) is how many wrong codes this
	// receiver checked since its last transfer made with a code (or since
	// it started) before this sender's code proved right. Not zero, the
	// sender may be a guesser who got lucky: a front end never pins its
	// key without saying so in the question.
	WrongCodes int
	// Session (receiver) is the session the event belongs to (see
	// SessionOf); 0 on a sender.
	Session int
}

// Offered (receiver): an offer arrived and waits for Accept or Decline,
// unless the policy answers it.
type Offered struct {
	Offer Offer
	// Session (receiver) is the session the offer came in: answer it
	// with Receiver.AcceptSession or DeclineSession when several may be
	// open at once (ReceiverConfig.MaxConcurrent).
	Session int
}

// Accepted (sender): the receiver accepted; Total is the number of bytes
// that will actually cross (skips and resumes already taken off).
type Accepted struct {
	Offer Offer
	Total int64
}

// Progress is sent at most a few times a second while bytes move.
type Progress struct {
	Done        int64         // payload bytes moved so far, this transfer
	Total       int64         // payload bytes this transfer will move
	Rate        float64       // bytes per second, smoothed
	ETA         time.Duration // 0 when unknown, or beyond 99 hours
	Current     string        // path of the entry being moved
	CurrentDone int64
	CurrentSize int64
	EntriesDone int
	Entries     int
	// Session (receiver) is the session the event belongs to (see
	// SessionOf); 0 on a sender.
	Session int
}

// EntryDone: one entry is verified and in place (or skipped).
type EntryDone struct {
	Entry   Entry
	Outcome Outcome
	SavedAs string // receiver: path relative to the destination; may differ from Entry.Path after a clash
	// Replaced (receiver, with ReceiverConfig.Overwrite) says that the
	// file replaced one of the same name: one already there, or one
	// that another session placed first (the last placed wins).
	Replaced bool
	// Session (receiver) is the session the event belongs to (see
	// SessionOf); 0 on a sender.
	Session int
}

// TextReceived (receiver): a text snippet arrived. It is not saved unless
// the receiver was configured to save texts.
type TextReceived struct {
	Entry Entry
	Text  string
	// Session (receiver) is the session the event belongs to (see
	// SessionOf); 0 on a sender.
	Session int
}

// CodeChanged (receiver): the code a sender must type is now Code.
type CodeChanged struct {
	Code   string
	Reason CodeChangeReason
}

// CodeChangeReason says why the code changed.
type CodeChangeReason uint8

const (
	// CodeRetired: too many wrong attempts retired the old code.
	CodeRetired CodeChangeReason = iota
	// CodeUsed: a transfer made with the old code ended, and the old code
	// was one the receiver picked: whoever saw it cannot send again.
	CodeUsed
	// CodeRenewed: a person asked for a new code (Receiver.NewCode).
	CodeRenewed
)

func (c CodeChangeReason) String() string {
	switch c {
	case CodeRetired:
		return "retired"
	case CodeUsed:
		return "used"
	case CodeRenewed:
		return "renewed"
	}
	return "unknown"
}

// CodesHeld (receiver): after too many wrong codes the receiver checks
// none before Until; a sender that tries sooner, with any code, is told
// secure.ErrCodesHeld and may try again later. Wrong counts the wrong
// codes checked since a person last acted (started the receiver by hand
// or asked for a new code). Emitted after each wrong code that is past
// the free ones, so at most as often as the guess budget allows.
type CodesHeld struct {
	Until time.Time
	Wrong int
}

// CodesStopped (receiver): the guess budget is spent. No code is checked
// until a person asks for a new one (Receiver.NewCode) or starts the
// receiver by hand (BudgetConfig.ByPerson); every sender with a code is
// told secure.ErrCodesHeld. Paired senders are still served. Wrong
// counts the wrong codes behind it, since a person last acted. Emitted
// by the wrong code that spends the budget, and, for a budget that a
// Receiver was given spent (kept from before a restart, or a damaged
// record), once as that Receiver first serves. A front end says what
// happened and how to go on (ErrCodesStopped is the error to end with).
type CodesStopped struct{ Wrong int }

// Refused (receiver): a sender asked for a transfer without a code and
// the paired-mode handshake refused it, or asked with a code a receiver
// that takes paired senders only (CodesOff); Serve goes on waiting. The
// sender was told too (secure.ErrNotPaired, secure.ErrKeyChanged or
// secure.ErrNoCodes). Nothing
// else is a refusal: wrong codes are counted (see CodeChanged), and a
// connection that fails for any other reason (a port scan, another
// version, a stall) is closed unreported. A refusal costs a sender a few
// bytes, so a flood is reported in part: at most 4 at once, then one a
// second; Dropped counts those left out since the last one reported.
type Refused struct {
	Addr   string        // the sender's address (host:port)
	Reason RefusedReason //
	// PeerFingerprint and PeerKey are the sender's static key, proven in
	// the handshake, when Reason is NotTrusted; empty otherwise (the
	// handshake ended before the sender revealed its key).
	PeerFingerprint string
	PeerKey         []byte
	Err             error // wraps secure.ErrNotPaired (CodesOff: secure.ErrNoCodes)
	Dropped         int
}

// RefusedReason says why a sender was refused.
type RefusedReason uint8

const (
	// NotTrusted: ReceiverConfig.Paired has no pin for the sender's key
	// (never paired, or trust removed here).
	NotTrusted RefusedReason = iota + 1
	// PinMismatch: the sender's pin for this device is not this device's
	// key (this device made a new key, or the sender meant another
	// device), so the sender stopped before revealing its own.
	PinMismatch
	// PairedOff: this receiver accepts no paired senders
	// (ReceiverConfig.Paired is nil).
	PairedOff
	// CodesOff: the sender used a code, and this receiver takes paired
	// senders only (ReceiverConfig.PairedOnly); no guess was checked.
	// PeerKey is empty: the handshake ended before the sender's key.
	CodesOff
)

func (r RefusedReason) String() string {
	switch r {
	case NotTrusted:
		return "not trusted"
	case PinMismatch:
		return "pin mismatch"
	case PairedOff:
		return "paired mode off"
	case CodesOff:
		return "codes off"
	}
	return "unknown"
}

// Unproven (sender on SendConfig.Listener): a connection ended before
// its peer proved the code, and Send waits for the next. Guessed says
// whether it got message 3, and with it one offline test of the code:
// such a connection counts as a wrong guess whatever it said (see
// SendConfig.Listener), and Wrong counts them so far; at Allowed, Send
// stops with ErrCodesStopped. One that ended sooner (a page closed
// mid-handshake) tested nothing and is not counted.
type Unproven struct {
	Addr           string // the peer's address
	Err            error  // why the connection ended
	Guessed        bool
	Wrong, Allowed int
}

// Diagnostics is sent every few seconds when diagnostics are on: this end's
// stage split over the last interval.
type Diagnostics struct {
	Interval time.Duration
	Split    diag.Split
	// Session (receiver) is the session the event belongs to (see
	// SessionOf); 0 on a sender.
	Session int
}

// Finished: the transfer is complete and every entry was confirmed.
type Finished struct {
	Summary Summary
	Session int // receiver: the session that finished (see SessionOf); 0 on a sender
}

// Failed: the transfer ended without completing. Err wraps one of the
// package's sentinel errors where one applies.
type Failed struct {
	Err error
	// Session (receiver) is the session that failed, 0 when the
	// failure is the receiver's own (Serve's listener, a handshake
	// that ServeConn ran); 0 on a sender.
	Session int
}

// SessionOf returns the receiver's session an event belongs to: 1, 2, 3
// ... in the order the sessions passed their handshakes on this
// Receiver (every Serve, ServeMany and ServeConn counted), or 0 for an
// event of the receiver as a whole (CodeChanged, CodesHeld,
// CodesStopped, Refused, a Failed that ended no session) and for every
// event of a sender. A front end that serves several senders at once
// (Receiver.ServeMany) keeps one row, card or question per session id.
func SessionOf(ev Event) int {
	switch e := ev.(type) {
	case Connected:
		return e.Session
	case Offered:
		return e.Session
	case Progress:
		return e.Session
	case EntryDone:
		return e.Session
	case TextReceived:
		return e.Session
	case Diagnostics:
		return e.Session
	case Finished:
		return e.Session
	case Failed:
		return e.Session
	}
	return 0
}

// stamp sets a session-scoped event's Session to id.
func stamp(ev Event, id int) Event {
	switch e := ev.(type) {
	case Connected:
		e.Session = id
		return e
	case Offered:
		e.Session = id
		return e
	case Progress:
		e.Session = id
		return e
	case EntryDone:
		e.Session = id
		return e
	case TextReceived:
		e.Session = id
		return e
	case Diagnostics:
		e.Session = id
		return e
	case Finished:
		e.Session = id
		return e
	case Failed:
		e.Session = id
		return e
	}
	return ev
}

func (Connected) isEvent()    {}
func (Offered) isEvent()      {}
func (Accepted) isEvent()     {}
func (Progress) isEvent()     {}
func (EntryDone) isEvent()    {}
func (TextReceived) isEvent() {}
func (CodeChanged) isEvent()  {}
func (CodesHeld) isEvent()    {}
func (CodesStopped) isEvent() {}
func (Refused) isEvent()      {}
func (Unproven) isEvent()     {}
func (Diagnostics) isEvent()  {}
func (Finished) isEvent()     {}
func (Failed) isEvent()       {}

// Summary is the result of a completed transfer.
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
