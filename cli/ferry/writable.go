package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ferry-project/ferry/core/errkind"
)

// partialFolder is core/transfer's hidden folder of partial files inside
// the destination: files are written there first, then renamed into the
// destination itself.
const partialFolder = ".ferry-partial"

// checkWritable makes sure the receiver can save into dir before it
// shows a code: otherwise a person would start it, the sender would
// connect and be accepted, and the first file would fail. It creates and
// removes a probe file in dir, where received files are renamed to, and
// in the partial folder when one is there already (left by an earlier
// transfer, perhaps by another user). Nothing is left behind.
//
// An unwritable folder is a usage error (exit 2, kind "dir_not_writable"),
// as a missing --dir is: the command as typed can never succeed.
func checkWritable(dir string, fromFlag bool) error {
	if err := probe(dir); err != nil {
		return notWritable(dir, dir, err, fromFlag)
	}
	partial := filepath.Join(dir, partialFolder)
	if fi, err := os.Lstat(partial); err == nil && fi.IsDir() {
		if err := probe(partial); err != nil {
			return notWritable(dir, partial, err, fromFlag)
		}
	}
	return nil
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

func notWritable(dir, where string, err error, fromFlag bool) error {
	why := unwrapPath(err)
	var hint string
	switch {
	case where != dir:
		hint = fmt.Sprintf("ferry keeps partial files in %s: make it writable for this user, or remove it (it holds only unfinished transfers), or choose another folder with --dir", where)
	case errors.Is(err, fs.ErrPermission) && fromFlag:
		hint = fmt.Sprintf("ferry saves files by creating them in %s: choose a folder this user can write with --dir, or make it writable (chmod u+w)", dir)
	case fromFlag:
		hint = "choose another folder with --dir"
	default:
		hint = "the download folder cannot be written: choose a folder with --dir"
	}
	return &usageError{kind: string(errkind.DirNotWritable), hint: hint,
		msg: fmt.Sprintf("cannot save into %s: %v", where, why)}
}
