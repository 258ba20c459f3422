package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/errkind"
)

// checkWritable makes sure the receiver can save into dir before it
// shows a code (core/app's CheckWritable, which also probes the folder
// of partial files).
//
// An unwritable folder is a usage error (exit 2, kind "dir_not_writable"),
// as a missing --dir is: the command as typed can never succeed.
func checkWritable(dir string, fromFlag bool) error {
	if where, err := app.CheckWritable(dir); err != nil {
		return notWritable(dir, where, err, fromFlag)
	}
	return nil
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
