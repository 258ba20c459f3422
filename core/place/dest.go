package place

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"lukechampine.com/blake3"
)

// Dest is the receiver's only way to touch the disk. Every call goes
// through an os.Root opened on the destination, so no path, however it
// was crafted, and no symlink, however it was planted, reaches outside it;
// CheckPath (the sessions check every offered path with it) and the
// symlink checks in MapTops come first so that a hostile offer is
// refused with a clear error before os.Root has to stop it. A Dest is
// one session's: it is not safe for concurrent use, but for the split
// that PreparePartialDir allows.
type Dest struct {
	root      *os.Root
	overwrite bool
	peerFP    string
	partialOK bool
	// partialPrivate: the partial folder is this process's user's and
	// admits nobody else (no group or other bits), so what is in it is
	// nobody else's to read whatever its own mode.
	partialPrivate bool
	mask           fs.FileMode // permission bits a new file loses here; see createMask
	maskOK         bool
	listed         map[string]map[string]bool // folder -> its names on disk, see exact
	asked          map[string]bool            // folders RegularSize looked in once: the next look lists them
	hashIn         []byte                     // partialName's, kept: a name costs no allocation but its string

	// Handles on folders, opened through root and kept, so that a file's
	// creation and placement are one call relative to its folder instead
	// of a walk from the destination per call (see kept.go).
	partDir *os.File // the partial folder
	lastDir *os.File // the folder a file was last placed in
	lastAt  string   // lastDir's path under the destination
	// unnamed: new files that come whole are made without a name
	// (unnamed_linux.go); set by PreparePartialDir.
	unnamed bool
}

// OpenDest opens the destination folder dir for one transfer from the
// peer whose key's fingerprint is peerFP (which names its partial
// files). With overwrite, Place replaces a file of the same name.
func OpenDest(dir string, overwrite bool, peerFP string) (*Dest, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening destination: %w", err)
	}
	return &Dest{root: r, overwrite: overwrite, peerFP: peerFP}, nil
}

// Close closes the destination folder and the folders kept open in it.
func (d *Dest) Close() error {
	d.dropKept()
	return d.root.Close()
}

// RemovePartialDir removes the partial folder when the transfers left it
// empty (a successful receive leaves nothing behind but what was sent);
// one that holds partial files stays for their resume, and rmdir refuses
// a folder that is not empty, so no check can race with it. Only the
// last session with the folder open may call it: another session may be
// about to create a partial file in it.
func (d *Dest) RemovePartialDir() {
	if fi, err := d.root.Lstat(PartialDir); err == nil && fi.IsDir() {
		d.root.Remove(PartialDir) // fails, as it should, unless empty
	}
}

// SpareName names a partial file of no entry's: for a file whose own
// partial file another session is writing. Nothing resumes it, so the
// session removes it (RemovePartial) when it fails.
func (d *Dest) SpareName() string {
	var nonce [12]byte
	rand.Read(nonce[:])
	return PartialDir + "/spare-" + hex.EncodeToString(nonce[:]) + ".part"
}

// MapTops decides where each top-level folder of the offer goes, given
// the paths of the offer's folders in its order. A folder
// merges into an existing folder of the same name (so that an interrupted
// folder transfer resumes, and files already there are skipped); when the
// name, or a subfolder the offer needs, is taken by something that is not
// a folder, the whole top-level folder gets the first free "name (n)". A
// symlink where the offer needs a folder is refused: Ferry never writes
// through a link. It returns the renamed tops only.
func (d *Dest) MapTops(folders []string) (map[string]string, error) {
	conflict := make(map[string]bool)
	for _, p := range folders {
		top := TopLevel(p)
		if conflict[top] {
			continue
		}
		fi, err := d.root.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			// ENOTDIR: a file sits where a parent folder should be.
			conflict[top] = true
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("the destination has a symlink at %q: %w", p, ErrRefusedPath)
		case !fi.IsDir(), !d.exact(p):
			// A folder that is the offered one only under case folding
			// or normalization is someone else's: never merge into it.
			conflict[top] = true
		}
	}
	// The person may take minutes to accept: list folders afresh after.
	d.listed = nil
	if len(conflict) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(conflict))
	for top := range conflict {
		name, err := d.freeName(top, true)
		if err != nil {
			return nil, err
		}
		m[top] = name
	}
	return m, nil
}

