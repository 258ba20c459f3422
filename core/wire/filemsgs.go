package wire

import (
	"encoding/binary"
	"fmt"
)

// The messages of this file: each one's type, its row of the protocol
// table (register) and, on its constant, its body as the package doc
// words the others.
const (
	// MsgBegin: S→R: the next file's bytes follow.
	//
	//	4  begin      S→R  index uvarint, offset uvarint
	MsgBegin Type = 4
	// MsgData: S→R: a chunk of the current file.
	//
	//	5  data       S→R  1..262,076 bytes of the current entry (a
	//	                   constant of this version, not a buffer size)
	MsgData Type = 5
	// MsgEnd: S→R: the current file is complete, with its hash.
	//
	//	6  end        S→R  index uvarint, hash
	MsgEnd Type = 6
	// MsgSkip: S→R: an entry the receiver already has.
	//
	//	7  skip       S→R  index uvarint
	MsgSkip Type = 7
	// MsgFinish: S→R: nothing more to send.
	//
	//	9  finish     S→R  empty
	MsgFinish Type = 9
)

var (
	beginRow  = msgSpec{"begin", 2 * binary.MaxVarintLen64, bySender, PhEntries}
	_         = register(MsgBegin, &beginRow)
	dataRow   = msgSpec{"data", MaxData, bySender, PhEntry}
	_         = register(MsgData, &dataRow)
	endRow    = msgSpec{"end", binary.MaxVarintLen64 + HashLen, bySender, PhEntry}
	_         = register(MsgEnd, &endRow)
	skipRow   = msgSpec{"skip", binary.MaxVarintLen64, bySender, PhEntries}
	_         = register(MsgSkip, &skipRow)
	finishRow = msgSpec{"finish", 0, bySender, PhEntries}
	_         = register(MsgFinish, &finishRow)
)

// Begin starts an entry's bytes: Offset is where they start (0, or a
// resume offset the sender verified). Data chunks of Size-Offset bytes in
// total follow, then an End.
type Begin struct {
	Index  int
	Offset int64
}

func (m Begin) Encode() []byte {
	var e enc
	e.uvarint(uint64(m.Index))
	e.int64(m.Offset)
	return e.bytes()
}

func DecodeBegin(b []byte) (Begin, error) {
	d := dec{b: b}
	idx := d.uvarint()
	m := Begin{Offset: d.int64()}
	if d.err == nil && idx > MaxEntries {
		d.fail(fmt.Errorf("index %d out of range", idx))
	}
	m.Index = int(idx)
	return m, d.done("begin")
}

// End closes an entry: Hash is the BLAKE3-256 of the whole content.
type End struct {
	Index int
	Hash  [HashLen]byte
}

func (m End) Encode() []byte {
	var e enc
	e.uvarint(uint64(m.Index))
	e.fixed(m.Hash[:])
	return e.bytes()
}

func DecodeEnd(b []byte) (End, error) {
	d := dec{b: b}
	idx := d.uvarint()
	var m End
	copy(m.Hash[:], d.fixed(HashLen))
	if d.err == nil && idx > MaxEntries {
		d.fail(fmt.Errorf("index %d out of range", idx))
	}
	m.Index = int(idx)
	return m, d.done("end")
}

// Skip says the sender checked the receiver's "have" hash and it
// matched: no bytes follow for this entry.
type Skip struct{ Index int }

func (m Skip) Encode() []byte {
	var e enc
	e.uvarint(uint64(m.Index))
	return e.bytes()
}

func DecodeSkip(b []byte) (Skip, error) {
	d := dec{b: b}
	idx := d.uvarint()
	if d.err == nil && idx > MaxEntries {
		d.fail(fmt.Errorf("index %d out of range", idx))
	}
	return Skip{Index: int(idx)}, d.done("skip")
}
