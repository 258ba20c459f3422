package diag

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// End is one end's account of a transfer: its stage split, the wall time
// the split covers, and its process's CPU over the same time (CPU.Known
// false when the end did not measure it).
type End struct {
	Split Split
	Wall  time.Duration
	CPU   CPU
}

// The verdict's thresholds, as shares of an end's wall time.
const (
	// dominant: one stage busy this much of its end's time is the limit.
	dominant = 0.5
	// loaded: an end whose stages together are busy this much is.
	loaded = 0.7
	// waiting: both ends waiting on the socket this much, with work to
	// spare, is the network.
	waiting = 0.25
	// cpuBusy: an end whose process ran or waited for a core this much
	// of its time outside the socket had no idle time to speak of: its
	// CPU is its limit.
	cpuBusy = 0.85
	// socketBound: an end waiting on the socket this much is held by the
	// other end or the path, whatever its CPU did the rest of the time.
	socketBound = 0.5
	// allCores: processes using this share of every core they may use
	// leave nothing for more work.
	allCores = 0.85
	// crowded: a process whose threads used or waited for this many
	// times the cores it may use filled them on its own, however little
	// of them a busy machine let it have.
	crowded = 2
	// hog: on one machine, where whatever else runs holds both ends
	// alike, an end whose process used this many times the CPU of the
	// other, itself not CPU-bound, for the same bytes is the one the
	// cores went to: the other waited for it. Seen here: a receiver
	// writing to a busy disk at 2.6 and 5 times its sender, and an end
	// with busy-loop goroutines at 6 to 9 times the other.
	hog = 4
	// pipelineCores: an end's stages run one at a time, so with the
	// runtime's own work its process uses about one core; this many
	// means something else in it is using the CPU.
	pipelineCores = 1.5
)

// Verdict names what limited the transfer, on either end, in one line
// that starts "slowest stage: ".
//
// Each end runs its stages one after another, so an end's shares add up
// to about 100% of its wall time, and time in a socket stage is mostly
// time spent waiting for the other side. Shares, not raw times, are
// compared, so two ends whose clocks ran for slightly different intervals
// are judged alike. A stage's name says what the pipeline was doing, not
// what held it up: on a busy processor a disk write is a memory copy that
// waits for a core. So the CPU is judged first, from each end's own
// figures. The rules, in order:
//
//  1. The CPU, when the ends measured it. An end is CPU-bound when,
//     waiting on the socket less than half of its time, it ran or waited
//     for a core at least 85% of the rest (it was never idle: no disk,
//     no sleep held it), or when it saturated its cores: used 85% of
//     every core it may use, or had threads using or waiting for twice
//     as many, or used four times the CPU of the other end, itself not
//     CPU-bound, on the same machine (whatever else runs there holds
//     both alike, and the two move the same bytes). An end that
//     saturated its cores alone is named, even when on one machine it
//     starved the other. Otherwise, on one machine
//     (sameMachine), when both ends are CPU-bound or together use or
//     wait for 85% of its cores, the verdict says that they share its
//     cores and that this is the limit; on two machines it names both
//     CPUs when both ends are CPU-bound, unless both wait on the socket
//     a quarter of their time, which rule 4 reads as the network. One
//     CPU-bound end is named, and
//     on one machine the verdict adds that both ends share its cores and
//     the other end waits for this one. It lists the busiest two or three stages of
//     each end named, with their shares, and which to make cheaper
//     first: the busiest of the end named or, when both are, of the one
//     that waits less on the socket (the other is waiting for it).
//  2. A non-socket stage busy at least half of its end's time is the
//     limit: nothing else can explain that much.
//  3. An end whose own stages together are busy most of the time (70%)
//     is the limit, and its busiest stage is named; when both are, the
//     busier one.
//  4. Both ends spending a good part (a quarter) of their time waiting on
//     the socket with work to spare means the path between them (the
//     network, or TCP over it) is the limit.
//  5. Work outside the timed stages, done per entry rather than per byte
//     (opening, creating, renaming files), when on some end it takes
//     more of the time than any timed stage and the socket: many small
//     files look like this. Its share is given, with the end's CPU
//     figures. An end with at least half of its time outside the
//     stages is never named by rule 1: its CPU went to no stage.
//  6. Otherwise no one thing limited the transfer: the verdict lists the
//     busiest stages of both ends with their shares.
func Verdict(sender, receiver End, sameMachine bool) string {
	snd := newAccount("sender", sender, sender.Split.With(SenderStages()))
	rcv := newAccount("receiver", receiver, receiver.Split.With(ReceiverStages()))
	if snd.busy == 0 && rcv.busy == 0 && snd.wait == 0 && rcv.wait == 0 {
		return "no stage was timed"
	}
	if v := cpuVerdict(snd, rcv, sameMachine); v != "" {
		return v
	}
	name := func(e account, why string) string {
		return fmt.Sprintf("slowest stage: %s %s (busy %.0f%% of the time%s)", e.name, e.busiest, 100*e.top, why)
	}
	top := rcv
	if snd.top >= rcv.top {
		top = snd
	}
	if top.top >= dominant {
		return name(top, "")
	}
	limit := rcv
	if snd.busy > rcv.busy {
		limit = snd
	}
	if limit.busy >= loaded {
		return name(limit, fmt.Sprintf("; the %s's stages are busy %.0f%% in all", limit.name, 100*limit.busy))
	}
	if snd.wait >= waiting && rcv.wait >= waiting {
		return fmt.Sprintf("slowest stage: the network (both ends have work to spare: the sender waits in socket write %.0f%% and the receiver in socket read %.0f%% of the time)",
			100*snd.wait, 100*rcv.wait)
	}
	out := rcv
	if snd.outside > rcv.outside {
		out = snd
	}
	if out.perEntry {
		cpu := ""
		if out.end.CPU.Known() {
			cpu = " (" + out.cpuFigures() + ")"
		}
		return fmt.Sprintf("slowest stage: per-entry work outside the timed stages (opening, creating, renaming files): %.0f%% of the %s's time, more than any timed stage%s",
			100*out.outside, out.name, cpu)
	}
	both := append(snd.ranked(true), rcv.ranked(true)...)
	sort.SliceStable(both, func(i, j int) bool { return both[i].share > both[j].share })
	return "slowest stage: none alone; the busiest are " + formatRanked(both[:min(3, len(both))], true)
}

