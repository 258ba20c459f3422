package benches

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// SameFile checks that the file b holds what a does, reading both in
// 1 MiB blocks, never either one whole.
func SameFile(a, b string) error {
	return compare(a, b, func(fa, fb *os.File) error {
		ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
		for off := int64(0); ; {
			na, ea := io.ReadFull(fa, ba)
			nb, _ := io.ReadFull(fb, bb)
			if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
				return fmt.Errorf("%s differs from %s near byte %d", b, a, off)
			}
			if ea != nil {
				return nil
			}
			off += int64(na)
		}
	})
}

// SameSamples checks that the file b received is size bytes long and
// holds what a does at its start, its middle and its end, 64 KiB each:
// for files too large to read again whole between runs.
func SameSamples(a, b string, size int64) error {
	return compare(a, b, func(fa, fb *os.File) error {
		fi, err := fb.Stat()
		if err != nil {
			return err
		}
		if fi.Size() != size {
			return fmt.Errorf("received %d bytes of %d", fi.Size(), size)
		}
		const window = 64 << 10
		pa, pb := make([]byte, window), make([]byte, window)
		for _, off := range []int64{0, size / 2, max(0, size-window)} {
			n, _ := fa.ReadAt(pa, off)
			m, _ := fb.ReadAt(pb, off)
			if n != m || !bytes.Equal(pa[:n], pb[:m]) {
				return fmt.Errorf("received file differs from the source near byte %d", off)
			}
		}
		return nil
	})
}

// compare opens a and b and hands both to check, closing them after.
func compare(a, b string, check func(fa, fb *os.File) error) error {
	fa, err := os.Open(a)
	if err != nil {
		return err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return err
	}
	defer fb.Close()
	return check(fa, fb)
}
