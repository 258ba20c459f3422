package transfer

import "fmt"

// action is the receiver's answer for one file entry. Entries not listed
// in an answer are taken whole.
type action uint8

const (
	// actHave: a regular file of the offered size is at the entry's final
	// name. Nothing else about it is said: whether it is the same file is
	// decided by the receiver, from the hash the sender then sends in a
	// hashesMsg.
	actHave action = 1
	// actResume: a partial file of Offset bytes, written from this sender,
	// is kept; Hash is of those bytes.
	actResume action = 2
)

type answerItem struct {
	Index  int
	Action action
	Offset int64         // resume: the kept bytes; have: the entry's size (not on the wire)
	Hash   [hashLen]byte // resume only
}

// answerMsg accepts an offer. Items are sorted by strictly increasing
// index and name only file entries.
type answerMsg struct {
	Items []answerItem
}

// minAnswerItemBytes: index and action (a have); a resume adds its
// offset and hash.
const minAnswerItemBytes = 2

func (m answerMsg) encode() []byte {
	var e enc
	e.uvarint(uint64(len(m.Items)))
	for _, it := range m.Items {
		e.uvarint(uint64(it.Index))
		e.u8(uint8(it.Action))
		if it.Action == actResume {
			e.int64(it.Offset)
			e.fixed(it.Hash[:])
		}
	}
	return e.bytes()
}

// haves lists the indexes of the answer's have items, in order.
func (m answerMsg) haves() []int {
	var out []int
	for _, it := range m.Items {
		if it.Action == actHave {
			out = append(out, it.Index)
		}
	}
	return out
}

// decodeAnswer checks an answer against the offer it answers.
func decodeAnswer(b []byte, entries []Entry) (answerMsg, error) {
	d := dec{b: b}
	n := d.count(len(entries), minAnswerItemBytes)
	if d.err != nil {
		return answerMsg{}, d.done("answer")
	}
	m := answerMsg{Items: make([]answerItem, 0, n)}
	last := -1
	for i := 0; i < n && d.err == nil; i++ {
		idx := d.uvarint()
		act := action(d.u8())
		if d.err != nil {
			break
		}
		if idx >= uint64(len(entries)) || int(idx) <= last {
			d.fail(fmt.Errorf("item %d: index %d out of order or range", i, idx))
			break
		}
		last = int(idx)
		en := entries[idx]
		if en.Kind != KindFile {
			d.fail(fmt.Errorf("item %d: entry %d is a %v", i, idx, en.Kind))
			break
		}
		it := answerItem{Index: int(idx), Action: act}
		switch act {
		case actHave:
			it.Offset = en.Size
		case actResume:
			it.Offset = d.int64()
			copy(it.Hash[:], d.fixed(hashLen))
			if d.err == nil && (it.Offset <= 0 || it.Offset > en.Size) {
				d.fail(fmt.Errorf("item %d: resume at %d of a %d-byte file", i, it.Offset, en.Size))
			}
		default:
			d.fail(fmt.Errorf("item %d: unknown action %d", i, act))
		}
		m.Items = append(m.Items, it)
	}
	if err := d.done("answer"); err != nil {
		return answerMsg{}, err
	}
	return m, nil
}
