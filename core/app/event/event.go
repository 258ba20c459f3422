package event

import "fmt"

// Event is one event of the schema. Type is its "event" field in JSON.
type Event interface{ Type() string }

// Listening (receiver, always first): where and how to reach it.
type Listening struct {
	Code        string   `json:"code"`
	Port        int      `json:"port"`
	Addresses   []string `json:"addresses"` // IPs, without the port
	Name        string   `json:"name"`
	Fingerprint string   `json:"fingerprint"`
	Dir         string   `json:"dir"`
}

// Page (receive --web, send --to-browser): where the browser page is,
// one link per address (the first is the one to scan), and the hashes a
// person can check it against. HasWasm is false in a binary built
// without ferry.wasm: its page only says so.
type Page struct {
	Links      []string `json:"links"`
	PageSHA256 string   `json:"page_sha256"`
	WasmSHA256 string   `json:"wasm_sha256"`
	HasWasm    bool     `json:"has_wasm"`
}

// Connected (both ends): the handshake proved who the peer is.
type Connected struct {
	PeerName        string `json:"peer_name"` // the name the peer claims
	PeerFingerprint string `json:"peer_fingerprint"`
	Addr            string `json:"addr"`
	Paired          bool   `json:"paired"` // authenticated by pinned keys, without a code
	// PinnedName (receiver, paired) is the name this device pinned the
	// sender's key under; PeerName is the name the sender claims.
	PinnedName string `json:"pinned_name,omitempty"`
	// WrongCodes (receiver, by code) is how many wrong codes were tried
	// here since the last transfer by code before this sender's was right.
	WrongCodes int `json:"wrong_codes"`
	// PeerKey is the peer's 32-byte static key, proven in the handshake.
	PeerKey []byte `json:"-"`
	// Session (receiver) is the session the event belongs to (Go only,
	// see SessionOf); 0 on a sender.
	Session int `json:"-"`
}

// Offer (receiver): what a sender proposes, waiting for an answer
// unless the policy gives one. It is also the offer itself wherever one
// travels (Accepted.Offer).
type Offer struct {
	PeerName        string `json:"peer_name"`
	PeerFingerprint string `json:"peer_fingerprint"`
	Files           int    `json:"files"`
	Folders         int    `json:"folders"`
	Texts           int    `json:"texts"`
	TotalBytes      int64  `json:"total_bytes"`
	// Entries is the whole manifest in Go; the JSON form (MarshalJSON)
	// lists its first MaxOfferEntries, in its order, and fills
	// EntriesTotal (how many it holds) and EntriesListed (how many are
	// listed: fewer only when it holds more). In Go those two are unset:
	// read len(Entries).
	Entries       []Entry `json:"entries"`
	EntriesTotal  int     `json:"entries_total"`
	EntriesListed int     `json:"entries_listed"`
	// SameNameAs (receiver of several senders) are the fingerprints of
	// the other senders in progress here under PeerName, each with
	// another key (see SameName): a question about this offer names
	// them beside PeerFingerprint. Absent when there is none.
	SameNameAs []string `json:"same_name_as,omitempty"`
	// Session (receiver) is the session the offer came in (Go only, see
	// SessionOf): answer it with that session's Accept or Decline.
	Session int `json:"-"`
}

// MaxOfferEntries is how many entries an Offer lists in JSON. An offer
// may hold 100,000 (core/transfer's MaxEntries): all of them would make
// one line of several MiB, built in memory at once, over a receiver's
// 32 MiB budget. Every entry still gets its own Entry event.
const MaxOfferEntries = 1000

// Accepted (both ends): the offer was accepted. By says who: "peer" on
// the sender (the receiver accepted); on the receiver "flag" (accept all,
// --yes), "person" (answered the question) or "trusted" (a paired sender,
// accepted unasked). TotalBytes: on the sender, the bytes that will
// cross (skips and resumes taken off).
type Accepted struct {
	By         string `json:"by"`
	TotalBytes int64  `json:"total_bytes"`
	// Offer is what was accepted (Go only).
	Offer Offer `json:"-"`
}

