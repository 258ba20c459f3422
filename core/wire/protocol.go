package wire

import (
	"encoding/binary"
	"fmt"
)

// This file declares the protocol's messages once: their types, names,
// size caps, which end sends each and in which states the reading end
// accepts it (messages). Both ends read through link.readMsg (session.go), which
// checks a message against this table; the fuzz and corpus tests walk
// it (TestProtocolTable fails when a row has no decoder in FuzzMessage or
// no seed). Adding a message is a row here, its encoder and decoder (a
// file of its own, as hello.go, offer.go, answer.go, filemsgs.go,
// confirm.go, done.go, abort.go and haves.go are), the code of the state
// that takes it (sender.take in send.go, or the receiver's loops in
// receive.go and receive_entries.go), its seed and decoder in the tests,
// and its line in the package doc's list of messages.

// MaxData is the largest body of a data message: a constant of protocol
// version 2, whatever core/secure's buffers are (it was their chunk size,
// four records' plaintext, when version 2 was defined). A peer that sent
// larger chunks would be refused by every peer of this version, so it
// changes only with the version.
const MaxData = 4 * 65519

// Type is the first byte of every message.
type Type uint8

const (
	MsgHello     Type = 1  // R→S, first: version, receiver's name
	MsgOffer     Type = 2  // S→R, first: the manifest
	MsgAnswer    Type = 3  // R→S: accepted, with per-entry answers
	MsgBegin     Type = 4  // S→R: the next file's bytes follow
	MsgData      Type = 5  // S→R: a chunk of the current file
	MsgEnd       Type = 6  // S→R: the current file is complete, with its hash
	MsgSkip      Type = 7  // S→R: an entry the receiver already has
	MsgConfirm   Type = 8  // R→S: an entry is verified and in place
	MsgFinish    Type = 9  // S→R: nothing more to send
	MsgDone      Type = 10 // R→S: everything confirmed; receiver's stage split
	MsgAbort     Type = 11 // both: the transfer ends here, with a code and a reason
	MsgKeepalive Type = 12 // both: still here
	MsgHashes    Type = 13 // S→R: the sender's hashes of the files the receiver has at their size
	MsgMatches   Type = 14 // R→S: which of those hashes matched the receiver's files
)

// Phase is a set of reading states: what one end waits for from the
// other. A message is accepted only in the states its row lists;
// keepalive and abort in every state.
type Phase uint16

// The sender's reading states, in the order it passes them (sender.take
// moves from one to the next), then the receiver's.
const (
	PhHello    Phase = 1 << iota // sender: the receiver's hello
	PhAnswer                     // sender: the answer (or an abort: declined)
	PhMatches                    // sender: the matches of the answer's haves
	PhConfirms                   // sender: confirmations, then done
	PhOffer                      // receiver: the offer
	PhDecide                     // receiver: the person decides; nothing is due
	PhHashes                     // receiver: the hashes of the answer's haves
	PhEntries                    // receiver: begin, skip or finish
	PhEntry                      // receiver: data or end of the current entry
	PhClosed                     // either: only the end of the stream is due

	senderPhases   = PhHello | PhAnswer | PhMatches | PhConfirms
	receiverPhases = PhOffer | PhDecide | PhHashes | PhEntries | PhEntry
	EveryPhase     = senderPhases | receiverPhases | PhClosed
)

// end says which end sends a message.
type end uint8

const (
	bySender end = 1 << iota
	byReceiver
	byEither = bySender | byReceiver
)

// msgSpec is one row of the protocol: a message type's name, the largest
// body it may have (checked before anything is read or allocated), the
// end that sends it and the states of the other end that accept it.
type msgSpec struct {
	name string
	max  int
	from end
	in   Phase
}

// messages is the protocol, indexed by type; a zero row is an unknown
// type.
var messages = [...]msgSpec{
	MsgHello:     {"hello", 1 + binary.MaxVarintLen64 + maxDeviceName, byReceiver, PhHello},
	MsgOffer:     {"offer", MaxManifestBytes, bySender, PhOffer},
	MsgAnswer:    {"answer", maxAnswerBytes, byReceiver, PhAnswer},
	MsgBegin:     {"begin", 2 * binary.MaxVarintLen64, bySender, PhEntries},
	MsgData:      {"data", MaxData, bySender, PhEntry},
	MsgEnd:       {"end", binary.MaxVarintLen64 + HashLen, bySender, PhEntry},
	MsgSkip:      {"skip", binary.MaxVarintLen64, bySender, PhEntries},
	MsgConfirm:   {"confirm", binary.MaxVarintLen64 + 1 + binary.MaxVarintLen64 + MaxPathBytes, byReceiver, PhConfirms},
	MsgFinish:    {"finish", 0, bySender, PhEntries},
	MsgDone:      {"done", 512, byReceiver, PhConfirms},
	MsgAbort:     {"abort", 1 + binary.MaxVarintLen64 + maxReason, byEither, EveryPhase},
	MsgKeepalive: {"keepalive", 0, byEither, EveryPhase},
	MsgHashes:    {"hashes", MaxHashesBytes, bySender, PhHashes},
	MsgMatches:   {"matches", MaxMatchesBytes, byReceiver, PhMatches},
}

// spec is t's row; false for an unknown type.
func (t Type) spec() (msgSpec, bool) {
	if int(t) >= len(messages) || messages[t].name == "" {
		return msgSpec{}, false
	}
	return messages[t], true
}

func (t Type) String() string {
	if s, ok := t.spec(); ok {
		return s.name
	}
	return fmt.Sprintf("message type %d", uint8(t))
}

// maxBody is the largest body a message of type t may have; -1 for an
// unknown type.
func (t Type) MaxBody() int {
	if s, ok := t.spec(); ok {
		return s.max
	}
	return -1
}

// acceptedIn says whether a reading end in state ph takes a message of
// type t.
func (t Type) AcceptedIn(ph Phase) bool {
	s, ok := t.spec()
	return ok && s.in&ph != 0
}
