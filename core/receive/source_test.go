package receive

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// streamFS serves another FS's files as bare streams: Read, Stat and
// Close, no io.Seeker and no io.ReaderAt, as a phone app's content
// stream or a browser's file reader is. It counts the opens of files
// (a Stat or a folder's listing is not one).
type streamFS struct {
	fs.FS
	opens atomic.Int32
}

type streamFile struct{ f fs.File }

func (s *streamFS) Open(name string) (fs.File, error) {
	f, err := s.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return f, nil // fs.WalkDir reads folders through fs.ReadDirFile
	}
	s.opens.Add(1)
	return streamFile{f}, nil
}

func (f streamFile) Read(p []byte) (int, error)                { return f.f.Read(p) }
func (f streamFile) Stat() (fs.FileInfo, error)                { return f.f.Stat() }
func (f streamFile) Close() error                              { return f.f.Close() }
func (s *streamFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(s.FS, name) }

func (s *streamFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(s.FS, name) }

var (
	_ fs.ReadDirFS = (*streamFS)(nil)
	_ fs.StatFS    = (*streamFS)(nil)
)

func init() {
	// streamFile must not be a Seeker or a ReaderAt: that is its point.
	var f fs.File = streamFile{}
	if _, ok := f.(io.Seeker); ok {
		panic("streamFile is a Seeker")
	}
	if _, ok := f.(io.ReaderAt); ok {
		panic("streamFile is a ReaderAt")
	}
}

var (
	fsTime  = time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	fsTime2 = time.Date(1999, 12, 31, 23, 59, 58, 5000, time.UTC)
)

func testFS() fstest.MapFS {
	return fstest.MapFS{
		"album":                       {Mode: fs.ModeDir | 0o755, ModTime: fsTime},
		"album/a.txt":                 {Data: []byte("hello from memory"), Mode: 0o644, ModTime: fsTime},
		"album/sub":                   {Mode: fs.ModeDir | 0o750, ModTime: fsTime2},
		"album/sub/big.bin":           {Data: pattern(3*transfer.MaxChunk+1, 7), Mode: 0o600, ModTime: fsTime2},
		"album/sub/empty":             {Data: nil, Mode: 0o644, ModTime: fsTime},
		"album/empty dir":             {Mode: fs.ModeDir | 0o755, ModTime: fsTime},
		"album/link":                  {Data: []byte("a.txt"), Mode: fs.ModeSymlink | 0o777},
		"album/deep/er/still/file.md": {Data: []byte("# deep"), Mode: 0o644, ModTime: fsTime},
		"single.bin":                  {Data: pattern(transfer.MaxChunk+3, 8), Mode: 0o644, ModTime: fsTime2},
	}
}