// freeName returns the first of name, "name (1)", "name (2)"... that does
// not exist (for a top-level folder).
func (d *Dest) freeName(name string, isDir bool) (string, error) {
	for n := 1; n < 10000; n++ {
		cand := ClashName(name, n, isDir)
		if err := checkName(cand); err != nil {
			return "", fmt.Errorf("finding a free name for %q: %w", name, err)
		}
		if _, err := d.root.Lstat(cand); errors.Is(err, fs.ErrNotExist) {
			return cand, nil
		}
	}
	return "", fmt.Errorf("no free name for %q", name)
}

// FinalPath applies MapTops' mapping to an offered path.
func FinalPath(p string, tops map[string]string) string {
	top := TopLevel(p)
	if to, ok := tops[top]; ok {
		return to + p[len(top):]
	}
	return p
}

// Mkdir creates an offered folder with its final mode: the offered one,
// masked as any new file here is (createMask), the owner's rwx always
// kept so that this and later transfers can write into it. existed
// reports that it was already there (and is a folder, not a link:
// MapTops checked); such a folder is left exactly as it is. The mode is
// set at creation, not at the end, so that a folder left by an
// interrupted transfer has it too.
func (d *Dest) Mkdir(p string, mode fs.FileMode) (existed bool, err error) {
	mask, err := d.createMask()
	if err != nil {
		return false, err
	}
	err = d.root.Mkdir(p, mode.Perm()&^mask|0o700)
	if err == nil {
		return false, nil
	}
	if errors.Is(err, fs.ErrExist) {
		fi, lerr := d.root.Lstat(p)
		if lerr == nil && fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
			return true, nil
		}
	}
	return false, fmt.Errorf("creating folder %q: %w", p, DiskError(err))
}

// SetDirTime gives a folder this transfer created the offered time, once
// its files are in (writing inside a folder changes its time). A folder
// that existed is never passed here: its time is the receiver's.
func (d *Dest) SetDirTime(p string, modTime time.Time) error {
	if modTime.IsZero() {
		return nil
	}
	if err := d.root.Chtimes(p, modTime, modTime); err != nil && !attrNotKept(err) {
		return fmt.Errorf("setting time of %q: %w", p, err)
	}
	return nil
}

// createMask returns the permission bits that this system takes away
// from a file created in the destination: the process's umask, or what a
// default ACL of the partial folder says instead. It is read once per
// transfer by creating a file that asks for every bit and looking at what
// it got. Reading the umask directly (umask(2)) means setting it, which
// for a moment changes it for every goroutine of the process: a GUI
// saving a file meanwhile would create it world-writable.
func (d *Dest) createMask() (fs.FileMode, error) {
	if d.maskOK {
		return d.mask, nil
	}
	if err := d.ensurePartialDir(); err != nil {
		return 0, err
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	p := PartialDir + "/mode-" + hex.EncodeToString(nonce[:])
	f, err := d.root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o777)
	if err != nil {
		return 0, fmt.Errorf("reading the file creation mask: %w", DiskError(err))
	}
	fi, err := f.Stat()
	f.Close()
	d.root.Remove(p)
	if err != nil {
		return 0, fmt.Errorf("reading the file creation mask: %w", err)
	}
	d.mask, d.maskOK = 0o777&^fi.Mode().Perm(), true
	return d.mask, nil
}

// PartialName names the partial file of an offered file (its path, size
// and modification time). It depends on the sender's key, the path, the
// size and the modification time, so only the same file from the same
// device resumes it; the prefix hash check then proves the bytes are the
// same.
func (d *Dest) PartialName(path string, size int64, modTime time.Time) string {
	name := d.partialName(path, size, modTime)
	return string(name[:])
}

