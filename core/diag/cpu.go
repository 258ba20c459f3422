package diag

import (
	"fmt"
	"runtime"
	"time"
)

// CPU is one end's use of its processor over an interval, measured for
// the whole process: the stage timers say where the pipeline was, this
// says whether being there cost CPU. A stage busy most of the time on an
// end whose CPU was busy all of it is limited by the CPU, not by the
// disk or the network that the stage's name suggests; that is the
// reading a loopback transfer on a small machine needs (seeds/002).
type CPU struct {
	// Used is the process's CPU time, user and system, every thread.
	Used time.Duration
	// Waited is the time its threads were ready to run but waited for a
	// core, summed over threads (Linux's run delay; zero where the
	// system does not say). A busy machine shows here, not in Used.
	Waited time.Duration
	// Cores is how many cores the process may use at once; 0 means the
	// end did not measure (no CPU figures).
	Cores int
}

// Known reports whether c holds a measurement.
func (c CPU) Known() bool { return c.Cores > 0 }

// Demand is the process's CPU time and its threads' wait for a core over
// wall, in cores: how many cores it would have kept busy had there been
// enough. 0 when wall is.
func (c CPU) Demand(wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return float64(c.Used+c.Waited) / float64(wall)
}

// Busy is the share of wall the process ran or waited to run on some
// core, counted once however many threads did (so at most 1): how much
// of the time its pipeline, which runs one stage at a time, had CPU work
// to do. 0 when wall is.
func (c CPU) Busy(wall time.Duration) float64 { return min(1, c.Demand(wall)) }

// Load is the process's CPU time over wall in cores: 1.5 is one and a
// half cores busy on average. 0 when wall is.
func (c CPU) Load(wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return float64(c.Used) / float64(wall)
}

// waitCredit bounds how much of a thread's wait for a core counts, as a
// multiple of the time it ran over the same interval. A thread kept from
// a core it needs waits a few times as long as it runs (on a machine
// loaded L deep per core, about L-1 times); a thread that mostly sleeps
// and wakes for microseconds of work also waits for a core at every
// wake-up, and on a loaded machine those waits add up to hundreds of
// times its run time: latency, not demand. Measured here, at a load
// average of 30 on two cores, a process asleep in its stages showed
// threads waiting for 0.9 of a core while running for under 0.05.
const waitCredit = 4

// cpuSample is a process's CPU counters at one moment; Since turns two
// into a CPU.
type cpuSample struct {
	used    time.Duration
	ok      bool
	threads map[string]runWait
}

// runWait is one thread's run time and run delay so far.
type runWait struct{ run, wait time.Duration }

// sampleCPU reads this process's CPU counters.
func sampleCPU() cpuSample {
	used, ok := processTime()
	if !ok {
		return cpuSample{}
	}
	return cpuSample{used: used, ok: true, threads: threadTimes()}
}

// Since is the process's CPU use from earlier to s. A thread's wait for
// a core counts up to waitCredit times what it ran meanwhile; a thread
// that exited in between is not counted, and one that started is
// counted from zero. No measurement when either sample holds none.
func (s cpuSample) Since(earlier cpuSample) CPU {
	if !s.ok || !earlier.ok {
		return CPU{}
	}
	c := CPU{Used: max(0, s.used-earlier.used), Cores: usableCores()}
	for tid, now := range s.threads {
		was := earlier.threads[tid]
		run, wait := max(0, now.run-was.run), max(0, now.wait-was.wait)
		c.Waited += min(wait, waitCredit*run)
	}
	return c
}

// processCPU is this process's CPU use since it started.
func processCPU() CPU {
	return sampleCPU().Since(cpuSample{ok: true})
}

// usableCores is the number of cores the Go scheduler runs goroutines on
// at once: GOMAXPROCS, which follows the CPU affinity mask and, since Go
// 1.25, a cgroup's CPU limit, but never more than the CPUs it may use.
func usableCores() int {
	return max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU()))
}

// Format renders c over wall as "busy 97% of the time: 0.8 of 2 cores
// in use, 1.0 more waiting for a core": the share of the time the process
// ran or waited to run, its CPU time in cores, and its threads' wait for
// a core in cores (summed over threads, so it can pass one). Empty when c
// holds no measurement.
func (c CPU) Format(wall time.Duration) string {
	if !c.Known() || wall <= 0 {
		return ""
	}
	s := fmt.Sprintf("busy %.0f%% of the time: %.1f of %d %s in use", 100*c.Busy(wall), c.Load(wall), c.Cores, plural(c.Cores, "core", "cores"))
	if c.Waited > 0 {
		s += fmt.Sprintf(", %.1f more waiting for a core", float64(c.Waited)/float64(wall))
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
