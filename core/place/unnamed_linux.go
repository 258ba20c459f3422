package place

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A file that comes whole needs no partial file that a resume could
// continue: on Linux it is written to a file without a name, made with
// O_TMPFILE in the partial folder, and given its final name with one
// linkat once verified. The name it never had costs nothing: no second
// name to make and move, where a named partial file is created in the
// partial folder and then renamed across folders (about 3 µs of the
// receiver's 40 a 4 KiB file on tmpfs, benches/results). A crash before
// the link leaves nothing at all, which is all a resume of such a file
// needs.
//
// linkat with AT_EMPTY_PATH, which names an open file, needs
// CAP_DAC_READ_SEARCH before Linux 6.10; since then the process that
// opened the file may name it. Not every file system makes files
// without names (FAT, NFS and most FUSE ones do not), so PreparePartialDir
// asks once (probeUnnamed) and OpenUnnamed answers nil after a
// failure, for the named way.

// probeUnnamed reports whether a file without a name can be made in the
// partial folder and named there: it makes one, links it under a name
// of its own, and removes that name. A link, not a cheaper question:
// linkat onto an existing name fails with EEXIST once the kernel agrees
// to name an open file, but before a security module is asked whether
// this process may make links at all, and Android's policy never lets
// an app link a file in its data (a neverallow in its SELinux rules:
// link fails with EACCES). The name is there for a moment, in the
// folder this package owns; whoever lists the folder meanwhile (a
// test, another session) may see it come and go, as it may see a
// partial file moved into place.
func (d *Dest) probeUnnamed() bool {
	dir := int(d.partDir.Fd())
	fd, err := openat(dir, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var nonce [12]byte
	rand.Read(nonce[:])
	name := "probe-" + hex.EncodeToString(nonce[:]) + ".part"
	if linkat(fd, dir, name) != nil {
		return false
	}
	unix.Unlinkat(dir, name, 0)
	return true
}

// OpenUnnamed makes a file without a name for a new file that comes
// whole, the offered entry at path of size bytes and time modTime, with
// the offered mode (less the system's mask: nobody can open a file
// without a name, so unverified bytes need no 0600), to be finished
// (Finish) and named (Place) as a partial file is. Closed unfinished
// (Close), it becomes the partial file PartialName names. It returns nil
// and no error when this destination cannot (see probeUnnamed): the
// caller opens a named partial file instead.
func (d *Dest) OpenUnnamed(path string, size int64, modTime time.Time, mode fs.FileMode) (*Partial, error) {
	if !d.unnamed {
		return nil, nil
	}
	fd, err := openat(int(d.partDir.Fd()), ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(mode.Perm()))
	if err != nil {
		return nil, fmt.Errorf("opening partial file: %w", DiskError(&fs.PathError{Op: "openat", Path: d.fullName(PartialDir), Err: err}))
	}
	return &Partial{raw: rawFile{fd}, path: PartialDir, d: d, perm: mode.Perm(), unnamed: true,
		entry: unnamedEntry{path, size, modTime}}, nil
}

// unnamedEntry is what names a file without a name's partial file.
type unnamedEntry struct {
	path    string
	size    int64
	modTime time.Time
}

// keepUnnamed gives the file without a name f its partial file's name,
// unless a file has it already, so that what it holds stays for a
// resume. It may run beside the session's calls (the placer's Close):
// it uses only what PreparePartialDir set, and a buffer of its own.
func (d *Dest) keepUnnamed(f *Partial) {
	e := f.entry
	_, name := partialNameIn(nil, d.peerFP, e.path, e.size, e.modTime)
	if f.perm&0o600 != 0o600 || !d.partialPrivate {
		// A partial file's mode, as OpenPartial would have made it.
		f.raw.chmod(0o600)
	}
	linkat(f.raw.fd, int(d.partDir.Fd()), string(name[len(PartialDir)+1:]))
}

// linkNoReplace names the unnamed file f to, relative to the kept handle
// on to's folder, failing with an error that matches fs.ErrExist when
// something has that name: linkat never replaces.
func (d *Dest) linkNoReplace(f *Partial, to string) error {
	dir, name, _ := CutLast(to)
	err := d.atFolder(dir, func(toDir int) error { return linkat(f.raw.fd, toDir, name) })
	if err != nil {
		return &fs.PathError{Op: "linkat", Path: d.fullName(to), Err: err}
	}
	return nil
}

// unlinkPlaced takes back the name linkNoReplace gave to.
func (d *Dest) unlinkPlaced(to string) {
	dir, name, _ := CutLast(to)
	if toDir, err := d.folder(dir); err == nil {
		unix.Unlinkat(int(toDir.Fd()), name, 0)
	}
}

// linkat is linkat(fd, "", toDir, to, AT_EMPTY_PATH) without the
// name's allocation.
func linkat(fd, toDir int, to string) error {
	var empty byte
	var c cName
	p := c.ptr(to)
	if p == nil {
		return unix.Linkat(fd, "", toDir, to, unix.AT_EMPTY_PATH)
	}
	_, _, e := unix.Syscall6(unix.SYS_LINKAT, uintptr(fd), uintptr(unsafe.Pointer(&empty)), uintptr(toDir), uintptr(unsafe.Pointer(p)), unix.AT_EMPTY_PATH, 0)
	if e != 0 {
		return e
	}
	return nil
}
