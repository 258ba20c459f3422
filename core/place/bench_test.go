package place

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The cost of putting one small file on disk: BenchmarkPlaceSmall is
// Dest's whole way (partial file created, written, mode and time set,
// renamed into place under a name nobody took; BenchmarkPlaceSmallUnnamed
// with a file without a name, linked into place), BenchmarkPlaceSmallBare
// its baseline, what tar x does (the file created under its name,
// written, mode and time set, closed), in the same kind of folder.
// Folders of 100 files, as the small figure sends them.

const benchFileSize = 4096

func BenchmarkPlaceSmall(b *testing.B) { benchPlace(b, false) }

// BenchmarkPlaceSmallUnnamed is BenchmarkPlaceSmall for a file without a
// name (OpenUnnamed), which a file that comes whole is on Linux.
func BenchmarkPlaceSmallUnnamed(b *testing.B) { benchPlace(b, true) }

func benchPlace(b *testing.B, unnamed bool) {
	dir := b.TempDir()
	d, err := OpenDest(dir, false, "peer")
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if unnamed {
		if err := d.PreparePartialDir(); err != nil {
			b.Fatal(err)
		}
		if f, err := d.OpenUnnamed("probe", 0, time.Time{}, 0o644); f == nil {
			b.Skipf("no files without a name in %s (%v)", dir, err)
		} else {
			f.Discard()
		}
	}
	data := make([]byte, benchFileSize)
	when := time.Now()
	b.SetBytes(benchFileSize)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		folder := fmt.Sprintf("d%05d", i/100)
		if i%100 == 0 {
			if _, err := d.Mkdir(folder, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		final := fmt.Sprintf("%s/f%03d.bin", folder, i%100)
		var f *Partial
		p := PartialDir
		if unnamed {
			f, err = d.OpenUnnamed(final, benchFileSize, when, 0o644)
		} else {
			p = d.PartialName(final, benchFileSize, when)
			f, err = d.OpenPartial(p, 0, 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Write(data); err != nil {
			b.Fatal(err)
		}
		if err := d.Finish(f, p, 0o644, when); err != nil {
			b.Fatal(err)
		}
		if _, _, err := d.Place(f, final); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkPlaceSmallBare(b *testing.B) {
	dir := b.TempDir()
	data := make([]byte, benchFileSize)
	when := time.Now()
	b.SetBytes(benchFileSize)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		folder := filepath.Join(dir, fmt.Sprintf("d%05d", i/100))
		if i%100 == 0 {
			if err := os.Mkdir(folder, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		f, err := os.OpenFile(filepath.Join(folder, fmt.Sprintf("f%03d.bin", i%100)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Write(data); err != nil {
			b.Fatal(err)
		}
		if err := f.Chmod(0o644); err != nil {
			b.Fatal(err)
		}
		if err := setFileTime(f, when); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