// account is one end's reading of its End.
type account struct {
	name    string
	end     End
	stages  []Stage
	busiest Stage   // its busiest non-socket stage
	top     float64 // that stage's share
	busy    float64 // its non-socket shares, summed
	wait    float64 // its socket share
	outside float64 // what no timer covers: 1 - busy - wait, at least 0
	load    float64 // cores its process used on average
	demand  float64 // and used or waited for
	// saturated: it used nearly every core it may use, or its threads
	// crowded them, or (hogs, the other end's name) it used several times
	// the CPU of the other end on the same machine. cpu: CPU-bound,
	// saturated or never idle outside the socket.
	saturated, cpu bool
	// perEntry: the time outside the timed stages is larger than any
	// timed share; untimed: it is at least half of the end's time.
	perEntry, untimed bool
	hogs              string
	hogRatio          float64
}

func newAccount(name string, e End, stages []Stage) account {
	a := account{name: name, end: e, stages: stages}
	for _, st := range stages {
		sh := e.Split.Share(st, e.Wall)
		switch {
		case isSocket(st):
			a.wait = sh
		case sh > a.top:
			a.busiest, a.top = st, sh
			fallthrough
		default:
			a.busy += sh
		}
	}
	a.outside = max(0, 1-a.busy-a.wait)
	c, w := e.CPU, e.Wall
	if c.Known() && w > 0 {
		a.load, a.demand = c.Load(w), c.Demand(w)
		a.saturated = a.load >= allCores*float64(c.Cores) || a.demand >= crowded*float64(c.Cores)
		// The time it was not waiting on the socket, it was running or
		// waiting for a core: the CPU, not a disk or a sleep, held it.
		a.cpu = a.saturated || a.wait < socketBound && c.Busy(w) >= cpuBusy*(1-a.wait)
	}
	a.perEntry = a.outside > a.largestTimed()
	if a.untimed = a.outside >= dominant; a.untimed {
		// Most of its time went to work no stage times (rule 5 names it,
		// with the CPU figures); no stage of it is to blame. Less than
		// that outside the stages is what a process starved of the CPU
		// shows between its timed calls, and the CPU rule judges it.
		a.cpu, a.saturated = false, false
	}
	return a
}

// largestTimed is the largest share of any one stage, socket included.
func (a account) largestTimed() float64 {
	return max(a.top, a.wait)
}

// ranked is one stage's share, for lists.
type ranked struct {
	end   string
	stage Stage
	share float64
}

// ranked lists a's stages from the busiest down, leaving out those under
// 1% and, unless socket, the socket.
func (a account) ranked(socket bool) []ranked {
	var r []ranked
	for _, st := range a.stages {
		if sh := a.end.Split.Share(st, a.end.Wall); sh >= 0.01 && (socket || !isSocket(st)) {
			r = append(r, ranked{a.name, st, sh})
		}
	}
	sort.SliceStable(r, func(i, j int) bool { return r[i].share > r[j].share })
	return r
}

// formatRanked renders "disk write 24% · hash 21%", with each stage's end
// before it when withEnd.
func formatRanked(r []ranked, withEnd bool) string {
	parts := make([]string, 0, len(r))
	for _, x := range r {
		if withEnd {
			parts = append(parts, fmt.Sprintf("%s %s %.0f%%", x.end, x.stage, 100*x.share))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", x.stage, 100*x.share))
		}
	}
	return strings.Join(parts, " · ")
}

