package diag

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func split(times map[Stage]time.Duration) Split {
	var s Split
	for st, d := range times {
		s[st].Time = d
		s[st].Calls = 1
	}
	return s
}

func TestVerdictNamesTheBusiestStage(t *testing.T) {
	sec := time.Second
	cases := []struct {
		name     string
		sender   map[Stage]time.Duration
		receiver map[Stage]time.Duration
		want     string
	}{
		{"slow disk writer on the receiver",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec, SocketWrite: 8 * sec},
			map[Stage]time.Duration{SocketRead: sec / 2, Decrypt: sec, DiskWrite: 8 * sec},
			"receiver disk write"},
		{"slow cipher on the sender",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: 9 * sec, SocketWrite: sec / 2},
			map[Stage]time.Duration{SocketRead: 9 * sec, Decrypt: sec / 2},
			"sender encrypt"},
		{"slow hash on the receiver",
			map[Stage]time.Duration{Encrypt: sec, SocketWrite: 7 * sec},
			map[Stage]time.Duration{SocketRead: sec, HashRecv: 7 * sec},
			"receiver hash"},
		{"the link is the limit: both ends wait on the socket",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec, SocketWrite: 8 * sec},
			map[Stage]time.Duration{SocketRead: 8 * sec, Decrypt: sec, DiskWrite: sec / 5},
			"the network"},
		{"receiver loaded in all, no single stage over half",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec, SocketWrite: 8 * sec},
			map[Stage]time.Duration{SocketRead: sec, Decrypt: 3 * sec, HashRecv: 2 * sec, DiskWrite: 4 * sec},
			"receiver disk write"},
		{"both ends with work to spare, neither socket wait over half",
			map[Stage]time.Duration{DiskRead: 2 * sec, HashSend: 2 * sec, Encrypt: sec, SocketWrite: 5 * sec},
			map[Stage]time.Duration{SocketRead: 4 * sec, Decrypt: sec, HashRecv: 2 * sec, DiskWrite: sec},
			"the network"},
		{"sender loaded in all",
			map[Stage]time.Duration{DiskRead: 2 * sec, HashSend: 3 * sec, Encrypt: 3 * sec, SocketWrite: 2 * sec},
			map[Stage]time.Duration{SocketRead: 8 * sec, Decrypt: sec, HashRecv: sec / 2, DiskWrite: sec / 2},
			"sender hash (busy 30% of the time; the sender's stages are busy 80% in all)"},
		{"many small files: per-file work no stage times, and neither end waits on the link",
			map[Stage]time.Duration{DiskRead: sec / 5, SocketWrite: sec / 100},
			map[Stage]time.Duration{SocketRead: sec, DiskWrite: sec / 3},
			"per-entry work outside the timed stages"},
		{"one end waits on the socket, the other does not",
			map[Stage]time.Duration{DiskRead: sec, HashSend: sec, SocketWrite: 5 * sec},
			map[Stage]time.Duration{SocketRead: sec, Decrypt: sec, DiskWrite: sec},
			"per-entry work outside the timed stages"},
		{"one stage busy over half wins before the network rule, though both ends wait a quarter on the socket",
			map[Stage]time.Duration{Encrypt: 55 * sec / 10, SocketWrite: 3 * sec},
			map[Stage]time.Duration{SocketRead: 3 * sec, Decrypt: sec},
			"sender encrypt"},
		{"a browser page sending, its time in moving bytes between JavaScript and Go",
			map[Stage]time.Duration{DiskRead: sec, Encrypt: sec, SocketWrite: sec, Crossing: 6 * sec},
			map[Stage]time.Duration{SocketRead: 9 * sec},
			"sender JS crossing"},
		{"a browser page receiving, crossing the busiest of its stages that are busy in all",
			map[Stage]time.Duration{Encrypt: sec, SocketWrite: 8 * sec},
			map[Stage]time.Duration{SocketRead: sec, Decrypt: 2 * sec, HashRecv: sec, DiskWrite: 2 * sec, Crossing: 3 * sec},
			"receiver JS crossing"},
		{"slow disk reader on the sender",
			map[Stage]time.Duration{DiskRead: 8 * sec, Encrypt: sec},
			map[Stage]time.Duration{SocketRead: 9 * sec},
			"sender disk read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Verdict(End{Split: split(tc.sender), Wall: 10 * sec}, End{Split: split(tc.receiver), Wall: 10 * sec}, false)
			if !strings.Contains(got, tc.want) {
				t.Fatalf("verdict %q does not name %q", got, tc.want)
			}
		})
	}
	if got := Verdict(End{Wall: sec}, End{Wall: sec}, false); !strings.Contains(got, "no stage") {
		t.Fatalf("empty splits: %q", got)
	}
}

