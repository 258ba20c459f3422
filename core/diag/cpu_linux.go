package diag

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// threadTimes reads each thread's run time and run delay (the time it
// was ready to run but waited for a core): the first two fields of
// /proc/self/task/TID/schedstat, by thread id. Nil when the kernel does
// not keep them. A few dozen small reads, done at the start and the end
// of a transfer, never per record.
func threadTimes() map[string]runWait {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	m := make(map[string]runWait, len(tasks))
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread exited since the listing
		}
		f := bytes.Fields(b)
		if len(f) < 2 {
			continue
		}
		run, err1 := strconv.ParseInt(string(f[0]), 10, 64)
		wait, err2 := strconv.ParseInt(string(f[1]), 10, 64)
		if err1 == nil && err2 == nil && run >= 0 && wait >= 0 {
			m[t.Name()] = runWait{time.Duration(run), time.Duration(wait)}
		}
	}
	return m
}