// cpuVerdict is rule 1, or "" when no end is CPU-bound.
func cpuVerdict(snd, rcv account, sameMachine bool) string {
	cores := max(snd.end.CPU.Cores, rcv.end.CPU.Cores)
	load := snd.load + rcv.load
	if sameMachine && snd.end.CPU.Known() && rcv.end.CPU.Known() {
		// On one machine the loads compare directly: whatever else ran
		// there held both alike.
		hogs := func(a, b *account) {
			if !a.saturated && !a.untimed && !b.cpu && a.load > 0 && a.load >= hog*b.load {
				a.saturated, a.hogs, a.hogRatio = true, b.name, a.load/max(b.load, 0.001)
			}
		}
		hogs(&snd, &rcv)
		hogs(&rcv, &snd)
	}
	// The two processes together use or wait for the machine's cores,
	// neither alone.
	together := sameMachine && snd.end.CPU.Known() && rcv.end.CPU.Known() && !snd.untimed && !rcv.untimed &&
		!snd.saturated && !rcv.saturated && snd.demand+rcv.demand >= allCores*float64(cores)
	// first is the stage to make cheaper first: the busiest compute stage
	// of the end named or, when both are, of the one that waits less on
	// the socket: the other end is waiting for it.
	first := func(e account) string {
		r := e.ranked(false)
		if len(r) == 0 {
			return ""
		}
		return fmt.Sprintf("; make the %s's %s cheaper first", e.name, r[0].stage)
	}
	tighter := snd
	if rcv.wait < snd.wait {
		tighter = rcv
	}
	stagesOf := func(e account) string {
		r := e.ranked(false)
		if len(r) == 0 {
			return "no timed stage"
		}
		return formatRanked(r[:min(3, len(r))], false)
	}
	// oneEnd names e's CPU; on one machine it says the two share it, and
	// that the other end waits for this one.
	oneEnd := func(e, other account) string {
		where := ""
		if sameMachine {
			where = fmt.Sprintf(": both ends share this machine's %d %s, and the %s waits for the %s",
				cores, plural(cores, "core", "cores"), other.name, e.name)
		}
		return fmt.Sprintf("slowest stage: the %s's CPU%s (%s): %s%s%s", e.name, where, e.cpuFigures(), stagesOf(e), e.otherWork(), first(e))
	}
	switch {
	case snd.saturated != rcv.saturated:
		// One end alone used every core it may use; on one machine it
		// also starved the other, which is then CPU-bound too but not
		// the cause.
		if rcv.saturated {
			return oneEnd(rcv, snd)
		}
		return oneEnd(snd, rcv)
	case sameMachine && (together || snd.cpu && rcv.cpu):
		return fmt.Sprintf("slowest stage: the CPU: both ends share this machine's %d %s; that is the limit (%s). sender: %s; receiver: %s%s",
			cores, plural(cores, "core", "cores"), sharing(load, snd.demand+rcv.demand, cores),
			stagesOf(snd), stagesOf(rcv), first(tighter))
	case !sameMachine && snd.wait >= waiting && rcv.wait >= waiting:
		// Between two machines, both ends waiting a quarter of their
		// time on the socket is the path's mark (rule 4), whatever their
		// CPUs did the rest of the time: an end that limits the transfer
		// is one the other waits for, not one that waits itself.
		return ""
	case snd.cpu && rcv.cpu:
		return fmt.Sprintf("slowest stage: the CPU of both ends (%s; %s). sender: %s; receiver: %s%s",
			snd.cpuFigures(), rcv.cpuFigures(), stagesOf(snd), stagesOf(rcv), first(tighter))
	case rcv.cpu:
		return oneEnd(rcv, snd)
	case snd.cpu:
		return oneEnd(snd, rcv)
	}
	return ""
}

// sharing is how two processes on one machine of cores used it: "they
// used 1.8 of them", and what they waited for beyond that, with whom the
// machine was shared when they got less than half of it.
func sharing(load, demand float64, cores int) string {
	s := fmt.Sprintf("together they used %.1f", load)
	if wait := demand - load; wait >= 0.05 {
		s += fmt.Sprintf(" and waited for %.1f more", wait)
	}
	if load < float64(cores)/2 {
		s += ": other work on this machine held the rest"
	}
	return s
}

// otherWork says so when a's process used, or its threads waited for,
// more cores than its stages, which run one at a time, can account for.
func (a account) otherWork() string {
	if a.hogs != "" {
		times := fmt.Sprintf("%.0f times", a.hogRatio)
		if a.hogRatio > 100 {
			times = "over 100 times"
		}
		return fmt.Sprintf(" (its process used %s as much CPU as the %s's for the same bytes)", times, a.hogs)
	}
	if a.load < pipelineCores && a.demand < crowded*float64(a.end.CPU.Cores) {
		return ""
	}
	return fmt.Sprintf(" (its threads used or waited for %.1f cores, more than its stages, which run one at a time, can: other work in its process takes the CPU)", a.demand)
}

// cpuFigures is "receiver busy 97% of the time: 0.8 of 2 cores in use,
// 1.0 more waiting for a core".
func (a account) cpuFigures() string {
	return a.name + " " + a.end.CPU.Format(a.end.Wall)
}

func isSocket(s Stage) bool { return s == SocketWrite || s == SocketRead }
