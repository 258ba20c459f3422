package wire

import "fmt"

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
