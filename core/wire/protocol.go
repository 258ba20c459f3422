// Package wire owns the bytes that cross a Ferry connection once
// core/secure's handshake is done: the transfer protocol's messages,
// their encoders and decoders, and the protocol table (protocol.go),
// which holds for each message type its name, the largest body it may
// have, the end that sends it and the reading states of the other end
// that take it; each message's file fills its own row. It decides
// nothing: what to send, and what to do with what arrives, is the
// sessions' (core/send and core/receive), which read every message
// through this table (core/transfer's Link.ReadMsg). It carries the shared data model
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
// Link.ReadMsg). Integers in bodies are varints (encoding/binary:
// uvarint unsigned, varint zigzag-signed); a string is a uvarint length
// then that many bytes of UTF-8; a hash is 32 raw bytes of BLAKE3-256. A
// body with trailing bytes is malformed. The messages, each declared in
// a file of its own with its row of the table and, on its type constant,
// its line of this list (go doc -all ./core/wire shows them in order):
//
//	1  hello      R→S  hello.go
//	2  offer      S→R  offer.go
//	3  answer     R→S  answer.go
//	4  begin      S→R  filemsgs.go
//	5  data       S→R  filemsgs.go
//	6  end        S→R  filemsgs.go
//	7  skip       S→R  filemsgs.go
//	8  confirm    R→S  confirm.go
//	9  finish     S→R  filemsgs.go
//	10 done       R→S  done.go
//	11 abort      both abort.go
//	12 keepalive  both abort.go
//	13 hashes     S→R  haves.go
//	14 matches    R→S  haves.go
//
// That index is a convenience, kept by hand and checked by nothing: the
// table and the lines that TestProtocolTable checks are in the files.
//
// Abort codes: 1 internal, 2 cancelled, 3 declined, 4 refused path,
// 5 no space, 6 protocol, 7 verify (hash mismatch), 8 source changed,
// 9 timeout (AbortCode). Which error travels as which code is
// core/transfer's (errors.go: AbortCodes).
//
// # A new message
//
// The recipe is the comment below this doc, above the table.
package wire

import "fmt"

// This file declares what the protocol's table is (messages), and each
// message's file fills its row: its type, name, size cap, the end that
// sends it and the reading states of the other end that accept it. Both
// ends read through core/transfer's Link.ReadMsg (core/transfer's
// session.go), which checks a message against this table
// (Type.AcceptedIn); TestProtocolTable fails when a row has no decoder,
// no seed or no line on its type constant.
//
// A new message costs four files, with its test:
//
//  1. core/wire/<name>.go, a file of its own (as hello.go, offer.go,
//     answer.go, confirm.go and done.go are; filemsgs.go, haves.go and
//     abort.go hold messages of one step): its Type constant, with its
//     line of the package doc's list as its comment; its row, by
//     register; its struct, Encode and Decode<Name>, which wraps
//     ErrProtocol. A new reading state, if it needs one, goes beside
//     the others in this file, which makes a fifth.
//  2. core/wire/corpus_test.go: its seed in seedCorpus's FuzzMessage
//     (Frame(Msg<Name>, <Name>{...}.Encode())) and its decoder in
//     messageDecoders, which TestProtocolTable demands of every row;
//     FERRY_WRITE_CORPUS=1 go test -run TestSeedCorpus ./core/wire
//     then writes the seed's file under testdata/fuzz/FuzzMessage,
//     generated, not written by hand.
//  3. core/send/send.go, the sender's session: it sends the message
//     (s.writeMsg) or takes it (a case in sender.take, in the step it
//     belongs to).
//  4. core/receive/receive.go or receive_entries.go, the receiver's
//     session: the other end of it (s.send, which receive_stream.go
//     defines; a case in the loop of its step).
//
// A message either end may send at any time, as abort and keepalive
// are, is taken in core/transfer's Link.ReadMsg (session.go) instead of
// the two sessions. A message that a peer of today's version would not
// know needs a new protocol version too (core/secure's ProtocolVersion,
// and the count of messages TestProtocolTable expects of it). Only the
// session code, which decides what the message means, is outside
// core/wire. TestRegisterNewMessage shows that a row, its seed and its
// decoder are all the table, the corpus and FuzzMessage need.

// MaxData is the largest body of a data message: a constant of protocol
// version 2, whatever core/secure's buffers are (it was their chunk size,
// four records' plaintext, when version 2 was defined). A peer that sent
// larger chunks would be refused by every peer of this version, so it
// changes only with the version.
const MaxData = 4 * 65519

// Type is the first byte of every message. Each message declares its
// own, in its file, with its row of the table (register).
type Type uint8

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

// messages is the protocol, indexed by type; a nil row is an unknown
// type. Each message's file fills its row (register) as the package is
// initialized, before any message is read, so that a new message is
// one new file here and protocol.go takes no edit.
var messages [256]*msgSpec

// register puts s in the table as t's row. Two messages of one type are
// a broken invariant of this package, not peer input: it panics.
//
// A row is handed over by its address, and the table holds addresses:
// each file's rows are then data that the linker lays out, and a
// registration is a call with two constants, not code that builds the
// row. That is also why register is kept out of line: the fourteen
// registrations cost the page's ferry.wasm about 1.8 KB against the
// one literal table they replaced, where rows passed by value cost
// 2.2 KB out of line and 7 KB inlined.
//
//go:noinline
func register(t Type, s *msgSpec) struct{} {
	if messages[t] != nil {
		panic("wire: a message type registered twice")
	}
	messages[t] = s
	return struct{}{}
}

// spec is t's row; false for an unknown type.
func (t Type) spec() (msgSpec, bool) {
	if messages[t] == nil {
		return msgSpec{}, false
	}
	return *messages[t], true
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
