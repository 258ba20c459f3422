//go:build !js

package pick

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Spool is a private temporary folder for what a front end sends that is
// not a file yet: standard input, a clipboard's image. An offer carries
// every file's size before any byte moves, and a stream's size is known
// only at its end, so such data is written to a file first and sent from
// there as any file, hashed and verified. The folder (0700) is made on
// first use; Close removes it with all it holds, and a later Save makes
// a new one.
type Spool struct {
	prefix string     // of the folder's name
	mu     sync.Mutex // guards dir
	dir    string
}

// NewSpool is a spool whose folder's name starts with prefix (as
// os.MkdirTemp takes it).
func NewSpool(prefix string) *Spool { return &Spool{prefix: prefix} }

// Dir is the spool's folder, made now if it was not.
func (s *Spool) Dir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirLocked()
}

func (s *Spool) dirLocked() (string, error) {
	if s.dir == "" {
		dir, err := os.MkdirTemp("", s.prefix)
		if err != nil {
			return "", err
		}
		s.dir = dir
	}
	return s.dir, nil
}

// Save copies r into a new file of the folder called name, or, when that
// is taken, name with "-1", "-2"... before its extension. The file's mode
// is 0600: the folder is private, and a front end that wants the
// receiver's copy to be an ordinary file says so with a chmod. It
// returns the file's path and how many bytes it holds; on an error the
// file may be left, for Close.
func (s *Spool) Save(name string, r io.Reader) (string, int64, error) {
	s.mu.Lock()
	dir, err := s.dirLocked()
	var f *os.File
	var path string
	if err == nil {
		ext := filepath.Ext(name)
		path = filepath.Join(dir, name)
		for n := 1; ; n++ {
			if _, err := os.Lstat(path); err != nil {
				break
			}
			path = filepath.Join(dir, strings.TrimSuffix(name, ext)+"-"+strconv.Itoa(n)+ext)
		}
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	s.mu.Unlock()
	if err != nil {
		return "", 0, err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, n, err
}

// ClipboardTextName is the name a clipboard's text is sent under.
const ClipboardTextName = "clipboard.txt"

// ClipboardImage saves a clipboard's image (PNG) as
// clipboard-DATE-TIME.png, named after now, the time it was taken, and
// returns its path.
func (s *Spool) ClipboardImage(png []byte, now time.Time) (string, error) {
	path, _, err := s.Save("clipboard-"+now.Format("20060102-150405")+".png", bytes.NewReader(png))
	return path, err
}

// Close removes the folder and all it holds.
func (s *Spool) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
}
