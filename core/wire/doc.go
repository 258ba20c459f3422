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
// The recipe is at the top of protocol.go.
package wire
