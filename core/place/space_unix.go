//go:build unix

package place

import "golang.org/x/sys/unix"

// FreeSpace returns the bytes available to this user on dir's file
// system; ok is false when that cannot be known.
func FreeSpace(dir string) (free int64, ok bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
