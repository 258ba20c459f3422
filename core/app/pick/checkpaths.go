//go:build !js

package pick

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
			if err := checkFolder(path, 0); err != nil {
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

// maxHeld is how deep checkFolder keeps folders open: below it, a file is
// asked about by its whole path, so a tree thousands of levels deep does
// not hold thousands of descriptors.
const maxHeld = 64

// checkFolder reports the first entry under the folder at path, in the
// lexical order of a walk, that cannot be read: a folder that cannot be
// listed or a regular file that cannot be opened for reading. Links and
// special files are not looked at: the engine leaves them out. Each file
// is asked about relative to its open folder (readableIn), so no path is
// walked from the root per file: on a folder of small files this check
// is a tenth of a sender's CPU, and it runs before anything is sent.
func checkFolder(path string, depth int) error {
	d, err := os.Open(path)
	if err != nil {
		return &PathProblem{Path: path, Err: err}
	}
	ents, err := d.ReadDir(-1)
	if err != nil {
		d.Close()
		return &PathProblem{Path: path, Err: err}
	}
	if depth >= maxHeld {
		d.Close()
		d = nil
	} else {
		defer d.Close()
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range ents {
		p := filepath.Join(path, e.Name())
		switch {
		case e.Type().IsRegular():
			if err := readableIn(d, e.Name(), p); err != nil {
				return &PathProblem{Path: p, Err: err}
			}
		case e.IsDir():
			if err := checkFolder(p, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// canRead reports a regular file that cannot be read; readable (and its
// platform files) asks the system.
func canRead(path string) error {
	if err := readable(path); err != nil {
		return &PathProblem{Path: path, Err: err}
	}
	return nil
}