func TestTimersConcurrentAndNil(t *testing.T) {
	var tm Timers
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				tm.Add(Encrypt, time.Microsecond, 10)
			}
		}()
	}
	wg.Wait()
	s := tm.Snapshot()
	if s[Encrypt].Calls != 8000 || s[Encrypt].Bytes != 80000 || s[Encrypt].Time != 8000*time.Microsecond {
		t.Fatalf("got %+v", s[Encrypt])
	}
	d := s.Sub(Split{})
	if d[Encrypt] != s[Encrypt] {
		t.Fatal("Sub of zero changed the split")
	}
	var none *Timers
	none.Add(Encrypt, time.Second, 1) // must not panic
	none.Since(Encrypt, time.Now(), 1)
	if none.Snapshot()[Encrypt].Calls != 0 {
		t.Fatal("nil timers recorded something")
	}
	if f := s.Format(SenderStages(), 16*time.Millisecond); !strings.Contains(f, "encrypt 50%") {
		t.Fatalf("format: %q", f)
	}
}

func TestRestartClipsCallsInProgress(t *testing.T) {
	var tm Timers
	tm.Add(Decrypt, time.Second, 1)
	began := time.Now().Add(-time.Hour) // a read blocked for an hour
	tm.Restart()
	if s := tm.Snapshot(); s[Decrypt].Calls != 0 {
		t.Fatalf("restart kept %+v", s[Decrypt])
	}
	tm.Since(SocketRead, began, 10)
	if got := tm.Snapshot()[SocketRead].Time; got > time.Minute {
		t.Fatalf("a call that began before the restart counted %v", got)
	}
}

// cpu is an end's CPU over a 10 s transfer: used and waited in seconds.
func cpu(used, waited float64, cores int) CPU {
	return CPU{Used: time.Duration(used * float64(time.Second)), Waited: time.Duration(waited * float64(time.Second)), Cores: cores}
}

