package place

import (
	"errors"
	"io/fs"
)

// attrNotKept reports a chmod or chtimes error that means the file
// system cannot hold the mode or time asked for, which is then kept only
// where it can be: vfat and exFAT (the kernel's drivers refuse, with
// EPERM, a mode they cannot represent unless mounted "quiet", which
// desktop automounters do not do), and FUSE drivers without chmod
// (ENOSYS). The file is verified and in place by then; failing the
// transfer over its mode would lose nothing but cost the person a
// transfer to a USB stick.
func attrNotKept(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrPermission)
}