// partialNameLen is the length of every PartialName.
const partialNameLen = len(PartialDir) + 1 + 32 + len(".part")

// partialName is PartialName before it becomes a string, which a lookup
// needs no copy of.
func (d *Dest) partialName(path string, size int64, modTime time.Time) [partialNameLen]byte {
	var name [partialNameLen]byte
	d.hashIn, name = partialNameIn(d.hashIn[:0], d.peerFP, path, size, modTime)
	return name
}

// partialNameIn is partialName joining the fields in buf, which it
// returns with them.
func partialNameIn(buf []byte, peerFP, path string, size int64, modTime time.Time) ([]byte, [partialNameLen]byte) {
	// One hash of the fields joined, not a hasher fed each: a receiver
	// names a partial file per offered file, 100,000 for the largest
	// offer, and a hasher each was kilobytes of garbage per name. The
	// fields are joined in the Dest's own buffer: one on the stack went
	// to the heap (the hash takes it), an allocation a name. BLAKE3's
	// 16-byte output is the first 16 bytes of its 32-byte one, so the
	// names are those of earlier versions and their partial files resume.
	b := append(buf, peerFP...)
	b = append(b, 0)
	b = append(b, path...)
	b = append(b, 0)
	b = strconv.AppendInt(b, size, 10)
	b = append(b, 0)
	if !modTime.IsZero() {
		b = strconv.AppendInt(b, modTime.UnixNano(), 10)
	}
	sum := blake3.Sum256(b)
	var name [partialNameLen]byte
	n := copy(name[:], PartialDir+"/")
	n += hex.Encode(name[n:], sum[:16])
	copy(name[n:], ".part")
	return b, name
}

// PreparePartialDir makes the partial folder, or checks the one there,
// and opens it, failing as the first OpenPartial would. After it, and
// only then, the Dest may be used by two goroutines at once, split this
// way: one names, opens, writes and removes partial files (PartialName,
// SpareName, OpenPartial, a Partial's Write and Close, RemovePartial),
// the other finishes and places them (Finish, Place). What both reach
// is set up here and only read after; what each changes is its own.
func (d *Dest) PreparePartialDir() error {
	if _, err := d.partialFolder(); err != nil {
		if d.partialOK {
			return fmt.Errorf("opening partial file: %w", DiskError(err))
		}
		return err
	}
	// A file without a name is named by a link, which cannot replace.
	d.unnamed = !d.overwrite && d.probeUnnamed()
	return nil
}

func (d *Dest) ensurePartialDir() error {
	if d.partialOK {
		return nil
	}
	if err := d.root.Mkdir(PartialDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating %s: %w", PartialDir, DiskError(err))
	}
	fi, err := d.root.Lstat(PartialDir)
	if err != nil {
		return fmt.Errorf("checking %s: %w", PartialDir, err)
	}
	if !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 {
		return &inTheWay{fmt.Errorf("%s in the destination is not a folder: %w", PartialDir, ErrRefusedPath)}
	}
	d.partialOK = true
	d.partialPrivate = ownFolder(fi) && fi.Mode().Perm()&0o077 == 0
	return nil
}

// RegularSize returns the size of a regular file at p, or -1 when there
// is none (missing, a folder, a link, or a file whose name is p only
// under the file system's case folding or normalization).
func (d *Dest) RegularSize(p string) int64 {
	if !d.mayHold(p) {
		return -1
	}
	fi, err := d.root.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || !d.exact(p) {
		return -1
	}
	return fi.Size()
}