// checkFromFS checks that dst/as holds exactly fsys's tree at root:
// bytes, modes and the times the FS gave (a folder fstest made up has
// none, so only its existence is checked).
func checkFromFS(t *testing.T, fsys fs.FS, root, dst, as string) {
	t.Helper()
	seen := 0
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			if _, err := os.Lstat(filepath.Join(dst, as, p[len(root):])); err == nil {
				t.Errorf("%s: a %v was sent", p, d.Type())
			}
			return nil
		}
		seen++
		rel := as
		if p != root {
			rel = as + "/" + p[len(root)+1:]
			if root == "." {
				rel = as + "/" + p
			}
		}
		si, _ := d.Info()
		di, err := os.Stat(filepath.Join(dst, filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if d.IsDir() {
			if !di.IsDir() {
				t.Errorf("%s is not a folder", rel)
			}
			return nil
		}
		want, _ := fs.ReadFile(fsys, p)
		got, _ := os.ReadFile(filepath.Join(dst, filepath.FromSlash(rel)))
		if !bytes.Equal(want, got) {
			t.Errorf("%s: %d bytes, want %d, or different", rel, len(got), len(want))
		}
		if di.Mode().Perm() != si.Mode().Perm() {
			t.Errorf("%s: mode %v, want %v", rel, di.Mode().Perm(), si.Mode().Perm())
		}
		if !di.ModTime().Equal(si.ModTime()) {
			t.Errorf("%s: time %v, want %v", rel, di.ModTime(), si.ModTime())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("nothing compared")
	}
}

// TestSendFromFS: a tree in memory (fstest.MapFS), and the same tree
// behind a wrapper with no Seek or ReadAt, land byte-identical with
// their modes and times, symlinks left out, a top-level entry renamed
// by Item.Name, and a whole FS sent from ".".
func TestSendFromFS(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys fs.FS
	}{
		{"MapFS", testFS()},
		{"stream", &streamFS{FS: testFS()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			sub, err := fs.Sub(tc.fsys, "album/sub")
			if err != nil {
				t.Fatal(err)
			}
			p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll})
			_, serr, rsum, rerr := p.run(ctx,
				event.Item{FS: tc.fsys, Path: "album"},
				event.Item{FS: tc.fsys, Path: "single.bin", Name: "renamed.bin"},
				event.Item{FS: sub, Path: ".", Name: "whole"})
			if serr != nil || rerr != nil {
				t.Fatalf("send: %v; receive: %v", serr, rerr)
			}
			dst := p.r.cfg.Dir
			checkFromFS(t, tc.fsys, "album", dst, "album")
			checkFromFS(t, tc.fsys, "single.bin", dst, "renamed.bin")
			checkFromFS(t, sub, ".", dst, "whole")
			fi, err := os.Stat(filepath.Join(dst, "album", "sub"))
			if err != nil || fi.Mode().Perm() != 0o750 || !fi.ModTime().Equal(fsTime2) {
				t.Errorf("album/sub: %v, %v", fi, err)
			}
			if names := listDir(t, dst); len(names) != 3 {
				t.Errorf("destination holds %v", names)
			}
			if rsum.Bytes == 0 {
				t.Error("no bytes received")
			}
		})
	}
}

