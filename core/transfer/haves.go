package transfer

import "fmt"

// hashesMsg is the sender's BLAKE3-256 of its own copy of every file the
// answer said the receiver has at the same size (actHave), in the
// answer's order. The receiver compares each with its own file and says
// which matched in a matchesMsg: its own hashes never leave it.
type hashesMsg struct {
	Items []hashItem
}

type hashItem struct {
	Index int
	Hash  [hashLen]byte
}

// maxHashesBytes: a count and MaxEntries items of an index (at most 3
// varint bytes) and a hash.
const maxHashesBytes = 4 << 20

func (m hashesMsg) encode() []byte {
	var e enc
	e.uvarint(uint64(len(m.Items)))
	for _, it := range m.Items {
		e.uvarint(uint64(it.Index))
		e.fixed(it.Hash[:])
	}
	return e.bytes()
}

// decodeHashes checks a hashes message against the answer's haves: one
// item for each, with its index, in the same order.
func decodeHashes(b []byte, haves []int) (hashesMsg, error) {
	d := dec{b: b}
	n := d.count(len(haves), 1+hashLen)
	if d.err == nil && n != len(haves) {
		d.fail(fmt.Errorf("%d hashes for %d files", n, len(haves)))
	}
	if d.err != nil {
		return hashesMsg{}, d.done("hashes")
	}
	m := hashesMsg{Items: make([]hashItem, n)}
	for i := 0; i < n && d.err == nil; i++ {
		idx := d.uvarint()
		copy(m.Items[i].Hash[:], d.fixed(hashLen))
		if d.err == nil && idx != uint64(haves[i]) {
			d.fail(fmt.Errorf("hash %d is for entry %d, expected %d", i, idx, haves[i]))
		}
		m.Items[i].Index = haves[i]
	}
	if err := d.done("hashes"); err != nil {
		return hashesMsg{}, err
	}
	return m, nil
}

// matchesMsg is the receiver's verdict on a hashesMsg: the indexes, in
// increasing order, of the files whose hash matched its own. The sender
// skips those and sends the others whole. It is the one bit per file
// that skipping needs.
type matchesMsg struct {
	Indexes []int
}

// maxMatchesBytes: a count and MaxEntries indexes of at most 3 bytes.
const maxMatchesBytes = 512 << 10

func (m matchesMsg) encode() []byte {
	var e enc
	e.uvarint(uint64(len(m.Indexes)))
	for _, i := range m.Indexes {
		e.uvarint(uint64(i))
	}
	return e.bytes()
}

// decodeMatches checks a matches message against the answer's haves:
// every index is one of them, in increasing order.
func decodeMatches(b []byte, haves []int) (matchesMsg, error) {
	d := dec{b: b}
	n := d.count(len(haves), 1)
	if d.err != nil {
		return matchesMsg{}, d.done("matches")
	}
	m := matchesMsg{Indexes: make([]int, 0, n)}
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
		return matchesMsg{}, err
	}
	return m, nil
}
