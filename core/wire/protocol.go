// Package wire owns the bytes that cross a Ferry connection once
// core/secure's handshake is done: the transfer protocol's messages,
// their encoders and decoders, and the protocol table (protocol.go),
// which declares for each message type its name, the largest body it
// may have, the end that sends it and the reading states of the other
// end that take it. It decides nothing: what to send, and what to do
// with what arrives, is the sessions' (core/transfer), which read every
// message through this table. It carries the shared data model
// (core/app/event's Entry, Kind and Outcome) where a message holds it,
// and imports nothing of the sessions.
//
// # Promises
//
//   - A header is checked against the table before its body is read: an
//     unknown type or a body over its type's limit is ErrProtocol, and
//     nothing is allocated for it.
//   - Every decoder of peer input returns an error wrapping ErrProtocol
//     for anything malformed (a short body, trailing bytes, a count that
//     the rest of the body cannot hold, a string that is not UTF-8, a
//     value out of range, a message that does not match the one it
//     answers), and never panics: each has a fuzz target, with its seed
//     corpus committed under testdata/fuzz.
//   - Decoding allocates no more than the body's size allows: a count is
//     checked against what is left of the body before anything is made
//     for it.
//   - The encoders are the one source of the bytes: the seeds are their
//     output (TestSeedCorpus), so an encoding that changes shows as
//     seeds that change, and must come with a new protocol version.
//
// # Wire protocol (version 2)
//
// The version is core/secure's ProtocolVersion: a peer of another
// version is refused in the preamble, before any of this, as
// secure.ErrIncompatibleVersion on both ends; a hello or offer of another
// version inside the handshake is refused with that error too. In
// version 1, an answer's have carried the receiver's hash of its file,
// and there were no hashes and matches messages.
//
// A connection refused before this stream begins (a wrong or retired
// code, codes held back, not paired, codes off, or busy) gets one of
// core/secure's rejections instead: a zero length and a reason byte, in
// cleartext, and for busy one more byte, the number of transfers the
// receiver runs (1 to 255; see core/secure's doc, "busy"). A sender of
// before that byte reads the reason and stops there.
//
// After core/secure's handshake, each direction of the encrypted stream
// is a sequence of messages:
//
//	type    uint8
//	length  uint32, big-endian: the body's size
//	body    length bytes
//
// Each type has a maximum body size, checked before anything is read or
// allocated (exceeding it is ErrProtocol), and is accepted only in the
// states listed for it; the code declares both in one table
// (protocol.go), which both ends read through (core/transfer's
// link.readMsg). Integers in bodies are varints (encoding/binary:
// uvarint unsigned, varint zigzag-signed); a string is a uvarint length
// then that many bytes of UTF-8; a hash is 32 raw bytes of BLAKE3-256. A body with trailing bytes is malformed. Messages:
//
//	1  hello      R→S  version u8 (=2), device name string (≤128)
//	2  offer      S→R  version u8 (=2), device name string (≤128),
//	                   count uvarint (≤100,000), total uvarint,
//	                   count × entry{kind u8 (1 file, 2 folder, 3 text),
//	                   path string (≤4096), size uvarint, mode uvarint
//	                   (permission bits only, ≤0o777), mtime seconds
//	                   varint, mtime nanoseconds uvarint (<1e9); 0,0 means
//	                   unknown}; ≤4 MiB
//	3  answer     R→S  count uvarint, count × {index uvarint, action u8,
//	                   then for action 2 only: offset uvarint, hash};
//	                   ≤5 MiB
//	4  begin      S→R  index uvarint, offset uvarint
//	5  data       S→R  1..262,076 bytes of the current entry (a
//	                   constant of this version, not a buffer size)
//	6  end        S→R  index uvarint, hash
//	7  skip       S→R  index uvarint
//	8  confirm    R→S  index uvarint, outcome u8 (event.Outcome), saved-as
//	                   string
//	9  finish     S→R  empty
//	10 done       R→S  wall ns uvarint, count uvarint (≤32),
//	                   count × {ns, bytes, calls uvarint}: diag.Split,
//	                   CPU used ns uvarint, CPU waited ns uvarint, cores
//	                   uvarint (≤65,536; 0: not measured): diag.CPU
//	11 abort      both code u8, reason string (≤512)
//	12 keepalive  both empty
//	13 hashes     S→R  count uvarint, count × {index uvarint, hash};
//	                   ≤4 MiB
//	14 matches    R→S  count uvarint, count × index uvarint; ≤512 KiB
//
// Abort codes: 1 internal, 2 cancelled, 3 declined, 4 refused path,
// 5 no space, 6 protocol, 7 verify (hash mismatch), 8 source changed,
// 9 timeout (AbortCode). Which error travels as which code is
// core/transfer's.
//
// # A new message
//
// The recipe is the comment below this doc, above the table.
package wire

import (
	"encoding/binary"
	"fmt"
)

// This file declares the protocol once: the package doc above lists
// the messages in words, and the table below (messages) gives each its
// type, name, size cap, the end that sends it and the reading states of
// the other end that accept it. Both ends read through core/transfer's
// link.readMsg (session.go), which checks a message against this table
// (Type.AcceptedIn); TestProtocolTable fails when a row has no decoder,
// no seed or no line in the package doc's list.
//
// A new message costs these files, with its test:
//
//  1. core/wire/protocol.go (this file): its Type constant, its row in
//     messages (a new reading state, if it needs one, beside the others),
//     and its line in the package doc's list.
//  2. core/wire/<name>.go, a file of its own (as hello.go, offer.go,
//     answer.go, confirm.go, done.go, abort.go are; filemsgs.go and
//     haves.go hold messages of one step): its struct, Encode and
//     Decode<Name>, which wraps ErrProtocol.
//  3. core/wire/corpus_test.go: its seed in seedCorpus's FuzzMessage
//     (Frame(Msg<Name>, <Name>{...}.Encode())) and its decoder in
//     messageDecoders; FERRY_WRITE_CORPUS=1 go test -run TestSeedCorpus
//     ./core/wire then writes the seed's file under
//     testdata/fuzz/FuzzMessage, generated, not written by hand.
//  4. core/transfer's session code: the end that sends it
//     (s.writeMsg in send.go for the sender; s.send in receive.go or
//     receive_entries.go for the receiver) and the end that takes it (a
//     case in send.go's sender.take, or in the receiver's loops in
//     receive.go and receive_entries.go, in the step it belongs to). A
//     message either end may send at any time, as abort and keepalive
//     are, is taken in session.go's link.readMsg instead.
//
// So a message from one end to the other touches five hand-written
// files (protocol.go, its own, corpus_test.go, send.go and one of
// receive.go or receive_entries.go) and one generated seed. Only the
// session code, which decides what the message means, is outside
// core/wire.

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
	MsgHashes:    {"hashes", maxHashesBytes, bySender, PhHashes},
	MsgMatches:   {"matches", maxMatchesBytes, byReceiver, PhMatches},
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
func (t Type) maxBody() int {
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
