package place

import (
	"io/fs"
	"os"
	"time"
)

// Partial is a partial file open for writing, from OpenPartial: written
// to, then closed by Finish (verified) or Close (not). A partial file
// created new on Linux is a bare descriptor (rawFile), not an *os.File:
// wrapping one costs an fcntl, two allocations and a finalizer a file,
// which a folder of small files pays per file for nothing, since a
// regular file never uses the poller. It has no finalizer either, so
// whoever opened it must close it.
type Partial struct {
	f    *os.File // the general way; nil for a bare descriptor
	raw  rawFile
	path string // under the destination
	d    *Dest
	// perm is the mode the file was created with, before the system's
	// mask; 0 when it was opened, not created, or created the general way.
	perm fs.FileMode
	// unnamed: a file without a name (OpenUnnamed), which Finish leaves
	// open and Place names and closes; path is then the partial folder,
	// and entry what names it if it must stay a partial file (Close).
	unnamed bool
	entry   unnamedEntry
	wrote   bool // bytes were written to it
}

// Name is where the file is on this device's disk, as os.File names the
// files the root opens.
func (p *Partial) Name() string {
	if p.f != nil {
		return p.f.Name()
	}
	return p.d.fullName(p.path)
}

// Write writes b whole, or says why not.
func (p *Partial) Write(b []byte) (int, error) {
	if p.f != nil {
		return p.f.Write(b)
	}
	n, err := p.raw.write(b)
	p.wrote = p.wrote || n > 0
	if err != nil {
		return n, p.pathError("write", err)
	}
	return n, nil
}

// Close closes the file without finishing it: it stays a partial file.
// A file without a name that holds bytes gets its partial file's name
// first (keepUnnamed), so that a transfer that stops before placing it
// leaves its bytes where a resume finds them, as a named one would.
func (p *Partial) Close() error {
	if p.f != nil {
		return p.f.Close()
	}
	if p.unnamed && p.wrote {
		p.d.keepUnnamed(p)
	}
	return p.closeRaw()
}

// Discard closes the file and removes it: its bytes did not verify.
func (p *Partial) Discard() {
	if p.unnamed {
		p.closeRaw() // a file without a name goes with its descriptor
		return
	}
	p.Close()
	p.d.RemovePartial(p.path)
}

func (p *Partial) closeRaw() error {
	if err := p.raw.close(); err != nil {
		return p.pathError("close", err)
	}
	return nil
}

func (p *Partial) chmod(mode fs.FileMode) error {
	if p.f != nil {
		return p.f.Chmod(mode)
	}
	if err := p.raw.chmod(mode); err != nil {
		return p.pathError("chmod", err)
	}
	return nil
}

// setTime gives the open file the access and modification time t, or
// fails with errors.ErrUnsupported where only its path can be given one.
func (p *Partial) setTime(t time.Time) error {
	if p.f != nil {
		return setFileTime(p.f, t)
	}
	if err := p.raw.setTime(t); err != nil {
		return p.pathError("futimens", err)
	}
	return nil
}

// pathError words a bare descriptor's error as os.File words its own:
// the operation and where on the receiver's disk the file is, which is
// worked out only when there is an error to tell.
func (p *Partial) pathError(op string, err error) error {
	return &fs.PathError{Op: op, Path: p.Name(), Err: err}
}