// TestResumeFromFS: a transfer from an FS cut half-way resumes from the
// receiver's partial file, with a seekable source (MapFS's files have
// Seek and ReadAt) and with a bare stream; and when the partial's bytes
// no longer match, the sender starts the file over (by Seek, or by
// opening the stream again) and the result is still exact.
func TestResumeFromFS(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream bool
	}{{"seekable", false}, {"stream", true}} {
		t.Run(tc.name, func(t *testing.T) {
			data := pattern(4*transfer.MaxChunk+11, 3)
			mfs := fstest.MapFS{"movie.bin": {Data: data, Mode: 0o644, ModTime: fsTime}}
			var fsys fs.FS = mfs
			sfs := &streamFS{FS: mfs}
			if tc.stream {
				fsys = sfs
			}
			dest := t.TempDir()
			cutSend := func(cut int64) (event.Summary, error, error) {
				p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
				p.send.Timeout = 5 * time.Second
				if cut > 0 {
					var written atomic.Int64
					p.send.Dialer = func(ctx context.Context, addr string) (net.Conn, error) {
						var d net.Dialer
						c, err := d.DialContext(ctx, "tcp", addr)
						if err != nil {
							return nil, err
						}
						return &cutConn{Conn: c, left: cut, written: &written}, nil
					}
				}
				cfg := p.send
				cfg.Items = []event.Item{{FS: fsys, Path: "movie.bin"}}
				sum, serr := send.Send(t.Context(), cfg)
				return sum, serr, p.serveErr(t)
			}
			partial := func() string {
				t.Helper()
				des, _ := os.ReadDir(filepath.Join(dest, place.PartialDir))
				if len(des) != 1 {
					t.Fatalf("partial folder holds %v", des)
				}
				return filepath.Join(dest, place.PartialDir, des[0].Name())
			}

			// Cut, then resume.
			if _, serr, rerr := cutSend(2*transfer.MaxChunk + 5000); serr == nil || rerr == nil {
				t.Fatalf("the cut transfer succeeded: %v / %v", serr, rerr)
			}
			fi, err := os.Stat(partial())
			if err != nil || fi.Size() == 0 {
				t.Fatalf("no partial kept: %v", err)
			}
			kept := fi.Size()
			sum, serr, rerr := cutSend(0)
			if serr != nil || rerr != nil {
				t.Fatalf("resume: %v / %v", serr, rerr)
			}
			if sum.ResumedBytes != kept || sum.Bytes != int64(len(data))-kept {
				t.Errorf("resumed %d, sent %d; the partial held %d of %d", sum.ResumedBytes, sum.Bytes, kept, len(data))
			}
			if len(sum.Entries) != 1 || sum.Entries[0].Outcome != event.Resumed {
				t.Errorf("entries %+v", sum.Entries)
			}
			checkFromFS(t, mfs, "movie.bin", dest, "movie.bin")
			os.Remove(filepath.Join(dest, "movie.bin"))

			// Cut, spoil the partial, send again: the prefix hash does not
			// match, and the sender starts over.
			if _, serr, rerr := cutSend(2*transfer.MaxChunk + 5000); serr == nil || rerr == nil {
				t.Fatalf("the second cut transfer succeeded: %v / %v", serr, rerr)
			}
			part := partial()
			b, err := os.ReadFile(part)
			if err != nil || len(b) < 100 {
				t.Fatalf("partial: %d bytes, %v", len(b), err)
			}
			b[50] ^= 1
			if err := os.WriteFile(part, b, 0o600); err != nil {
				t.Fatal(err)
			}
			opens := sfs.opens.Load()
			sum, serr, rerr = cutSend(0)
			if serr != nil || rerr != nil {
				t.Fatalf("send after a spoilt partial: %v / %v", serr, rerr)
			}
			if sum.ResumedBytes != 0 || sum.Bytes != int64(len(data)) || sum.Entries[0].Outcome != event.Received {
				t.Errorf("resumed %d, sent %d, %v: want the whole %d, received", sum.ResumedBytes, sum.Bytes, sum.Entries[0].Outcome, len(data))
			}
			if tc.stream {
				// One open to hash the prefix, one to start over.
				if n := sfs.opens.Load() - opens; n != 2 {
					t.Errorf("the stream was opened %d times, want 2", n)
				}
			}
			checkFromFS(t, mfs, "movie.bin", dest, "movie.bin")
			if names := listDir(t, dest); len(names) != 1 {
				t.Errorf("destination holds %v", names)
			}
		})
	}
}

// TestSendTopLevelSymlink: a symlink the person picked is followed, to a
// folder as to a file (the OS disk is read through os.DirFS, whose Stat
// and ReadDir follow it); inside the folder a symlink is still left out.
func TestSendTopLevelSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("windows: creating a symlink needs a privilege")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	writeFile(t, filepath.Join(real, "in.txt"), []byte("inside"))
	writeFile(t, filepath.Join(dir, "file.txt"), []byte("a file"))
	if err := os.Symlink(filepath.Join(dir, "file.txt"), filepath.Join(real, "inner link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "folder link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "file.txt"), filepath.Join(dir, "file link")); err != nil {
		t.Fatal(err)
	}
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll})
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: filepath.Join(dir, "folder link")}, event.Item{Path: filepath.Join(dir, "file link")})
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	dst := p.r.cfg.Dir
	if b, err := os.ReadFile(filepath.Join(dst, "folder link", "in.txt")); err != nil || string(b) != "inside" {
		t.Errorf("folder link/in.txt: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "file link")); err != nil || string(b) != "a file" {
		t.Errorf("file link: %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "folder link", "inner link")); err == nil {
		t.Error("a symlink inside the folder was sent")
	}
}
