//go:build windows

package place

import "golang.org/x/sys/windows"

// FreeSpace returns the bytes available to this user on dir's volume
// (GetDiskFreeSpaceEx's caller figure, which counts the user's quota);
// ok is false when that cannot be known.
func FreeSpace(dir string) (free int64, ok bool) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, false
	}
	var avail, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &totalFree); err != nil {
		return 0, false
	}
	return int64(min(avail, 1<<63-1)), true
}