// Who accepted an offer (Accepted.By).
const (
	ByPeer    = "peer"
	ByFlag    = "flag"
	ByPerson  = "person"
	ByTrusted = "trusted"
)

// Progress (both ends), at most a few times a second while bytes move.
type Progress struct {
	Done        int64   `json:"done"`
	Total       int64   `json:"total"`
	Rate        float64 `json:"rate"`
	ETA         float64 `json:"eta"` // seconds; 0 when unknown
	Current     string  `json:"current"`
	CurrentDone int64   `json:"current_done"`
	CurrentSize int64   `json:"current_size"`
	EntriesDone int     `json:"entries_done"`
	Entries     int     `json:"entries"`
	// Session (receiver) is the session the event belongs to (Go only,
	// see SessionOf); 0 on a sender.
	Session int `json:"-"`
}

// EntryDone (both ends): one entry is verified and in place, or skipped.
// Its JSON form is the entry's ({path, kind, size}) with the outcome.
type EntryDone struct {
	Entry
	Outcome Outcome `json:"outcome"`            // "received", "skipped", "resumed", "created"
	SavedAs string  `json:"saved_as,omitempty"` // receiver, relative to the destination; may differ from Path after a clash
	// Replaced (receiver, overwriting) says that the file replaced one
	// of the same name: one already there, or one that another session
	// placed first (the last placed wins). Go only.
	Replaced bool `json:"-"`
	// Session (receiver) is the session the event belongs to (Go only,
	// see SessionOf); 0 on a sender.
	Session int `json:"-"`
}

// Text (receiver): a text snippet arrived. It is not saved unless the
// receiver was asked to save texts.
type Text struct {
	Name string `json:"name"`
	Text string `json:"text"`
	// Session (receiver) is the session the event belongs to (Go only,
	// see SessionOf).
	Session int `json:"-"`
}

// CodeChanged (receiver): the code a sender must type is now Code.
type CodeChanged struct {
	Code   string           `json:"code"`
	Reason CodeChangeReason `json:"reason"`
}

// CodeChangeReason says why the code changed.
type CodeChangeReason string

const (
	// CodeRetired: too many wrong attempts retired the old code.
	CodeRetired CodeChangeReason = "retired"
	// CodeUsed: a handshake proved the old code, which the receiver
	// picked: it is used up at once, while that sender's transfer runs,
	// so that whoever else saw it cannot send, beside that sender or
	// after it (a code fixed with --code never changes so).
	CodeUsed CodeChangeReason = "used"
	// CodeRenewed: a person asked for a new code.
	CodeRenewed CodeChangeReason = "renewed"
)

func (c CodeChangeReason) String() string { return string(c) }

// CodesHeld (receiver): after too many wrong codes none is checked
// before Until; a sender that tries sooner is told to wait.
type CodesHeld struct {
	Until string `json:"until"` // RFC 3339
	Wrong int    `json:"wrong"` // wrong codes checked on this device (core/guess's count)
}

// CodesStopped (receiver): the guess budget is spent; no code is checked
// until a person asks for a new one. Paired senders still get through.
type CodesStopped struct {
	Wrong int `json:"wrong"`
}

// CodeLonger (receiver): the code a sender must type is Digits digits
// long, not 6, because Wrong wrong codes were tried on this device (two
// digits more for each 12, up to 10); the codes shorten again after Days
// days without a wrong code. Said when the receiver starts with such a
// code and whenever a code of another length follows.
type CodeLonger struct {
	Digits int `json:"digits"`
	Wrong  int `json:"wrong"`
	Days   int `json:"days"`
}

// Notice says why the code is longer than 6 digits.
func (e CodeLonger) Notice() string {
	return fmt.Sprintf("the code is %d digits, not 6: %s tried on this device, so someone may have been guessing; codes get shorter after %d days without a wrong one",
		e.Digits, plural(e.Wrong, "wrong code was", "wrong codes were"), e.Days)
}

