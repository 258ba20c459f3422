// Package diag times each stage of a transfer on its own and names the
// slowest one.
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
package diag

import (
	"fmt"
	"sort"
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
}

// String returns the stage's human name ("socket write").
func (s Stage) String() string {
	if s < 0 || s >= numStages {
		return fmt.Sprintf("stage(%d)", int(s))
	}
	return stageNames[s]
}

// SenderStages and ReceiverStages list the stages each end records, in the
// order data passes through them.
var (
	SenderStages   = []Stage{DiskRead, HashSend, Encrypt, SocketWrite}
	ReceiverStages = []Stage{SocketRead, Decrypt, HashRecv, DiskWrite}
)

// Timers accumulates time, bytes and calls per stage. The zero value is
// ready to use; a nil *Timers ignores every sample, so callers need no
// "is diagnostics on" branches.
type Timers struct {
	ns    [numStages]atomic.Int64
	bytes [numStages]atomic.Int64
	calls [numStages]atomic.Int64
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

// Since is Add(s, time.Since(start), n), for the common pattern
// start := time.Now(); work(); t.Since(s, start, n).
func (t *Timers) Since(s Stage, start time.Time, n int) {
	if t == nil {
		return
	}
	t.Add(s, time.Since(start), n)
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

// Format renders the given stages of s over an interval of wall time, as
// "disk read 3% · hash 12% · encrypt 31% · socket write 52%": the share of
// the interval each stage was busy. Shares can add up to more than 100%
// when stages run on different goroutines.
func (s Split) Format(stages []Stage, wall time.Duration) string {
	parts := make([]string, 0, len(stages))
	for _, st := range stages {
		share := 0.0
		if wall > 0 {
			share = 100 * float64(s[st].Time) / float64(wall)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", st, share))
	}
	return strings.Join(parts, " · ")
}

// Verdict names the busiest stage across both ends: the one that spent the
// largest share of its end's wall time working. It compares shares rather
// than raw times so that the two ends, whose clocks ran for slightly
// different intervals, are judged alike.
//
// Socket stages are special. A sender blocked in socket write and a
// receiver blocked in socket read mean the path between them is the limit;
// a sender blocked in socket write while the receiver is busy elsewhere
// means the receiver is the limit and is named as such. The busiest
// non-socket stage is therefore preferred whenever it is busy enough to
// explain the waiting (at least half its end's wall time), and a socket
// stage is named only when nothing else is.
func Verdict(sender Split, senderWall time.Duration, receiver Split, receiverWall time.Duration) string {
	type cand struct {
		end   string
		stage Stage
		share float64
	}
	var all []cand
	add := func(end string, sp Split, wall time.Duration, stages []Stage) {
		for _, st := range stages {
			share := 0.0
			if wall > 0 {
				share = float64(sp[st].Time) / float64(wall)
			}
			all = append(all, cand{end, st, share})
		}
	}
	add("sender", sender, senderWall, SenderStages)
	add("receiver", receiver, receiverWall, ReceiverStages)
	sort.SliceStable(all, func(i, j int) bool { return all[i].share > all[j].share })
	if len(all) == 0 || all[0].share == 0 {
		return "no stage was timed"
	}
	pick := all[0]
	if isSocket(pick.stage) {
		for _, c := range all {
			if !isSocket(c.stage) && c.share >= 0.5 {
				pick = c
				break
			}
		}
	}
	if isSocket(pick.stage) {
		return fmt.Sprintf("slowest stage: the network (%s %s busy %.0f%% of the time; neither end's own work is the limit)",
			pick.end, pick.stage, 100*pick.share)
	}
	return fmt.Sprintf("slowest stage: %s %s (busy %.0f%% of the time)", pick.end, pick.stage, 100*pick.share)
}

func isSocket(s Stage) bool { return s == SocketWrite || s == SocketRead }
