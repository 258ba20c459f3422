package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// archiveFile is one file to put in an archive: where it is read from,
// its name inside the archive's top folder, and its mode.
type archiveFile struct {
	src  string
	name string
	mode os.FileMode
}

// archive writes a target's archive beside its binary and returns the
// archive's file name. Windows gets a zip (Explorer opens it without extra
// tools), every other OS a tar.gz (it keeps the executable bit). Both hold
// one folder named like the archive, so unpacking never scatters files.
func (r release) archive(t target) (string, error) {
	files := []archiveFile{
		{r.binary(t), "ferry" + exe(t.goos), 0o755},
		{filepath.Join(r.root, "README.md"), "README.md", 0o644},
		{filepath.Join(r.root, "LICENSE"), "LICENSE", 0o644},
	}
	name := r.base(t) + ".tar.gz"
	write := writeTarGz
	if t.goos == "windows" {
		name = r.base(t) + ".zip"
		write = writeZip
	}
	if err := writeAtomic(filepath.Join(r.dir, name), func(w io.Writer) error {
		return write(w, r.base(t), files, r.mtime)
	}); err != nil {
		return "", fmt.Errorf("writing %s: %w", name, err)
	}
	return name, nil
}

func writeTarGz(w io.Writer, top string, files []archiveFile, mtime time.Time) error {
	gz := gzip.NewWriter(w)
	gz.ModTime = mtime
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{
		Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX,
	}); err != nil {
		return err
	}
	for _, f := range files {
		src, size, err := openSized(f.src)
		if err != nil {
			return err
		}
		err = tw.WriteHeader(&tar.Header{
			Typeflag: tar.TypeReg, Name: top + "/" + f.name, Mode: int64(f.mode),
			Size: size, ModTime: mtime, Format: tar.FormatPAX,
		})
		if err == nil {
			_, err = io.Copy(tw, src)
		}
		src.Close()
		if err != nil {
			return fmt.Errorf("adding %s: %w", f.src, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, top string, files []archiveFile, mtime time.Time) error {
	zw := zip.NewWriter(w)
	dir := &zip.FileHeader{Name: top + "/", Modified: mtime}
	dir.SetMode(os.ModeDir | 0o755)
	if _, err := zw.CreateHeader(dir); err != nil {
		return err
	}
	for _, f := range files {
		src, _, err := openSized(f.src)
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: top + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(f.mode)
		dst, err := zw.CreateHeader(h)
		if err == nil {
			_, err = io.Copy(dst, src)
		}
		src.Close()
		if err != nil {
			return fmt.Errorf("adding %s: %w", f.src, err)
		}
	}
	return zw.Close()
}

func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	return f, fi.Size(), nil
}

// writeAtomic writes path through a temporary file in the same folder, so
// an interrupted run never leaves a truncated archive that SHA256SUMS would
// then vouch for.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ferry-dist-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