// PartialSize is RegularSize of the partial file PartialName names. The
// receiver asks it of every offered file, and most have none. The partial
// folder is listed at the first question, not looked in first as other
// folders are (mayHold): it is this package's own, and holds no more
// than the partial files transfers left. When it holds none, no name is
// made at all; else a name is looked up without becoming a string.
func (d *Dest) PartialSize(path string, size int64, modTime time.Time) int64 {
	names, ok := d.listed[PartialDir]
	if !ok {
		names = d.list(PartialDir)
		if d.listed == nil {
			d.listed = make(map[string]map[string]bool)
		}
		d.listed[PartialDir] = names
	}
	if names != nil && len(names) == 0 {
		return -1
	}
	name := d.partialName(path, size, modTime)
	if names != nil && !names[string(name[len(PartialDir)+1:])] {
		return -1
	}
	return d.RegularSize(string(name[:]))
}

// exact reports whether the folder holding p lists p's name byte for
// byte. It is asked only after a lookup of p found something: on a
// case-insensitive or normalizing file system (NTFS, APFS, exFAT, vfat,
// ext4 casefold) that may be "Report.txt" for "report.txt", NFD "café"
// for NFC "café", or an 8.3 alias, which Ferry treats as a clash, never
// as the same file to overwrite, skip or merge into. Only the directory
// listing has the stored name, so each folder is listed once per
// transfer, when first needed (a cost in proportion to what the
// receiver's own folders hold, not to what a peer sends). A folder that
// cannot be listed counts as a clash, which loses nothing.
func (d *Dest) exact(p string) bool {
	dir, name, ok := CutLast(p)
	if !ok {
		dir = "."
	}
	names, ok := d.listed[dir]
	if !ok {
		names = d.list(dir)
		if d.listed == nil {
			d.listed = make(map[string]map[string]bool)
		}
		d.listed[dir] = names
	}
	return names[name]
}

// mayHold reports whether p's folder may hold p: false only when the
// folder's listing, taken once per transfer, has no such name. The
// receiver asks about every offered file before it is sent, and most
// are not there: one listing per folder answers them all where a lookup
// each would walk every path from the destination. The first question
// about a folder is a lookup still, so that one file offered into a
// large folder (the download folder) does not cost its listing.
func (d *Dest) mayHold(p string) bool {
	dir, name, ok := CutLast(p)
	if !ok {
		dir = "."
	}
	names, ok := d.listed[dir]
	if !ok {
		if !d.asked[dir] {
			if d.asked == nil {
				d.asked = make(map[string]bool)
			}
			d.asked[dir] = true
			return true
		}
		names = d.list(dir)
		if d.listed == nil {
			d.listed = make(map[string]map[string]bool)
		}
		d.listed[dir] = names
	}
	// A folder that could not be listed (nil) may hold anything.
	return names == nil || names[name]
}

// unlist forgets the listing of p's folder, so that exact lists it again.
func (d *Dest) unlist(p string) {
	dir, _, ok := CutLast(p)
	if !ok {
		dir = "."
	}
	delete(d.listed, dir)
}

// list returns the names in dir, none when it does not exist, or nil
// when it cannot be read.
func (d *Dest) list(dir string) map[string]bool {
	f, err := d.root.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}
	}
	if err != nil {
		return nil
	}
	defer f.Close()
	names := make(map[string]bool)
	for {
		batch, err := f.Readdirnames(256)
		for _, n := range batch {
			names[n] = true
		}
		if err == io.EOF {
			return names
		}
		if err != nil {
			return nil
		}
	}
}

// Open opens p under the destination for reading: a file the
// receiver has, or a partial file, to hash what it holds.
func (d *Dest) Open(p string) (*os.File, error) { return d.root.Open(p) }

