//go:build !linux

package place

import (
	"io/fs"
	"time"
)

// rawFile is never made here: every Partial holds an *os.File, so these
// are never called.
type rawFile struct{}

func (rawFile) write(b []byte) (int, error) {
	panic("place: a bare descriptor on a system without them")
}
func (rawFile) close() error { panic("place: a bare descriptor on a system without them") }
func (rawFile) chmod(mode fs.FileMode) error {
	panic("place: a bare descriptor on a system without them")
}
func (rawFile) setTime(t time.Time) error { panic("place: a bare descriptor on a system without them") }
