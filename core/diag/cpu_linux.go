package diag

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// runDelay is the time this process's threads spent ready to run but
// waiting for a core: the second field of each thread's
// /proc/self/task/TID/schedstat, summed. Zero when the kernel does not
// keep it. A few dozen small reads, done at the start and the end of a
// transfer, never per record.
func runDelay() time.Duration {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	var total int64
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread exited since the listing
		}
		f := bytes.Fields(b)
		if len(f) < 2 {
			continue
		}
		if ns, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil && ns > 0 {
			total += ns
		}
	}
	return time.Duration(total)
}
