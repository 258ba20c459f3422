//go:build !js

package pick

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckPaths makes sure every path to send exists and can be read,
// folders all the way down, before anything touches the network: a typo
// must not cost the receiver a question. Symbolic links inside folders
// are left to the engine, which decides what to do with them. The first
// problem is a *PathProblem.
func CheckPaths(paths []string) error {
	for _, path := range paths {
		fi, err := os.Stat(path)
		if err != nil {
			return &PathProblem{Path: path, Missing: errors.Is(err, fs.ErrNotExist), Err: err}
		}
		switch {
		case fi.Mode().IsRegular():
			if err := canRead(path); err != nil {
				return err
			}
		case fi.IsDir():
			err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return &PathProblem{Path: p, Err: err}
				}
				if d.Type().IsRegular() {
					return canRead(p)
				}
				return nil
			})
			if err != nil {
				return err
			}
		default:
			return &PathProblem{Path: path, NotRegular: true}
		}
	}
	return nil
}

// A PathProblem is a path CheckPaths found that cannot be sent: nothing
// is at a path given (Missing), it is neither a regular file nor a
// folder (NotRegular), or reading it failed (Err).
type PathProblem struct {
	Path       string
	Missing    bool
	NotRegular bool
	Err        error
}

func (p *PathProblem) Error() string {
	switch {
	case p.Missing:
		return "no such file or folder: " + p.Path
	case p.NotRegular:
		return "not a regular file or folder: " + p.Path
	}
	return "cannot read " + p.Path + ": " + p.Err.Error()
}

func (p *PathProblem) Unwrap() error { return p.Err }

// canRead reports a regular file that cannot be read; readable (and its
// platform files) asks the system.
func canRead(path string) error {
	if err := readable(path); err != nil {
		return &PathProblem{Path: path, Err: err}
	}
	return nil
}
