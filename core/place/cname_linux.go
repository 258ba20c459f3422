package place

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// cName holds a name of one path component with the NUL the kernel
// wants after it, on the caller's stack: golang.org/x/sys/unix copies
// every name it passes to the heap first, an allocation a call, which
// the calls made for each received file (its partial file's creation,
// its rename into place) do not need. A name too long for it, or with
// a NUL inside, is left to x/sys, which says what is wrong with it.
type cName [MaxNameBytes + 1]byte

// ptr puts s in c and returns where it starts, or nil when it does not
// fit or holds a NUL.
func (c *cName) ptr(s string) *byte {
	if len(s) >= len(c) {
		return nil
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return nil
		}
		c[i] = s[i]
	}
	c[len(s)] = 0
	return &c[0]
}

// openat is unix.Openat without the name's allocation.
func openat(dirfd int, name string, flags int, mode uint32) (int, error) {
	var c cName
	p := c.ptr(name)
	if p == nil {
		return unix.Openat(dirfd, name, flags, mode)
	}
	fd, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags), uintptr(mode), 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// renameat2 is unix.Renameat2 without the names' allocations.
func renameat2(fromDir int, from string, toDir int, to string, flags uint) error {
	var cf, ct cName
	pf, pt := cf.ptr(from), ct.ptr(to)
	if pf == nil || pt == nil {
		return unix.Renameat2(fromDir, from, toDir, to, flags)
	}
	_, _, e := unix.Syscall6(unix.SYS_RENAMEAT2, uintptr(fromDir), uintptr(unsafe.Pointer(pf)), uintptr(toDir), uintptr(unsafe.Pointer(pt)), uintptr(flags), 0)
	if e != 0 {
		return e
	}
	return nil
}
