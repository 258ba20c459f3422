//go:build !js

package app

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/ferry-project/ferry/core/place"
)

// CheckWritable makes sure a receiver can save into dir before it shows
// a code: otherwise a person would start it, the sender would connect
// and be accepted, and the first file would fail. It creates and removes
// a probe file in dir, where received files are renamed to, and in the
// folder of partial files when one is there already (left by an earlier
// transfer, perhaps by another user). Nothing is left behind. On an
// error, where is the folder that could not be written: dir, or its
// folder of partial files.
func CheckWritable(dir string) (where string, err error) {
	if err := probe(dir); err != nil {
		return dir, err
	}
	partial := filepath.Join(dir, place.PartialDir)
	if fi, err := os.Lstat(partial); err == nil && fi.IsDir() {
		if err := probe(partial); err != nil {
			return partial, err
		}
	}
	return "", nil
}

func probe(dir string) error {
	f, err := os.CreateTemp(dir, ".ferry-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	cerr := f.Close()
	rerr := os.Remove(name)
	return errors.Join(cerr, rerr)
}
