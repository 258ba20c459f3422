package transfer

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

// maxData is the largest body of a data message: a constant of protocol
// version 2, whatever core/secure's buffers are (it was their chunk size,
// four records' plaintext, when version 2 was defined). A peer that sent
// larger chunks would be refused by every peer of this version, so it
// changes only with the version.
const maxData = 4 * 65519

// maxChunk is the size of the data chunks this end sends: the largest the
// protocol allows.
const maxChunk = maxData

// msgType is the first byte of every message.
type msgType uint8

const (
	msgHello     msgType = 1  // R→S, first: version, receiver's name
	msgOffer     msgType = 2  // S→R, first: the manifest
	msgAnswer    msgType = 3  // R→S: accepted, with per-entry answers
	msgBegin     msgType = 4  // S→R: the next file's bytes follow
	msgData      msgType = 5  // S→R: a chunk of the current file
	msgEnd       msgType = 6  // S→R: the current file is complete, with its hash
	msgSkip      msgType = 7  // S→R: an entry the receiver already has
	msgConfirm   msgType = 8  // R→S: an entry is verified and in place
	msgFinish    msgType = 9  // S→R: nothing more to send
	msgDone      msgType = 10 // R→S: everything confirmed; receiver's stage split
	msgAbort     msgType = 11 // both: the transfer ends here, with a code and a reason
	msgKeepalive msgType = 12 // both: still here
	msgHashes    msgType = 13 // S→R: the sender's hashes of the files the receiver has at their size
	msgMatches   msgType = 14 // R→S: which of those hashes matched the receiver's files
)

// phase is a set of reading states: what one end waits for from the
// other. A message is accepted only in the states its row lists;
// keepalive and abort in every state.
type phase uint16

// The sender's reading states, in the order it passes them (sender.take
// moves from one to the next), then the receiver's.
const (
	phHello    phase = 1 << iota // sender: the receiver's hello
	phAnswer                     // sender: the answer (or an abort: declined)
	phMatches                    // sender: the matches of the answer's haves
	phConfirms                   // sender: confirmations, then done
	phOffer                      // receiver: the offer
	phDecide                     // receiver: the person decides; nothing is due
	phHashes                     // receiver: the hashes of the answer's haves
	phEntries                    // receiver: begin, skip or finish
	phEntry                      // receiver: data or end of the current entry
	phClosed                     // either: only the end of the stream is due

	senderPhases   = phHello | phAnswer | phMatches | phConfirms
	receiverPhases = phOffer | phDecide | phHashes | phEntries | phEntry
	everyPhase     = senderPhases | receiverPhases | phClosed
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
	in   phase
}

// messages is the protocol, indexed by type; a zero row is an unknown
// type.
var messages = [...]msgSpec{
	msgHello:     {"hello", 1 + binary.MaxVarintLen64 + maxDeviceName, byReceiver, phHello},
	msgOffer:     {"offer", MaxManifestBytes, bySender, phOffer},
	msgAnswer:    {"answer", maxAnswerBytes, byReceiver, phAnswer},
	msgBegin:     {"begin", 2 * binary.MaxVarintLen64, bySender, phEntries},
	msgData:      {"data", maxData, bySender, phEntry},
	msgEnd:       {"end", binary.MaxVarintLen64 + hashLen, bySender, phEntry},
	msgSkip:      {"skip", binary.MaxVarintLen64, bySender, phEntries},
	msgConfirm:   {"confirm", binary.MaxVarintLen64 + 1 + binary.MaxVarintLen64 + MaxPathBytes, byReceiver, phConfirms},
	msgFinish:    {"finish", 0, bySender, phEntries},
	msgDone:      {"done", 512, byReceiver, phConfirms},
	msgAbort:     {"abort", 1 + binary.MaxVarintLen64 + maxReason, byEither, everyPhase},
	msgKeepalive: {"keepalive", 0, byEither, everyPhase},
	msgHashes:    {"hashes", maxHashesBytes, bySender, phHashes},
	msgMatches:   {"matches", maxMatchesBytes, byReceiver, phMatches},
}

// spec is t's row; false for an unknown type.
func (t msgType) spec() (msgSpec, bool) {
	if int(t) >= len(messages) || messages[t].name == "" {
		return msgSpec{}, false
	}
	return messages[t], true
}

func (t msgType) String() string {
	if s, ok := t.spec(); ok {
		return s.name
	}
	return fmt.Sprintf("message type %d", uint8(t))
}

// maxBody is the largest body a message of type t may have; -1 for an
// unknown type.
func (t msgType) maxBody() int {
	if s, ok := t.spec(); ok {
		return s.max
	}
	return -1
}

// acceptedIn says whether a reading end in state ph takes a message of
// type t.
func (t msgType) acceptedIn(ph phase) bool {
	s, ok := t.spec()
	return ok && s.in&ph != 0
}