// Refused (receiver): a sender came without a code and the handshake
// refused it, or came with one to a receiver that takes trusted devices
// only; the receiver goes on waiting. The engine sets Reason and the Go
// fields; core/app words it (Kind, Message, Hint).
type Refused struct {
	Kind            string        `json:"kind"` // "not_paired"
	Reason          RefusedReason `json:"reason"`
	PeerFingerprint string        `json:"peer_fingerprint"` // "" unless not_trusted
	Addr            string        `json:"addr"`             // the sender's host:port
	Message         string        `json:"message"`
	Hint            string        `json:"hint"`
	Dropped         int           `json:"dropped"` // refusals before this one not reported (too many at once)
	// PeerKey is the sender's static key, proven in the handshake, when
	// Reason is NotTrusted; empty otherwise (the handshake ended before
	// the sender revealed it). Go only.
	PeerKey []byte `json:"-"`
	// Err is the handshake's error (Go only): it wraps
	// secure.ErrNotPaired (CodesOff: secure.ErrNoCodes).
	Err error `json:"-"`
}

// RefusedReason says why a sender was refused.
type RefusedReason string

const (
	// NotTrusted: this device has no pin for the sender's key (never
	// paired, or trust removed here).
	NotTrusted RefusedReason = "not_trusted"
	// PinMismatch: the sender's pin for this device is not this device's
	// key (this device made a new key, or the sender meant another
	// device), so the sender stopped before revealing its own.
	PinMismatch RefusedReason = "pin_mismatch"
	// TrustOff: this receiver takes no trusted devices (the trust file
	// cannot be used).
	TrustOff RefusedReason = "trust_off"
	// CodesOff: the sender used a code, and this receiver takes trusted
	// devices only; no guess was checked.
	CodesOff RefusedReason = "codes_off"
)

func (r RefusedReason) String() string { return string(r) }

// Unproven (sender waiting for a page, send --to-browser): a connection
// ended before its peer proved the code, and the sender waits for the
// next. Guessed says whether it got the handshake's third message, and
// with it one offline test of the code: such a connection counts as a
// wrong guess whatever it said, and Wrong counts them so far; at
// Allowed, the sender stops (codes_stopped). One that ended sooner (a
// page closed mid-handshake) tested nothing and is not counted. Message
// is the error that ended the connection, as the engine wrote it.
type Unproven struct {
	Addr    string `json:"addr"` // the peer's host:port
	Guessed bool   `json:"guessed"`
	Wrong   int    `json:"wrong"`
	Allowed int    `json:"allowed"`
	Message string `json:"message"` // why the connection ended
	// Err is why the connection ended (Go only).
	Err error `json:"-"`
}

// SameName (receiver): a sender claims the name that another sender in
// progress on this receiver already claims, with another key: two
// devices under one name, one of which may be posing as the other (it
// heard the code, or chose the name). The receiver's engine emits it on
// a receiver of several senders, in the newcomer's session, after that
// session's Connected and before its Offer, once for each such sender
// in progress; the Offer names the same fingerprints (SameNameAs).
type SameName struct {
	PeerName         string `json:"peer_name"`         // the name both claim
	PeerFingerprint  string `json:"peer_fingerprint"`  // this session's sender
	OtherFingerprint string `json:"other_fingerprint"` // the sender in progress under that name
	// OtherSession is the session of the sender in progress (Go only,
	// see SessionOf); Session is this sender's.
	OtherSession int `json:"-"`
	Session      int `json:"-"`
}

// Notice warns of two devices under one name.
func (e SameName) Notice() string {
	return fmt.Sprintf("%q (fingerprint %s) has the name of a sender in progress (fingerprint %s): two devices under one name, one may be posing as the other",
		e.PeerName, e.PeerFingerprint, e.OtherFingerprint)
}

// Device is a device of the trust store, as Trusted, Recent and
// Untrusted carry it.
type Device struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	Key         string `json:"key"`       // base64 of the 32-byte static key
	PairedAt    string `json:"paired_at"` // RFC 3339
}

// Trusted: a device's key is pinned (after a transfer by code, or by
// hand); also each device a trust listing shows.
type Trusted struct{ Device }

// Recent: a device a code last authenticated (PairedAt: when).
type Recent struct{ Device }

