package place

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkKernelPlace is the kernel's own share of putting a 4 KiB file
// in a folder, in raw calls on folders opened once, without this
// package or Go's os in the way: what any receiver pays on this kernel
// and file system (TMPDIR) before its own work. Its rows:
//
//   - named: tar x's way, the baseline: the file created under its
//     final name (O_EXCL), written, its time set, closed. A crash
//     mid-write leaves a short file under the final name, which Ferry
//     never does.
//   - unnamed: Ferry's way for a file that comes whole (OpenUnnamed): a
//     file without a name (O_TMPFILE) in the partial folder, written,
//     its time set, linked under its final name, closed.
//   - renamed: Ferry's way elsewhere (OpenPartial): a named file in the
//     partial folder, renamed across folders onto a name nobody took
//     (RENAME_NOREPLACE).
//
// Each op is one file, in folders of 100 as the small figure sends
// them; the folders' creation is outside the clock. Run it with
// TMPDIR=/dev/shm for tmpfs, where nothing else hides the calls' cost.
func BenchmarkKernelPlace(b *testing.B) {
	var names [100]string
	for i := range names {
		names[i] = fmt.Sprintf("f%03d.bin", i)
	}
	data := make([]byte, benchFileSize)
	times := []unix.Timespec{unix.NsecToTimespec(1.7e18), unix.NsecToTimespec(1.7e18)}
	for _, way := range []string{"named", "unnamed", "renamed"} {
		b.Run(way, func(b *testing.B) {
			root := b.TempDir()
			part := openDirFD(b, root, PartialDir)
			if way == "unnamed" {
				fd, err := unix.Openat(part, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
				if err != nil {
					b.Skipf("no files without a name in %s: %v", root, err)
				}
				unix.Close(fd)
			}
			var folders []int
			defer func() {
				for _, fd := range append(folders, part) {
					unix.Close(fd)
				}
			}()
			b.SetBytes(benchFileSize)
			i := 0
			for b.Loop() {
				if i%100 == 0 {
					b.StopTimer()
					folders = append(folders, openDirFD(b, root, fmt.Sprintf("d%05d", i/100)))
					b.StartTimer()
				}
				dir, name := folders[len(folders)-1], names[i%100]
				if err := placeRaw(way, part, dir, name, data, times); err != nil {
					b.Fatalf("%s %d: %v", way, i, err)
				}
				i++
			}
		})
	}
}

// placeRaw puts one file named name into folder dir the way named.
func placeRaw(way string, part, dir int, name string, data []byte, times []unix.Timespec) error {
	var fd int
	var err error
	switch way {
	case "named":
		fd, err = unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	case "unnamed":
		fd, err = unix.Openat(part, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	case "renamed":
		fd, err = unix.Openat(part, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if n, err := unix.Write(fd, data); err != nil || n != len(data) {
		return fmt.Errorf("write: %d bytes, %v", n, err)
	}
	if err := unix.UtimesNanoAt(fd, "", times, unix.AT_EMPTY_PATH); err != nil {
		return err
	}
	switch way {
	case "unnamed":
		return unix.Linkat(fd, "", dir, name, unix.AT_EMPTY_PATH)
	case "renamed":
		if err := unix.Fchmod(fd, 0o644); err != nil {
			return err
		}
		return unix.Renameat2(part, name, dir, name, unix.RENAME_NOREPLACE)
	}
	return nil
}

// openDirFD makes folder name in root and opens it.
func openDirFD(b *testing.B, root, name string) int {
	b.Helper()
	if err := unix.Mkdirat(unix.AT_FDCWD, root+"/"+name, 0o755); err != nil {
		b.Fatal(err)
	}
	fd, err := unix.Open(root+"/"+name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	return fd
}
