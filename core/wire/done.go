package wire

import (
	"fmt"
	"math"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// The messages of this file: each one's type, its row of the protocol
// table (register) and, on its constant, its body as the package doc
// words the others.
const (
	// MsgDone: R→S: everything confirmed; receiver's stage split.
	//
	//	10 done       R→S  wall ns uvarint, count uvarint (≤32),
	//	                   count × {ns, bytes, calls uvarint}: diag.Split,
	//	                   CPU used ns uvarint, CPU waited ns uvarint, cores
	//	                   uvarint (≤65,536; 0: not measured): diag.CPU
	MsgDone Type = 10
)

var (
	doneRow = msgSpec{"done", 512, byReceiver, PhConfirms}
	_       = register(MsgDone, &doneRow)
)

// Done ends a successful transfer: the receiver's stage split, the
// wall time it covers and its process's CPU use over that time, for the
// sender's verdict.
type Done struct {
	Wall  time.Duration
	Split diag.Split
	CPU   diag.CPU
}

// maxCores bounds the core count a peer may report: far above any
// machine, low enough that arithmetic on it cannot overflow.
const maxCores = 1 << 16

func (m Done) Encode() []byte {
	var e enc
	e.int64(int64(m.Wall))
	e.uvarint(uint64(len(m.Split)))
	for _, st := range m.Split {
		e.int64(max(int64(st.Time), 0))
		e.int64(max(st.Bytes, 0))
		e.int64(max(st.Calls, 0))
	}
	e.int64(max(int64(m.CPU.Used), 0))
	e.int64(max(int64(m.CPU.Waited), 0))
	e.uvarint(uint64(min(max(m.CPU.Cores, 0), maxCores)))
	return e.bytes()
}

// DecodeDone accepts any number of stages up to a small bound and keeps
// those this end knows, so a peer with more stages still gets a verdict.
func DecodeDone(b []byte) (Done, error) {
	d := dec{b: b}
	m := Done{Wall: time.Duration(d.int64())}
	n := d.count(32, 3)
	for i := 0; i < n && d.err == nil; i++ {
		t, by, c := d.int64(), d.int64(), d.int64()
		if i < len(m.Split) {
			m.Split[i] = diag.StageTotal{Time: time.Duration(min(t, math.MaxInt64)), Bytes: by, Calls: c}
		}
	}
	// Cores 0 is a receiver that could not measure its CPU.
	m.CPU.Used, m.CPU.Waited = time.Duration(d.int64()), time.Duration(d.int64())
	if c := d.uvarint(); c <= maxCores {
		m.CPU.Cores = int(c)
	} else {
		d.fail(fmt.Errorf("%d cores over the limit of %d", c, maxCores))
	}
	return m, d.done("done")
}
