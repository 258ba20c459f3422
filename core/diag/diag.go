// Package diag times each stage of a transfer on its own, measures each
// end's CPU, and names what limited the transfer.
//
// A stage is one kind of work: reading the disk, hashing, encrypting,
// writing the socket on the sender; reading the socket, decrypting,
// hashing, writing the disk on the receiver. The rule that matters, learnt
// the hard way by other tools (see seeds/002): no timer ever wraps a call
// that does two of these things. A timer around a write that both encrypts
// and sends reports neither, and sends an investigation to the wrong
// machine. Callers time the narrowest call that does one thing and add it
// here.
//
// Timers are safe for concurrent use and cost two atomic adds per sample,
// so they stay on in release builds: --diag only decides whether they are
// printed.
//
// A stage's name says what the pipeline was doing, not what held it up:
// on a busy processor a disk write is a memory copy waiting for a core.
// So each end also measures its process's CPU over the transfer (CPU:
// CPU time against wall time and the cores it may use, and on Linux its
// threads' wait for a core), sampled by Timers.Restart and Timers.CPU,
// twice a transfer, never per record. Verdict (verdict.go) weighs both
// ends' splits and CPU figures and names what limited the transfer: a
// stage, an end's CPU, the cores two ends on one machine share, the
// network, or the work no stage times.
package diag

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// Stage is one kind of work on one end of a transfer.
type Stage int

const (
	DiskRead Stage = iota
	HashSend
	Encrypt
	SocketWrite
	SocketRead
	Decrypt
	HashRecv
	DiskWrite
	// Crossing is the browser page's own (gui/page/wasm): moving bytes
	// between JavaScript and Go's WebAssembly, which a native end never
	// does. It is timed inside the call of another stage (a socket write
	// copies the record out to JavaScript, then sends it) and taken out
	// of that stage (Timers.Within), so the shares still add up.
	Crossing
	numStages
)

var stageNames = [numStages]string{
	DiskRead:    "disk read",
	HashSend:    "hash",
	Encrypt:     "encrypt",
	SocketWrite: "socket write",
	SocketRead:  "socket read",
	Decrypt:     "decrypt",
	HashRecv:    "hash",
	DiskWrite:   "disk write",
	Crossing:    "JS crossing",
}

// String returns the stage's human name ("socket write").
func (s Stage) String() string {
	if s < 0 || s >= numStages {
		return fmt.Sprintf("stage(%d)", int(s))
	}
	return stageNames[s]
}

// SenderStages and ReceiverStages list the stages each end records, in the
// order data passes through them. Each call returns a new slice, so no
// caller can change another's.
func SenderStages() []Stage { return []Stage{DiskRead, HashSend, Encrypt, SocketWrite} }

// ReceiverStages: see SenderStages.
func ReceiverStages() []Stage { return []Stage{SocketRead, Decrypt, HashRecv, DiskWrite} }

// With returns stages, and Crossing after them when s recorded any: an
// end that is a browser page (the only one that crosses) shows it, and
// a native end's lines stay as they were.
func (s Split) With(stages []Stage) []Stage {
	if s[Crossing].Calls == 0 {
		return stages
	}
	return append(stages[:len(stages):len(stages)], Crossing)
}

// TimedConn is a connection that moves bytes across a boundary inside
// its own calls (the browser page's WebSocket, between JavaScript and
// Go). core/secure gives it its transfer's Timers, so that it can time
// that part as the Crossing stage.
type TimedConn interface {
	UseTimers(*Timers)
}

// Timers accumulates time, bytes and calls per stage. The zero value is
// ready to use; a nil *Timers ignores every sample, so callers need no
// "is diagnostics on" branches.
type Timers struct {
	ns    [numStages]atomic.Int64
	bytes [numStages]atomic.Int64
	calls [numStages]atomic.Int64
	from  atomic.Pointer[time.Time] // set by Restart
	cpu   atomic.Pointer[cpuSample] // the process's CPU at Restart
}

// Restart zeroes the totals and makes them cover only the time from now
// on. A call already in progress counts only its part after now: a socket
// read that blocked while a person decided whether to accept must not
// show up as a stage busier than the transfer that followed.
func (t *Timers) Restart() {
	if t == nil {
		return
	}
	now := time.Now()
	t.from.Store(&now)
	c := sampleCPU()
	t.cpu.Store(&c)
	for i := range t.ns {
		t.ns[i].Store(0)
		t.bytes[i].Store(0)
		t.calls[i].Store(0)
	}
}

// Add records that one call of stage s took d and moved n bytes.
func (t *Timers) Add(s Stage, d time.Duration, n int) {
	if t == nil {
		return
	}
	t.ns[s].Add(int64(d))
	t.bytes[s].Add(int64(n))
	t.calls[s].Add(1)
}

// Within records that a part of a call timed as stage outer did the work
// of stage s: d and n count for s, and d is taken out of outer, whose
// own sample (which covers the whole call) comes when the call returns.
func (t *Timers) Within(outer, s Stage, d time.Duration, n int) {
	if t == nil {
		return
	}
	t.Add(s, d, n)
	t.ns[outer].Add(-int64(d))
}

// Since is Add(s, time.Since(start), n), for the common pattern
// start := time.Now(); work(); t.Since(s, start, n). A call that began
// before the last Restart counts from the Restart.
func (t *Timers) Since(s Stage, start time.Time, n int) {
	if t == nil {
		return
	}
	if from := t.from.Load(); from != nil && start.Before(*from) {
		start = *from
	}
	t.Add(s, time.Since(start), n)
}

// CPU returns the process's CPU use since the last Restart, or no
// measurement (CPU.Known false) before the first. It covers the whole
// process, other transfers included, which is what competes with this
// one for the cores.
func (t *Timers) CPU() CPU {
	if t == nil {
		return CPU{}
	}
	from := t.cpu.Load()
	if from == nil {
		return CPU{}
	}
	return sampleCPU().Since(*from)
}

// Snapshot returns the totals so far.
func (t *Timers) Snapshot() Split {
	var sp Split
	if t == nil {
		return sp
	}
	for i := range sp {
		sp[i] = StageTotal{
			Time:  time.Duration(t.ns[i].Load()),
			Bytes: t.bytes[i].Load(),
			Calls: t.calls[i].Load(),
		}
	}
	return sp
}

// StageTotal is what one stage has accumulated.
type StageTotal struct {
	Time  time.Duration `json:"ns"`
	Bytes int64         `json:"bytes"`
	Calls int64         `json:"calls"`
}

// Split is the per-stage totals of one end, indexed by Stage.
type Split [numStages]StageTotal

// Sub returns s minus an earlier snapshot: the split over an interval.
func (s Split) Sub(earlier Split) Split {
	var d Split
	for i := range s {
		d[i] = StageTotal{
			Time:  s[i].Time - earlier[i].Time,
			Bytes: s[i].Bytes - earlier[i].Bytes,
			Calls: s[i].Calls - earlier[i].Calls,
		}
	}
	return d
}

// Share is the fraction of wall that stage st was busy (0 when wall is).
func (s Split) Share(st Stage, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return float64(s[st].Time) / float64(wall)
}

// Format renders the given stages of s over an interval of wall time, as
// "disk read 3% · hash 12% · encrypt 31% · socket write 52%": the share of
// the interval each stage was busy. Shares can add up to more than 100%
// when stages run on different goroutines.
func (s Split) Format(stages []Stage, wall time.Duration) string {
	parts := make([]string, 0, len(stages))
	for _, st := range stages {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", st, 100*s.Share(st, wall)))
	}
	return strings.Join(parts, " · ")
}
