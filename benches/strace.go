package benches

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// fsCalls are the system calls FSCalls counts as work on the file
// system: every call that names or holds a file or folder, except the
// reads and writes of bytes (which a receiver and tar make alike, and
// which also carry the socket and the output). Issue 34's cost per file.
var fsCalls = map[string]bool{
	"open": true, "openat": true, "openat2": true, "creat": true, "close": true,
	"stat": true, "lstat": true, "fstat": true, "newfstatat": true, "statx": true,
	"readlink": true, "readlinkat": true, "link": true, "linkat": true,
	"unlink": true, "unlinkat": true, "rename": true, "renameat": true, "renameat2": true,
	"utimensat": true, "utimes": true, "futimesat": true,
	"chmod": true, "fchmod": true, "fchmodat": true, "fchmodat2": true,
	"chown": true, "fchown": true, "fchownat": true, "lchown": true,
	"fcntl": true, "mkdir": true, "mkdirat": true, "ftruncate": true, "truncate": true,
	"lseek": true, "getdents64": true, "fsync": true, "fdatasync": true,
	"flock": true, "fstatfs": true, "statfs": true, "access": true, "faccessat": true, "faccessat2": true,
}

// FSCalls reads a `strace -c` summary and returns its file-system calls
// (fsCalls), in all and by name. A summary with none is an error: the
// format changed, or strace counted nothing.
func FSCalls(path string) (total int, by map[string]int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	by = map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// % time, seconds, usecs/call, calls, [errors,] syscall
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || !fsCalls[fields[len(fields)-1]] {
			continue
		}
		if n, err := strconv.Atoi(fields[3]); err == nil {
			total += n
			by[fields[len(fields)-1]] = n
		}
	}
	if err := sc.Err(); err != nil {
		return 0, nil, err
	}
	if total == 0 {
		return 0, nil, fmt.Errorf("%s counts no file-system call: strace's summary format changed?", path)
	}
	return total, by, nil
}
