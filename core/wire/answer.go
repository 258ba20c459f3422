package wire

import (
	"fmt"

	"github.com/ferry-project/ferry/core/app/event"
)

// The messages of this file: each one's type, its row of the protocol
// table (register) and, on its constant, its body as the package doc
// words the others.
const (
	// MsgAnswer: R→S: accepted, with per-entry answers.
	//
	//	3  answer     R→S  count uvarint, count × {index uvarint, action u8,
	//	                   then for action 2 only: offset uvarint, hash};
	//	                   ≤5 MiB
	MsgAnswer Type = 3
)

var (
	answerRow = msgSpec{"answer", maxAnswerBytes, byReceiver, PhAnswer}
	_         = register(MsgAnswer, &answerRow)
)

// Action is the receiver's answer for one file entry. Entries not listed
// in an answer are taken whole.
type Action uint8

const (
	// ActHave: a regular file of the offered size is at the entry's final
	// name. Nothing else about it is said: whether it is the same file is
	// decided by the receiver, from the hash the sender then sends in a
	// Hashes.
	ActHave Action = 1
	// ActResume: a partial file of Offset bytes, written from this sender,
	// is kept; Hash is of those bytes.
	ActResume Action = 2
)

type AnswerItem struct {
	Index  int
	Action Action
	Offset int64         // resume: the kept bytes; have: the entry's size (not on the wire)
	Hash   [HashLen]byte // resume only
}

// Answer accepts an offer. Items are sorted by strictly increasing
// index and name only file entries.
type Answer struct {
	Items []AnswerItem
}

// minAnswerItemBytes: index and Action (a have); a resume adds its
// offset and hash.
const minAnswerItemBytes = 2

func (m Answer) Encode() []byte {
	var e enc
	e.uvarint(uint64(len(m.Items)))
	for _, it := range m.Items {
		e.uvarint(uint64(it.Index))
		e.u8(uint8(it.Action))
		if it.Action == ActResume {
			e.int64(it.Offset)
			e.fixed(it.Hash[:])
		}
	}
	return e.bytes()
}

// haves lists the indexes of the answer's have items, in order.
func (m Answer) Haves() []int {
	var out []int
	for _, it := range m.Items {
		if it.Action == ActHave {
			out = append(out, it.Index)
		}
	}
	return out
}

// DecodeAnswer checks an answer against the offer it answers.
func DecodeAnswer(b []byte, entries []event.Entry) (Answer, error) {
	d := dec{b: b}
	n := d.count(len(entries), minAnswerItemBytes)
	if d.err != nil {
		return Answer{}, d.done("answer")
	}
	m := Answer{Items: make([]AnswerItem, 0, n)}
	last := -1
	for i := 0; i < n && d.err == nil; i++ {
		idx := d.uvarint()
		act := Action(d.u8())
		if d.err != nil {
			break
		}
		if idx >= uint64(len(entries)) || int(idx) <= last {
			d.fail(fmt.Errorf("item %d: index %d out of order or range", i, idx))
			break
		}
		last = int(idx)
		en := entries[idx]
		if en.Kind != event.KindFile {
			d.fail(fmt.Errorf("item %d: entry %d is a %v", i, idx, en.Kind))
			break
		}
		it := AnswerItem{Index: int(idx), Action: act}
		switch act {
		case ActHave:
			it.Offset = en.Size
		case ActResume:
			it.Offset = d.int64()
			copy(it.Hash[:], d.fixed(HashLen))
			if d.err == nil && (it.Offset <= 0 || it.Offset > en.Size) {
				d.fail(fmt.Errorf("item %d: resume at %d of a %d-byte file", i, it.Offset, en.Size))
			}
		default:
			d.fail(fmt.Errorf("item %d: unknown Action %d", i, act))
		}
		m.Items = append(m.Items, it)
	}
	if err := d.done("answer"); err != nil {
		return Answer{}, err
	}
	return m, nil
}