// The CPU rule on made-up ends of 10 s. Each case says what the verdict
// must name and what it must not, so that a rule that named the other
// end, the network or one stage alone fails.
func TestVerdictNamesTheCPU(t *testing.T) {
	sec := time.Second
	// The make demo: every stage on both ends busy, neither
	// stage over half, neither end waiting on the socket much of its time.
	demoSnd := map[Stage]time.Duration{DiskRead: 8 * sec / 10, HashSend: 24 * sec / 10, Encrypt: 18 * sec / 10, SocketWrite: 45 * sec / 10}
	demoRcv := map[Stage]time.Duration{SocketRead: 23 * sec / 10, Decrypt: 2 * sec, HashRecv: 21 * sec / 10, DiskWrite: 24 * sec / 10}
	// A link's split: both ends wait on the socket most of the time.
	linkSnd := map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec, SocketWrite: 8 * sec}
	linkRcv := map[Stage]time.Duration{SocketRead: 6 * sec, Decrypt: sec, DiskWrite: 2 * sec}
	cases := []struct {
		name          string
		sender        map[Stage]time.Duration
		sndCPU        CPU
		receiver      map[Stage]time.Duration
		rcvCPU        CPU
		same          bool
		want, notWant []string
	}{
		{"both ends busy on one machine of 2 cores: they share it",
			demoSnd, cpu(9, 0.5, 2), demoRcv, cpu(9.5, 0.5, 2), true,
			[]string{"slowest stage: the CPU: both ends share this machine's 2 cores; that is the limit",
				"sender: hash 24% · encrypt 18% · disk read 8%", "receiver: disk write 24% · hash 21% · decrypt 20%",
				"make the receiver's disk write cheaper first"},
			[]string{"outside", "network"}},
		{"loopback on a loaded machine: little CPU each, much waiting, together all of it",
			map[Stage]time.Duration{DiskRead: sec / 2, HashSend: sec, Encrypt: sec / 2, SocketWrite: 7 * sec},
			cpu(2, 5, 2),
			map[Stage]time.Duration{SocketRead: 15 * sec / 10, Decrypt: sec / 2, HashRecv: sec, DiskWrite: 6 * sec},
			cpu(4, 13, 2), true,
			[]string{"slowest stage: the CPU: both ends share this machine's 2 cores", "other work on this machine held the rest"},
			[]string{"network", "receiver's CPU"}},
		{"the same ends on two machines: each names its own CPU",
			demoSnd, cpu(9, 0.5, 2), demoRcv, cpu(9.5, 0.5, 2), false,
			[]string{"slowest stage: the CPU of both ends", "make the receiver's disk write cheaper first"},
			[]string{"share this machine"}},
		{"a balanced receiver that is CPU-bound, the sender waiting on it",
			map[Stage]time.Duration{DiskRead: sec / 2, HashSend: sec, Encrypt: sec, SocketWrite: 7 * sec},
			cpu(2.5, 0, 8),
			map[Stage]time.Duration{SocketRead: sec / 2, Decrypt: 3 * sec, HashRecv: 3 * sec, DiskWrite: 35 * sec / 10},
			cpu(9.6, 0, 8), false,
			[]string{"slowest stage: the receiver's CPU", "disk write 35% · decrypt 30% · hash 30%", "make the receiver's disk write cheaper first"},
			[]string{"sender's CPU", "network", "both"}},
		{"a receiver whose process takes both its cores, on the sender's machine",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec / 2, SocketWrite: 9 * sec},
			cpu(1, 1, 2),
			map[Stage]time.Duration{SocketRead: sec, Decrypt: 4 * sec, HashRecv: 2 * sec, DiskWrite: 3 * sec},
			cpu(19, 1, 2), true,
			[]string{"slowest stage: the receiver's CPU", "other work in its process takes the CPU", "decrypt 40% · disk write 30% · hash 20%"},
			[]string{"that is the limit", "sender's CPU", "network"}},
		{"a sender starved by its own process on a busy machine: threads wait for 5 cores",
			map[Stage]time.Duration{DiskRead: sec / 10, HashSend: sec / 2, Encrypt: sec, SocketWrite: 8 * sec},
			cpu(3, 47, 2),
			map[Stage]time.Duration{SocketRead: 8 * sec, Decrypt: sec / 2, DiskWrite: sec},
			cpu(1, 3, 2), true,
			[]string{"slowest stage: the sender's CPU", "other work in its process"},
			[]string{"receiver's CPU", "that is the limit", "network"}},
		{"on a loaded machine, a sender whose process used 5 times the receiver's CPU took the cores",
			map[Stage]time.Duration{DiskRead: sec / 10, HashSend: sec / 2, Encrypt: sec / 2, SocketWrite: 74 * sec / 10},
			cpu(2, 8, 2),
			map[Stage]time.Duration{SocketRead: 2 * sec, Decrypt: sec / 2, HashRecv: sec / 2, DiskWrite: 6 * sec},
			cpu(0.4, 1, 2), true,
			[]string{"slowest stage: the sender's CPU", "5 times as much CPU as the receiver's"},
			[]string{"receiver's CPU", "that is the limit", "disk write"}},
		{"a slow disk on one machine: both ends idle, the sender a little busier",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec / 2, SocketWrite: 9 * sec},
			cpu(0.3, 0.1, 2),
			map[Stage]time.Duration{SocketRead: sec / 10, Decrypt: sec / 10, DiskWrite: 9 * sec},
			cpu(0.1, 0, 2), true,
			[]string{"slowest stage: receiver disk write"}, []string{"CPU"}},
		{"on a machine so loaded that the busy sender got a tenth of a core, still 5 times the receiver's",
			map[Stage]time.Duration{DiskRead: sec, HashSend: sec / 2, Encrypt: sec, SocketWrite: 75 * sec / 10},
			cpu(1, 5, 2),
			map[Stage]time.Duration{SocketRead: 35 * sec / 10, Decrypt: 2 * sec, HashRecv: sec, DiskWrite: 25 * sec / 10},
			cpu(0.2, 0.2, 2), true,
			[]string{"slowest stage: the sender's CPU", "5 times as much CPU as the receiver's"},
			[]string{"network", "that is the limit"}},
		{"a link: both ends wait on the socket, their CPU busy the rest of the time",
			linkSnd, cpu(1.2, 0.5, 2), linkRcv, cpu(3.5, 0.5, 2), false,
			[]string{"slowest stage: the network"}, []string{"CPU"}},
		{"a 1 Gbit/s link on a loaded machine: the receiver busy when it has data, both ends waiting a quarter of their time",
			map[Stage]time.Duration{DiskRead: sec / 2, HashSend: sec / 2, Encrypt: sec / 2, SocketWrite: 8 * sec},
			cpu(1.5, 1, 2),
			map[Stage]time.Duration{SocketRead: 45 * sec / 10, Decrypt: sec, HashRecv: sec, DiskWrite: 3 * sec},
			cpu(3, 10, 2), false,
			[]string{"slowest stage: the network"}, []string{"CPU"}},
		{"a slow disk: the receiver's disk write is long but its CPU idle",
			map[Stage]time.Duration{DiskRead: sec / 10, Encrypt: sec / 2, SocketWrite: 9 * sec},
			cpu(0.7, 0, 2),
			map[Stage]time.Duration{SocketRead: sec / 2, Decrypt: sec / 2, DiskWrite: 8 * sec},
			cpu(1, 0.2, 2), true,
			[]string{"slowest stage: receiver disk write"}, []string{"CPU"}},
		{"a real slow cipher: the sender's CPU, encrypt named first",
			map[Stage]time.Duration{DiskRead: sec / 10, HashSend: sec / 2, Encrypt: 9 * sec, SocketWrite: sec / 4},
			cpu(9.8, 0, 4),
			map[Stage]time.Duration{SocketRead: 9 * sec, Decrypt: sec / 2},
			cpu(0.7, 0, 4), false,
			[]string{"slowest stage: the sender's CPU", "encrypt 90% · hash 5% · disk read 1%", "make the sender's encrypt cheaper first"},
			[]string{"receiver's CPU"}},
		{"many small files on one machine, both processes busy: the per-entry work, with the CPU figures",
			map[Stage]time.Duration{DiskRead: sec / 10, SocketWrite: sec / 100},
			cpu(4.5, 17, 2),
			map[Stage]time.Duration{SocketRead: 6 * sec / 10, DiskWrite: 3 * sec / 10},
			cpu(4.5, 17, 2), true,
			[]string{"slowest stage: per-entry work outside the timed stages", "99% of the sender's time", "(sender busy 100% of the time"},
			[]string{"CPU:", "CPU of", "CPU ("}},
		{"no CPU figures from the receiver: the stages decide",
			demoSnd, cpu(3, 0, 2), demoRcv, CPU{}, true,
			[]string{"slowest stage: none alone; the busiest are sender socket write 45% · sender hash 24% · receiver disk write 24%"},
			[]string{"CPU", "outside"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Verdict(End{Split: split(tc.sender), Wall: 10 * sec, CPU: tc.sndCPU},
				End{Split: split(tc.receiver), Wall: 10 * sec, CPU: tc.rcvCPU}, tc.same)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("verdict %q does not say %q", got, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("verdict %q says %q", got, w)
				}
			}
		})
	}
}

