package wire

import "fmt"

// The messages of this file: each one's type, its row of the protocol
// table (register) and, on its constant, its body as the package doc
// words the others.
const (
	// MsgHashes: S→R: the sender's hashes of the files the receiver has at their size.
	//
	//	13 hashes     S→R  count uvarint, count × {index uvarint, hash};
	//	                   ≤4 MiB
	MsgHashes Type = 13
	// MsgMatches: R→S: which of those hashes matched the receiver's files.
	//
	//	14 matches    R→S  count uvarint, count × index uvarint; ≤512 KiB
	MsgMatches Type = 14
)

var (
	hashesRow  = msgSpec{"hashes", maxHashesBytes, bySender, PhHashes}
	_          = register(MsgHashes, &hashesRow)
	matchesRow = msgSpec{"matches", maxMatchesBytes, byReceiver, PhMatches}
	_          = register(MsgMatches, &matchesRow)
)

// Hashes is the sender's BLAKE3-256 of its own copy of every file the
// answer said the receiver has at the same size (ActHave), in the
// answer's order. The receiver compares each with its own file and says
// which matched in a Matches: its own hashes never leave it.
type Hashes struct {
	Items []HashItem
}

type HashItem struct {
	Index int
	Hash  [HashLen]byte
}

// maxHashesBytes: a count and MaxEntries items of an index (at most 3
// varint bytes) and a hash.
const maxHashesBytes = 4 << 20

func (m Hashes) Encode() []byte {
	var e enc
	e.uvarint(uint64(len(m.Items)))
	for _, it := range m.Items {
		e.uvarint(uint64(it.Index))
		e.fixed(it.Hash[:])
	}
	return e.bytes()
}

// DecodeHashes checks a hashes message against the answer's haves: one
// item for each, with its index, in the same order.
func DecodeHashes(b []byte, haves []int) (Hashes, error) {
	d := dec{b: b}
	n := d.count(len(haves), 1+HashLen)
	if d.err == nil && n != len(haves) {
		d.fail(fmt.Errorf("%d hashes for %d files", n, len(haves)))
	}
	if d.err != nil {
		return Hashes{}, d.done("hashes")
	}
	m := Hashes{Items: make([]HashItem, n)}
	for i := 0; i < n && d.err == nil; i++ {
		idx := d.uvarint()
		copy(m.Items[i].Hash[:], d.fixed(HashLen))
		if d.err == nil && idx != uint64(haves[i]) {
			d.fail(fmt.Errorf("hash %d is for entry %d, expected %d", i, idx, haves[i]))
		}
		m.Items[i].Index = haves[i]
	}
	if err := d.done("hashes"); err != nil {
		return Hashes{}, err
	}
	return m, nil
}

// Matches is the receiver's verdict on a Hashes: the indexes, in
// increasing order, of the files whose hash matched its own. The sender
// skips those and sends the others whole. It is the one bit per file
// that skipping needs.
type Matches struct {
	Indexes []int
}

// maxMatchesBytes: a count and MaxEntries indexes of at most 3 bytes.
const maxMatchesBytes = 512 << 10

func (m Matches) Encode() []byte {
	var e enc
	e.uvarint(uint64(len(m.Indexes)))
	for _, i := range m.Indexes {
		e.uvarint(uint64(i))
	}
	return e.bytes()
}

// DecodeMatches checks a matches message against the answer's haves:
// every index is one of them, in increasing order.
func DecodeMatches(b []byte, haves []int) (Matches, error) {
	d := dec{b: b}
	n := d.count(len(haves), 1)
	if d.err != nil {
		return Matches{}, d.done("matches")
	}
	m := Matches{Indexes: make([]int, 0, n)}
	k := 0 // haves[:k] can no longer match
	for i := 0; i < n && d.err == nil; i++ {
		idx := d.uvarint()
		if d.err != nil {
			break
		}
		for k < len(haves) && uint64(haves[k]) < idx {
			k++
		}
		if k == len(haves) || uint64(haves[k]) != idx {
			d.fail(fmt.Errorf("match %d: entry %d is out of order or was not a have", i, idx))
			break
		}
		k++
		m.Indexes = append(m.Indexes, int(idx))
	}
	if err := d.done("matches"); err != nil {
		return Matches{}, err
	}
	return m, nil
}
