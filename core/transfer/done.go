package transfer

import (
	"math"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// doneMsg ends a successful transfer: the receiver's stage split and the
// wall time it covers, for the sender's verdict.
type doneMsg struct {
	Wall  time.Duration
	Split diag.Split
}

func (m doneMsg) encode() []byte {
	var e enc
	e.int64(int64(m.Wall))
	e.uvarint(uint64(len(m.Split)))
	for _, st := range m.Split {
		e.int64(max(int64(st.Time), 0))
		e.int64(max(st.Bytes, 0))
		e.int64(max(st.Calls, 0))
	}
	return e.bytes()
}

// decodeDone accepts any number of stages up to a small bound and keeps
// those this end knows, so a peer with more stages still gets a verdict.
func decodeDone(b []byte) (doneMsg, error) {
	d := dec{b: b}
	m := doneMsg{Wall: time.Duration(d.int64())}
	n := d.count(32, 3)
	for i := 0; i < n && d.err == nil; i++ {
		t, by, c := d.int64(), d.int64(), d.int64()
		if i < len(m.Split) {
			m.Split[i] = diag.StageTotal{Time: time.Duration(min(t, math.MaxInt64)), Bytes: by, Calls: c}
		}
	}
	return m, d.done("done")
}