// Untrusted: a device's pin was removed.
type Untrusted struct{ Device }

// Stage is one stage of a Diag split.
type Stage struct {
	Stage   string  `json:"stage"`
	Busy    float64 `json:"busy"` // share of the wall time, 0..1 (can exceed 1 across goroutines)
	Seconds float64 `json:"seconds"`
	Bytes   int64   `json:"bytes"`
}

// CPU is an end's process CPU over the wall time of its split.
type CPU struct {
	Busy         float64 `json:"busy"`          // share of wall it ran or waited for a core, 0..1
	CoresUsed    float64 `json:"cores_used"`    // CPU seconds per second
	CoresWaiting float64 `json:"cores_waiting"` // its threads' wait for a core, seconds per second
	Cores        int     `json:"cores"`         // cores it may use
}

// Diag (both ends, with diagnostics on): an end's stage split, every few
// seconds, and for the whole transfer in Done.
type Diag struct {
	End    string  `json:"end"`  // "sender" or "receiver"
	Wall   float64 `json:"wall"` // seconds the split covers
	Stages []Stage `json:"stages"`
	CPU    *CPU    `json:"cpu,omitempty"` // whole transfer, when the end measured it
	Line   string  `json:"line"`          // the same split as the human line
	// Session (receiver) is the session the event belongs to (Go only,
	// see SessionOf); 0 on a sender.
	Session int `json:"-"`
}

// Done (both ends, last on success).
type Done struct {
	Entries      int     `json:"entries"`
	Bytes        int64   `json:"bytes"`
	SkippedBytes int64   `json:"skipped_bytes"`
	ResumedBytes int64   `json:"resumed_bytes"`
	Duration     float64 `json:"duration"`
	Local        *Diag   `json:"local,omitempty"`   // with diagnostics
	Remote       *Diag   `json:"remote,omitempty"`  // sender with diagnostics
	Verdict      string  `json:"verdict,omitempty"` // sender with diagnostics
	Runtime
	// Summary is the whole result (Go only). The engine emits a Done
	// with only Summary and Session set; core/app fills the rest with
	// its policy (NewDone).
	Summary Summary `json:"-"`
	// Session (receiver) is the session that finished (Go only, see
	// SessionOf); 0 on a sender.
	Session int `json:"-"`
}

// Error (both ends, last on failure).
type Error struct {
	Kind     string `json:"kind"`      // a stable error kind: "wrong_code", "declined", "cancelled", ...
	ExitCode int    `json:"exit_code"` // the CLI's exit code for it
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
	Runtime
	// Err is the error itself (Go only), for errors.Is. The engine emits
	// an Error with only Err and Session set; core/app words it.
	Err error `json:"-"`
	// Session (receiver) is the session that failed (Go only, see
	// SessionOf), 0 when the failure is the receiver's own or on a
	// sender.
	Session int `json:"-"`
}

// Runtime are the process's goroutines and open descriptors, on Done and
// Error when the CLI runs with FERRY_DEBUG_RUNTIME=1: a debugging aid for
// tests that look for leaks across many transfers. Absent otherwise.
type Runtime struct {
	Goroutines *int `json:"goroutines,omitempty"`
	OpenFDs    *int `json:"open_fds,omitempty"`
}

// Peer (peers): a device that discovery found.
type Peer struct {
	Name        string   `json:"name"`
	Fingerprint string   `json:"fingerprint"`
	Version     int      `json:"version"`
	Host        string   `json:"host"`
	Port        int      `json:"port"`
	Addresses   []string `json:"addresses"` // host:port to dial
	Trust       string   `json:"trust"`     // "trusted", "key_changed" or ""
}