// OpenPartial opens an entry's partial file (PartialName, or SpareName)
// for writing at offset, creating it (0600) if it is not there. mode is
// the offered mode, which Finish will give it.
func (d *Dest) OpenPartial(p string, offset int64, mode fs.FileMode) (*Partial, error) {
	if err := d.ensurePartialDir(); err != nil {
		return nil, err
	}
	if offset == 0 {
		// Most partial files are new: created in one call in the kept
		// partial folder, and a file that O_EXCL created is a regular
		// one. One that is there already is truncated below, as before.
		// In a partial folder nobody else can enter, the 0600 that keeps
		// unverified bytes from other people is the folder's to keep,
		// so a file whose mode leaves it the owner's to read and write
		// (for a resume) is created with that mode, masked by the
		// system as Finish would mask it, and Finish does not set it
		// again: a call less a file.
		perm := fs.FileMode(0o600)
		if d.partialPrivate && mode.Perm()&0o600 == 0o600 {
			perm = mode.Perm()
		}
		if f, err := d.createPartial(p, perm); f != nil || err != nil {
			return f, err
		}
	}
	if fi, err := d.root.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return nil, &inTheWay{fmt.Errorf("partial file %q is not a regular file: %w", p, ErrRefusedPath)}
	}
	flag := os.O_WRONLY | os.O_CREATE
	if offset == 0 {
		flag |= os.O_TRUNC
	}
	f, err := d.root.OpenFile(p, flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening partial file: %w", DiskError(err))
	}
	if offset > 0 {
		if err := f.Truncate(offset); err != nil {
			f.Close()
			return nil, fmt.Errorf("truncating partial file: %w", DiskError(err))
		}
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("seeking partial file: %w", err)
		}
	}
	return &Partial{f: f, path: p, d: d}, nil
}

// RemovePartial removes partial file p: a spare whose transfer failed,
// or one whose bytes did not verify. (A file without a name goes when
// it is closed: see Partial.Discard.)
func (d *Dest) RemovePartial(p string) { d.root.Remove(p) }

// Finish closes f, the verified partial file p, with the offered mode,
// masked as any new file here is (createMask), and the offered time. The
// partial was created 0600 so that nobody reads it before it is
// verified, unless the partial folder keeps everyone out (OpenPartial):
// then it has its mode already. Both are set on the open file where the
// OS can (the time with futimens on Linux), not through p: a walk from
// the destination each. A file without a name (OpenUnnamed) stays open
// for Place, which names it; closed, it would be gone.
func (d *Dest) Finish(f *Partial, p string, mode fs.FileMode, modTime time.Time) error {
	mask, err := d.createMask()
	if err != nil {
		f.Close()
		return err
	}
	// A file created with its mode has it, masked by the system as the
	// mask says.
	if f.perm == 0 || f.perm != mode.Perm() {
		if err := f.chmod(mode.Perm() &^ mask); err != nil && !attrNotKept(err) {
			f.Close()
			return fmt.Errorf("setting mode: %w", err)
		}
	}
	timed := modTime.IsZero()
	if !timed {
		switch err := f.setTime(modTime); {
		case err == nil:
			timed = true
		case errors.Is(err, errors.ErrUnsupported):
		case attrNotKept(err):
			timed = true
		default:
			f.Close()
			return fmt.Errorf("setting time: %w", err)
		}
	}
	if f.unnamed {
		return nil // timed: a bare descriptor's futimens never defers to a path
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing partial file: %w", DiskError(err))
	}
	if !timed {
		if err := d.root.Chtimes(p, modTime, modTime); err != nil && !attrNotKept(err) {
			return fmt.Errorf("setting time: %w", err)
		}
	}
	return nil
}

// Place moves f, a verified partial file that Finish finished, to its
// final name and returns the name used, and whether it replaced a file
// (with overwrite); a file without a name is named there instead, by a
// link, and closed. Without overwrite it never replaces anything: it
// claims the name (see claim) and tries "name (1).ext", "name (2).ext"...
// in the same folder. With overwrite it first claims the name too, and
// only when a file of exactly that name is there renames over it, never
// over a folder, and never over a file that has the name only under
// folding (see exact). So
// whether a placement replaced a file is the answer of the step that
// placed it: of sessions placing one name at once, the first placed
// replaced nothing and each later one replaced the one before, and
// without overwrite the later get "name (1).ext".
func (d *Dest) Place(f *Partial, final string) (saved string, replaced bool, err error) {
	if f.unnamed {
		return d.placeUnnamed(f, final)
	}
	partial := f.path
	if d.overwrite {
		ok, err := d.claim(partial, final)
		if err != nil {
			return "", false, err
		}
		if ok {
			return final, false, nil
		}
		fi, lerr := d.root.Lstat(final)
		if lerr == nil && !fi.IsDir() && !d.exact(final) {
			// Listed before another session placed it, maybe.
			d.unlist(final)
		}
		if lerr == nil && !fi.IsDir() && d.exact(final) {
			if err := d.root.Rename(partial, final); err == nil {
				return final, true, nil
			}
		}
	}
	saved, err = d.freeNameFor(final, func(cand string) (bool, error) { return d.claim(partial, cand) })
	return saved, false, err
}

