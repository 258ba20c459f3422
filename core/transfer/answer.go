package transfer

import "fmt"

// action is the receiver's answer for one file entry. Entries not listed
// in an answer are taken whole.
type action uint8

const (
	actHave   action = 1 // a file of the same size is in place; Hash is of all of it
	actResume action = 2 // a partial of Offset bytes is kept; Hash is of those bytes
)

type answerItem struct {
	Index  int
	Action action
	Offset int64
	Hash   [hashLen]byte
}

// answerMsg accepts an offer. Items are sorted by strictly increasing
// index and name only file entries.
type answerMsg struct {
	Items []answerItem
}

// minAnswerItemBytes: index, action, offset, hash.
const minAnswerItemBytes = 3 + hashLen

func (m answerMsg) encode() []byte {
	var e enc
	e.uvarint(uint64(len(m.Items)))
	for _, it := range m.Items {
		e.uvarint(uint64(it.Index))
		e.u8(uint8(it.Action))
		e.int64(it.Offset)
		e.fixed(it.Hash[:])
	}
	return e.bytes()
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
		off := d.int64()
		h := d.fixed(hashLen)
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
		switch act {
		case actHave:
			if off != en.Size {
				d.fail(fmt.Errorf("item %d: have %d bytes of a %d-byte file", i, off, en.Size))
			}
		case actResume:
			if off <= 0 || off > en.Size {
				d.fail(fmt.Errorf("item %d: resume at %d of a %d-byte file", i, off, en.Size))
			}
		default:
			d.fail(fmt.Errorf("item %d: unknown action %d", i, act))
		}
		it := answerItem{Index: int(idx), Action: act, Offset: off}
		copy(it.Hash[:], h)
		m.Items = append(m.Items, it)
	}
	if err := d.done("answer"); err != nil {
		return answerMsg{}, err
	}
	return m, nil
}