// History is one record of the transfer history, newest first.
type History struct {
	At              string   `json:"at"` // RFC 3339, UTC
	Direction       string   `json:"direction"`
	PeerName        string   `json:"peer_name"`
	PeerFingerprint string   `json:"peer_fingerprint"`
	Auth            string   `json:"auth"` // "trusted", "code", or "" (failed before the handshake)
	PeerAddr        string   `json:"peer_addr"`
	Files           int      `json:"files"`
	Folders         int      `json:"folders"`
	Texts           int      `json:"texts"`
	Bytes           int64    `json:"bytes"`
	Names           []string `json:"names"`
	MoreNames       int      `json:"more_names"`
	Folder          string   `json:"folder"`
	Paths           []string `json:"paths"`
	Outcome         string   `json:"outcome"`              // verified, failed, declined, cancelled
	ErrorKind       string   `json:"error_kind,omitempty"` // failed: the Error event's kind
	Error           string   `json:"error,omitempty"`
	DurationMS      int64    `json:"duration_ms"`
}

// HistoryCleared: the history was emptied of Count records.
type HistoryCleared struct {
	Count int `json:"count"`
}

func (Listening) Type() string      { return "listening" }
func (Page) Type() string           { return "page" }
func (Connected) Type() string      { return "connected" }
func (Offer) Type() string          { return "offer" }
func (Accepted) Type() string       { return "accepted" }
func (Progress) Type() string       { return "progress" }
func (EntryDone) Type() string      { return "entry" }
func (Text) Type() string           { return "text" }
func (CodeChanged) Type() string    { return "code_changed" }
func (CodesHeld) Type() string      { return "codes_held" }
func (CodesStopped) Type() string   { return "codes_stopped" }
func (CodeLonger) Type() string     { return "code_longer" }
func (Refused) Type() string        { return "refused" }
func (Unproven) Type() string       { return "unproven" }
func (SameName) Type() string       { return "same_name" }
func (Trusted) Type() string        { return "trusted" }
func (Recent) Type() string         { return "recent" }
func (Untrusted) Type() string      { return "untrusted" }
func (Diag) Type() string           { return "diag" }
func (Done) Type() string           { return "done" }
func (Error) Type() string          { return "error" }
func (Peer) Type() string           { return "peer" }
func (History) Type() string        { return "history" }
func (HistoryCleared) Type() string { return "history_cleared" }

// All is one zero value of every event type, in the order cli/README.md
// lists them: for tests and documentation that must cover each.
func All() []Event {
	return []Event{Listening{}, Page{}, Connected{}, Offer{}, Accepted{}, Progress{}, EntryDone{}, Text{},
		CodeChanged{}, CodesHeld{}, CodesStopped{}, CodeLonger{}, Refused{}, Unproven{}, SameName{}, Trusted{}, Recent{}, Untrusted{}, Diag{},
		Done{}, Error{}, History{}, HistoryCleared{}, Peer{}}
}

// SessionOf returns the receiver's session an event belongs to: 1, 2, 3
// ... in the order the sessions passed their handshakes on a receiver,
// or 0 for an event of the receiver as a whole (CodeChanged, CodesHeld,
// CodesStopped, Refused, an Error that ended no session) and for every
// event of a sender. A front end that serves several senders at once
// keeps one row, card or question per session id.
func SessionOf(ev Event) int {
	switch e := ev.(type) {
	case Connected:
		return e.Session
	case Offer:
		return e.Session
	case SameName:
		return e.Session
	case Progress:
		return e.Session
	case EntryDone:
		return e.Session
	case Text:
		return e.Session
	case Diag:
		return e.Session
	case Done:
		return e.Session
	case Error:
		return e.Session
	}
	return 0
}

// InSession returns ev with its session set to id, for the events that
// SessionOf reads; others come back as they are, and so does one that
// already says id (the engine stamps an entry event, one a file, as it
// makes it: copied again, it would be boxed again).
func InSession(ev Event, id int) Event {
	if SessionOf(ev) == id {
		return ev
	}
	switch e := ev.(type) {
	case Connected:
		e.Session = id
		return e
	case Offer:
		e.Session = id
		return e
	case SameName:
		e.Session = id
		return e
	case Progress:
		e.Session = id
		return e
	case EntryDone:
		e.Session = id
		return e
	case Text:
		e.Session = id
		return e
	case Diag:
		e.Session = id
		return e
	case Done:
		e.Session = id
		return e
	case Error:
		e.Session = id
		return e
	}
	return ev
}
