//go:build unix

package diag

import (
	"syscall"
	"time"
)

// processTime is the process's user and system CPU time, every thread,
// from getrusage(RUSAGE_SELF).
func processTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
