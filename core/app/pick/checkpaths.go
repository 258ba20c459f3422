//go:build !js

package pick

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ferry-project/ferry/core/internal/spare"
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
			if err := checkTree(path, 1); err != nil {
				return err
			}
		default:
			return &PathProblem{Path: path, NotRegular: true}
		}
	}
	return nil
}

// checkTree is checker.folder on the folder at path with helpers goroutines
// besides the caller's (0 or 1), which it waits for.
func checkTree(path string, helpers int) error {
	c := &checker{spare: spare.New(helpers)}
	err := c.folder(path, 0)
	c.spare.Wait()
	return err
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

// maxHeld is how deep a check keeps folders open: below it, a file is
// asked about by its whole path, so a tree thousands of levels deep does
// not hold thousands of descriptors (each of the two goroutines holds at
// most as many).
const maxHeld = 64

// checker is one folder item's check. The goroutine that calls folder
// checks the tree in the order of a walk; a folder it meets, or the
// second half of a long folder's listing, while the helper is idle is
// checked by the helper instead, and its answer is taken in its place, so the problem named is the first in that order
// whichever goroutine found it. On a folder of small files this check
// is a tenth of a sender's CPU and runs before anything is sent, with
// the machine's other core idle. checkTree owns the helper's goroutine
// and waits for it.
type checker struct {
	spare *spare.Goroutines // the helper
}

// handedCheck is a folder the helper checks: err is its answer once
// done is closed.
type handedCheck struct {
	done chan struct{}
	err  error
}

// folder reports the first entry under the folder at path, in the
// lexical order of a walk, that cannot be read: a folder that cannot be
// listed or a regular file that cannot be opened for reading. Links and
// special files are not looked at: the engine leaves them out. Each file
// is asked about relative to its open folder (readableIn), so no path is
// walked from the root per file, and its path is made only to name a
// problem.
func (c *checker) folder(path string, depth int) error {
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
	// A long listing is split when the helper is idle: it checks the
	// second half, with a descriptor of its own for the folder, and its
	// answer counts once the first half has none.
	half := len(ents)
	var tail *handedCheck
	if c.spare.ClaimSplit(len(ents)) {
		var td *os.File
		var terr error
		if d != nil {
			// Opened again by path, as the folder was: the check asks
			// the same questions, on any system.
			td, terr = os.Open(path)
		}
		if terr != nil {
			c.spare.Release()
		} else {
			half = len(ents) / 2
			tail = &handedCheck{done: make(chan struct{})}
			c.spare.Go(func() {
				defer close(tail.done)
				tail.err = c.entries(td, ents[half:], path, depth)
				if td != nil {
					td.Close()
				}
			})
		}
	}
	if err := c.entries(d, ents[:half], path, depth); err != nil || tail == nil {
		return err
	}
	<-tail.done
	return tail.err
}

// entries reports the first problem among ents, sorted, of the folder
// open as d (nil: asked about by whole path) at path, checking the
// folders among them.
func (c *checker) entries(d *os.File, ents []fs.DirEntry, path string, depth int) error {
	// Folders the helper took come before anything found here later.
	var handed []*handedCheck
	first := func(err error) error {
		for _, h := range handed {
			<-h.done
			if h.err != nil {
				return h.err
			}
		}
		return err
	}
	for _, e := range ents {
		switch {
		case e.Type().IsRegular():
			if err := readableIn(d, e.Name(), path); err != nil {
				return first(&PathProblem{Path: filepath.Join(path, e.Name()), Err: err})
			}
		case e.IsDir():
			p := filepath.Join(path, e.Name())
			if c.spare.Claim() {
				h := &handedCheck{done: make(chan struct{})}
				handed = append(handed, h)
				c.spare.Go(func() {
					defer close(h.done)
					h.err = c.folder(p, depth+1)
				})
				continue
			}
			if err := c.folder(p, depth+1); err != nil {
				return first(err)
			}
		}
	}
	return first(nil)
}

// canRead reports a regular file that cannot be read; readable (and its
// platform files) asks the system.
func canRead(path string) error {
	if err := readable(path); err != nil {
		return &PathProblem{Path: path, Err: err}
	}
	return nil
}