// freeNameFor asks claim for final, then "name (1).ext", "name
// (2).ext"... in the same folder, until it takes one, and returns it.
func (d *Dest) freeNameFor(final string, claim func(cand string) (bool, error)) (string, error) {
	dir, name, nested := CutLast(final)
	for n := 0; n < 10000; n++ {
		cand := final
		if n > 0 {
			alt := ClashName(name, n, false)
			if err := checkName(alt); err != nil {
				return "", fmt.Errorf("finding a free name for %q: %w", final, err)
			}
			cand = alt
			if nested {
				cand = dir + "/" + alt
			}
		}
		ok, err := claim(cand)
		if err != nil {
			return "", err
		}
		if ok {
			return cand, nil
		}
	}
	return "", fmt.Errorf("no free name for %q", final)
}

// placeUnnamed names the file without a name f final, or "name (1).ext"
// and on as Place does (never with overwrite: see PreparePartialDir),
// and closes it. A file system that reports a write's failure only at
// the close (none that makes files without names is known to) would
// leave a named file short: its name is taken back then.
func (d *Dest) placeUnnamed(f *Partial, final string) (string, bool, error) {
	saved, err := d.freeNameFor(final, func(cand string) (bool, error) {
		switch err := d.linkNoReplace(f, cand); {
		case err == nil:
			return true, nil
		case errors.Is(err, fs.ErrExist):
			return false, nil
		default:
			return false, fmt.Errorf("moving into place: %w", DiskError(err))
		}
	})
	if err != nil {
		f.Close() // it stays a partial file
		return "", false, err
	}
	if cerr := f.closeRaw(); cerr != nil {
		d.unlinkPlaced(saved)
		return "", false, fmt.Errorf("closing partial file: %w", DiskError(cerr))
	}
	return saved, false, nil
}

// claim moves partial to name unless something is there already, and
// reports whether it did. The step that places the file is the one that
// finds the name taken, so two sessions never claim one name: a rename
// that cannot replace (renameNoReplace: renameat2's RENAME_NOREPLACE on
// Linux, renamex_np's RENAME_EXCL on darwin), one call relative to the
// kept folders; where the file system does not take that flag (some
// FUSE file systems) or the OS has no such rename, a hard link, which
// fails rather than replace, and the partial file's removal. Only where
// neither exists (FAT under FUSE, other systems) is the name checked
// first and the file renamed after, and a file placed between the two
// by another session would be replaced.
func (d *Dest) claim(partial, name string) (bool, error) {
	switch err := d.renameNoReplace(partial, name); {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		return false, nil
	case !errors.Is(err, errors.ErrUnsupported):
		return false, fmt.Errorf("moving into place: %w", DiskError(err))
	}
	err := d.root.Link(partial, name)
	if err == nil {
		if err := d.root.Remove(partial); err != nil {
			return false, fmt.Errorf("removing partial file: %w", err)
		}
		return true, nil
	}
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if _, lerr := d.root.Lstat(name); lerr == nil {
		return false, nil
	} else if !errors.Is(lerr, fs.ErrNotExist) {
		return false, fmt.Errorf("checking %q: %w", name, lerr)
	}
	if err := d.root.Rename(partial, name); err != nil {
		return false, fmt.Errorf("moving into place: %w", DiskError(err))
	}
	return true, nil
}