// The fallback never contradicts its own figures: it blames the work
// outside the timed stages only when that is the largest share of an
// end's time, and says how large.
func TestVerdictOutsideOnlyWhenLargest(t *testing.T) {
	sec := time.Second
	// The make demo without CPU figures: 94% and 89% of the time
	// is inside the stages and the socket.
	got := Verdict(End{Split: split(map[Stage]time.Duration{DiskRead: 8 * sec / 10, HashSend: 24 * sec / 10, Encrypt: 18 * sec / 10, SocketWrite: 45 * sec / 10}), Wall: 10 * sec},
		End{Split: split(map[Stage]time.Duration{SocketRead: 23 * sec / 10, Decrypt: 2 * sec, HashRecv: 21 * sec / 10, DiskWrite: 24 * sec / 10}), Wall: 10 * sec}, true)
	if strings.Contains(got, "outside") || !strings.Contains(got, "none alone") {
		t.Errorf("balanced ends, 94%% and 89%% timed: %q", got)
	}
	// Small files: 80% of the receiver's time is in no stage.
	got = Verdict(End{Split: split(map[Stage]time.Duration{DiskRead: sec, SocketWrite: 3 * sec}), Wall: 10 * sec},
		End{Split: split(map[Stage]time.Duration{SocketRead: sec, DiskWrite: sec}), Wall: 10 * sec}, true)
	if want := "per-entry work outside the timed stages (opening, creating, renaming files): 80% of the receiver's time"; !strings.Contains(got, want) {
		t.Errorf("verdict %q does not say %q", got, want)
	}
}

