package transfer

import "fmt"

// beginMsg starts an entry's bytes: Offset is where they start (0, or a
// resume offset the sender verified). Data chunks of Size-Offset bytes in
// total follow, then an endMsg.
type beginMsg struct {
	Index  int
	Offset int64
}

func (m beginMsg) encode() []byte {
	var e enc
	e.uvarint(uint64(m.Index))
	e.int64(m.Offset)
	return e.bytes()
}

func decodeBegin(b []byte) (beginMsg, error) {
	d := dec{b: b}
	idx := d.uvarint()
	m := beginMsg{Offset: d.int64()}
	if d.err == nil && idx > MaxEntries {
		d.fail(fmt.Errorf("index %d out of range", idx))
	}
	m.Index = int(idx)
	return m, d.done("begin")
}

// endMsg closes an entry: Hash is the BLAKE3-256 of the whole content.
type endMsg struct {
	Index int
	Hash  [hashLen]byte
}

func (m endMsg) encode() []byte {
	var e enc
	e.uvarint(uint64(m.Index))
	e.fixed(m.Hash[:])
	return e.bytes()
}

func decodeEnd(b []byte) (endMsg, error) {
	d := dec{b: b}
	idx := d.uvarint()
	var m endMsg
	copy(m.Hash[:], d.fixed(hashLen))
	if d.err == nil && idx > MaxEntries {
		d.fail(fmt.Errorf("index %d out of range", idx))
	}
	m.Index = int(idx)
	return m, d.done("end")
}

// skipMsg says the sender checked the receiver's "have" hash and it
// matched: no bytes follow for this entry.
type skipMsg struct{ Index int }

func (m skipMsg) encode() []byte {
	var e enc
	e.uvarint(uint64(m.Index))
	return e.bytes()
}

func decodeSkip(b []byte) (skipMsg, error) {
	d := dec{b: b}
	idx := d.uvarint()
	if d.err == nil && idx > MaxEntries {
		d.fail(fmt.Errorf("index %d out of range", idx))
	}
	return skipMsg{Index: int(idx)}, d.done("skip")
}
