//go:build unix

package testkit

import (
	"os"
	"syscall"
)

// diskUsage is the space fi's file takes on disk, where the system says.
func diskUsage(fi os.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int64(st.Blocks) * 512, true
}