func TestCPUFigures(t *testing.T) {
	ms := time.Millisecond
	earlier := cpuSample{used: time.Second, ok: true, threads: map[string]runWait{
		"1": {time.Second, time.Second}, "2": {}, "9": {time.Second, time.Second}}}
	now := cpuSample{used: 3 * time.Second, ok: true, threads: map[string]runWait{
		"1": {2 * time.Second, 2500 * ms}, // ran 1 s, waited 1.5 s: all of it counts
		"2": {10 * ms, 900 * ms},          // woke for 10 ms, waited 900: 40 ms count
		"3": {time.Second, 500 * ms},      // new since: from zero
		// 9 exited: not counted
	}}
	c := now.Since(earlier)
	if c.Used != 2*time.Second || c.Waited != 2040*ms || c.Cores < 1 {
		t.Fatalf("since: %+v", c)
	}
	if (cpuSample{}).Since(earlier).Known() || now.Since(cpuSample{}).Known() {
		t.Fatal("a sample without a measurement gave one")
	}
	c = cpu(2, 0.5, 2)
	if got := c.Format(2 * time.Second); got != "busy 100% of the time: 1.0 of 2 cores in use, 0.2 more waiting for a core" {
		t.Fatalf("format: %q", got)
	}
	if got := cpu(1, 0, 1).Format(4 * time.Second); got != "busy 25% of the time: 0.2 of 1 core in use" {
		t.Fatalf("format: %q", got)
	}
	if (CPU{}).Format(time.Second) != "" || (CPU{}).Known() {
		t.Fatal("no measurement formatted as one")
	}
	// This process, now: it has run, on at least one core.
	self := processCPU()
	if runtime.GOOS == "linux" && (!self.Known() || self.Used <= 0) {
		t.Fatalf("this process's CPU: %+v", self)
	}
	var tm Timers
	if tm.CPU().Known() {
		t.Fatal("CPU known before Restart")
	}
	tm.Restart()
	if runtime.GOOS == "linux" {
		for tm.CPU().Used == 0 { // spin until the CPU clock ticks
		}
		if c := tm.CPU(); !c.Known() || c.Used >= processCPU().Used {
			t.Fatalf("since restart %+v, not less than since the start", c)
		}
	}
}

func TestCrossingWithin(t *testing.T) {
	var tm Timers
	// A socket write of 10 ms, 4 ms of it copying the record out of Go.
	tm.Within(SocketWrite, Crossing, 4*time.Millisecond, 100)
	tm.Add(SocketWrite, 10*time.Millisecond, 100)
	s := tm.Snapshot()
	if s[SocketWrite].Time != 6*time.Millisecond || s[Crossing].Time != 4*time.Millisecond || s[Crossing].Bytes != 100 {
		t.Fatalf("socket write %v, crossing %v (%d bytes): want 6ms and 4ms (100)", s[SocketWrite].Time, s[Crossing].Time, s[Crossing].Bytes)
	}
	stages := s.With(SenderStages())
	if len(stages) != 5 || stages[4] != Crossing {
		t.Fatalf("stages of a split that crossed: %v", stages)
	}
	if f := s.Format(stages, 20*time.Millisecond); !strings.Contains(f, "socket write 30% · JS crossing 20%") {
		t.Fatalf("line %q", f)
	}
	// A native end never crosses: its stages and lines stay as they were.
	var native Split
	native[Encrypt].Calls = 1
	if got := native.With(SenderStages()); len(got) != 4 {
		t.Fatalf("native stages %v", got)
	}
	// With does not write into the caller's slice.
	base := SenderStages()
	_ = s.With(base[:2])
	if base[2] != Encrypt {
		t.Fatalf("With changed its argument: %v", base)
	}
	var nilTimers *Timers
	nilTimers.Within(SocketWrite, Crossing, time.Millisecond, 1) // no panic
}
