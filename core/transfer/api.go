package transfer

import (
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/wire"
)

// The data model and the events are the schema's (core/app/event): the
// engine emits event.Event values themselves, so no layer converts them.
// The names below are the same types under the engine's old names, kept
// so that the code placing files reads as it did; a caller outside the
// engine names them through core/app/event.
type (
	Item      = event.Item
	Kind      = event.Kind
	Entry     = event.Entry
	Offer     = event.Offer
	Outcome   = event.Outcome
	EntryDone = event.EntryDone
	Summary   = event.Summary
)

const (
	KindFile = event.KindFile
	KindDir  = event.KindDir
	KindText = event.KindText

	Received = event.Received
	Skipped  = event.Skipped
	Resumed  = event.Resumed
	Created  = event.Created
)

// The engine's events, by their schema types. Events are delivered by
// calling the configured func from the transfer's goroutine, in order; a
// handler must not block for long (the GUI hands them to fyne.Do, the
// CLI prints). What each end emits:
//
//   - event.Connected: the handshake succeeded; the peer is who it says
//     it is. WrongCodes (receiver, code mode) is how many wrong codes
//     this receiver checked since its last transfer made with a code (or
//     since it started) before this sender's code proved right: not
//     zero, the sender may be a guesser who got lucky, and a front end
//     never pins its key without saying so in the question.
//   - event.Offer (receiver): an offer arrived and waits for Accept or
//     Decline (AcceptSession, DeclineSession with several open at once),
//     unless the policy answers it.
//   - event.Accepted (sender), By event.ByPeer: the receiver accepted;
//     TotalBytes is the number of bytes that will actually cross (skips
//     and resumes already taken off).
//   - event.Progress, at most a few times a second while bytes move.
//   - event.EntryDone: one entry is verified and in place (or skipped).
//   - event.Text (receiver): a text snippet arrived; it is not saved
//     unless the receiver was configured to save texts.
//   - event.CodeChanged (receiver): the code a sender must type changed
//     (CodeRetired after too many wrong codes, CodeUsed after a
//     transfer made with a code the receiver picked, CodeRenewed by
//     Receiver.NewCode).
//   - event.CodesHeld (receiver): after too many wrong codes the
//     receiver checks none before Until; a sender that tries sooner,
//     with any code, is told secure.ErrCodesHeld and may try again
//     later. Wrong counts the wrong codes checked since a person last
//     acted (started the receiver by hand or asked for a new code).
//     Emitted after each wrong code that is past the free ones, so at
//     most as often as the guess budget allows.
//   - event.CodesStopped (receiver): the guess budget is spent. No code
//     is checked until a person asks for a new one (Receiver.NewCode) or
//     starts the receiver by hand (BudgetConfig.ByPerson); every sender
//     with a code is told secure.ErrCodesHeld. Paired senders are still
//     served. Emitted by the wrong code that spends the budget, and, for
//     a budget that a Receiver was given spent (kept from before a
//     restart, or a damaged record), once as that Receiver first serves.
//     A front end says what happened and how to go on (ErrCodesStopped
//     is the error to end with).
//   - event.Refused (receiver): a sender asked for a transfer without a
//     code and the paired-mode handshake refused it, or asked with a code
//     a receiver that takes paired senders only (CodesOff); Serve goes on
//     waiting. The sender was told too (secure.ErrNotPaired,
//     secure.ErrKeyChanged or secure.ErrNoCodes). Nothing else is a
//     refusal: wrong codes are counted (see CodeChanged), and a
//     connection that fails for any other reason (a port scan, another
//     version, a stall) is closed unreported. A refusal costs a sender a
//     few bytes, so a flood is reported in part: at most 4 at once, then
//     one a second; Dropped counts those left out since the last one
//     reported. The engine sets Reason, Addr, Dropped, Err and, for
//     NotTrusted, PeerFingerprint and PeerKey; it leaves the words to
//     core/app.
//   - event.Unproven (sender on SendConfig.Listener): a connection ended
//     before its peer proved the code, and Send waits for the next (see
//     SendConfig.Listener for what counts as a guess). At Allowed, Send
//     stops with ErrCodesStopped.
//   - event.Diag, every few seconds when diagnostics are on: this end's
//     stage split over the last interval.
//   - event.Done: the transfer is complete and every entry was
//     confirmed; the engine sets Summary and Session only.
//   - event.Error: the transfer ended without completing; Err wraps one
//     of the package's sentinel errors where one applies, and Session is
//     0 when the failure is the receiver's own (Serve's listener, a
//     handshake that ServeConn ran). The engine sets Err and Session
//     only.
//
// A receiver's events of one session carry its id (event.SessionOf): 1,
// 2, 3 ... in the order the sessions passed their handshakes on this
// Receiver (every Serve, ServeMany and ServeConn counted); the receiver's
// own events and every event of a sender carry 0.
type Event = event.Event

// SessionOf returns the receiver's session an event belongs to (see
// Event).
func SessionOf(ev Event) int { return event.SessionOf(ev) }

// Limits every peer must respect: the wire's (core/wire), and the longest
// name and path that core/place writes, which the wire holds paths to.
// A message that breaks one is ErrProtocol.
const (
	MaxEntries       = wire.MaxEntries
	MaxManifestBytes = wire.MaxManifestBytes
	MaxTextBytes     = wire.MaxTextBytes
	MaxNameBytes     = place.MaxNameBytes
	MaxPathBytes     = place.MaxPathBytes
)
