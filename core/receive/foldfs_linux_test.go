//go:build linux

package receive

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/testkit"
)

// The file systems a receiver meets that fold names: each is a small
// image, loop-mounted by the kernel where it has the driver, else by the
// FUSE driver Debian packages (fusefat, exfat-fuse: tests/install-deps.sh
// installs them), and ext4 with casefold only by the kernel. Real
// receivers write onto them over loopback.
func TestClashesOnFoldingFileSystems(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("loop-mounting vfat, exFAT and ext4 casefold images needs root")
	}
	for _, fsys := range []struct {
		name  string
		mount func(t *testing.T) (dir string, unicode bool)
	}{
		{"vfat", mountVfat},
		{"exfat", mountExfat},
		{"ext4-casefold", mountCasefold},
	} {
		t.Run(fsys.name, func(t *testing.T) {
			mnt, unicode := fsys.mount(t)
			for _, overwrite := range []bool{false, true} {
				dest := filepath.Join(mnt, "keep")
				if overwrite {
					dest = filepath.Join(mnt, "overwrite")
				}
				if err := os.Mkdir(dest, 0o755); err != nil {
					t.Fatal(err)
				}
				clashesUnderFolding(t, dest, overwrite, unicode)
			}
		})
	}
}

// clashesUnderFolding offers names that the destination already holds
// in another case or normal form, and checks that each one the file
// system takes for the existing name was saved under "name (1)", with
// nothing existing overwritten, skipped or merged into, and that each it
// keeps apart was saved under its own name. Without unicode the names
// are ASCII (fusefat holds no other).
func clashesUnderFolding(t *testing.T, dest string, overwrite, unicode bool) {
	const nfc, nfd = "caf\u00e9.txt", "cafe\u0301.txt"
	old := map[string]string{
		"Report.txt":      "old report",
		"Photos/keep.jpg": "old photo",
		nfd:               "old café",
		"s.txt":           "old s",
		"Exact.txt":       "old exact",
		"Same.txt":        "same",
		"Docs/Notes.txt":  "old notes",
	}
	offered := map[string]string{
		"report.txt":     "new report",
		"photos/new.jpg": "new photo",
		nfc:              "new café",
		"\u017f.txt":     "new long s",
		"Exact.txt":      "new exact",
		"Same.txt":       "same",
		"Docs/notes.txt": "new notes",
	}
	if !unicode {
		delete(old, nfd)
		delete(offered, nfc)
		delete(offered, "\u017f.txt")
	}
	for p, data := range old {
		writeFile(t, filepath.Join(dest, p), []byte(data))
	}
	src := t.TempDir()
	var items []event.Item
	for p, data := range offered {
		writeFile(t, filepath.Join(src, p), []byte(data))
		if top := place.TopLevel(p); !slices.Contains(items, event.Item{Path: filepath.Join(src, top)}) {
			items = append(items, event.Item{Path: filepath.Join(src, top)})
		}
	}
	// What the file system takes for an existing name, asked before the
	// transfer: the lookup finds something, the listing has no such name.
	aliased := map[string]bool{}
	for p := range offered {
		for q := p; ; {
			dir, name, _ := place.CutLast(q)
			_, err := os.Lstat(filepath.Join(dest, filepath.FromSlash(q)))
			aliased[q] = err == nil && !slices.Contains(listNames(t, filepath.Join(dest, filepath.FromSlash(dir))), name)
			if dir == "" {
				break
			}
			q = dir
		}
	}
	if !aliased["report.txt"] || !aliased["photos"] || !aliased["Docs/notes.txt"] {
		t.Fatalf("the file system under %s does not fold case (%v): the test would show nothing", dest, aliased)
	}
	t.Logf("names this file system folds onto existing ones: %v", aliased)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p := newPair(t, ctx, ReceiverConfig{Dir: dest, Policy: AcceptAll, Overwrite: overwrite})
	if _, serr, _, rerr := p.run(ctx, items...); serr != nil || rerr != nil {
		t.Fatalf("sender: %v, receiver: %v", serr, rerr)
	}

	saved := map[string]event.EntryDone{}
	for _, ev := range eventsOf[event.EntryDone](p.rev) {
		saved[ev.Entry.Path] = ev
	}
	for path, data := range offered {
		ev, ok := saved[path]
		if !ok {
			t.Errorf("%+q: no EntryDone", path)
			continue
		}
		top := place.TopLevel(path)
		switch {
		case path == "Same.txt" && !overwrite:
			if ev.Outcome != event.Skipped || ev.SavedAs != path {
				t.Errorf("%+q identical under its exact name: %v as %+q, want skipped", path, ev.Outcome, ev.SavedAs)
			}
		case aliased[top] || aliased[path]:
			// A folder found only under folding gets a new name as a
			// whole; a file in a folder that merged, one of its own.
			want := place.ClashName(top, 1, top != path) + path[len(top):]
			if !aliased[top] {
				dir, name, _ := place.CutLast(path)
				want = dir + "/" + place.ClashName(name, 1, false)
			}
			if ev.SavedAs != want {
				t.Errorf("%+q is an existing name under folding: saved as %+q, want %+q", path, ev.SavedAs, want)
			}
		case overwrite || old[path] == "":
			if ev.SavedAs != path {
				t.Errorf("%+q saved as %+q, want its own name", path, ev.SavedAs)
			}
		}
		got, err := os.ReadFile(filepath.Join(dest, filepath.FromSlash(ev.SavedAs)))
		if err != nil || string(got) != data {
			t.Errorf("%+q saved as %+q holds %q (%v), want %q", path, ev.SavedAs, got, err, data)
		}
		// The saved name is listed byte for byte, not just found.
		dir, name := filepath.Split(filepath.Join(dest, filepath.FromSlash(ev.SavedAs)))
		if !slices.Contains(listNames(t, dir), name) {
			t.Errorf("%+q: %+q is not listed in %s: %+q", path, name, dir, listNames(t, dir))
		}
	}
	// Every existing file is still there under its own name, unchanged,
	// but for the exact name that Overwrite may replace.
	for path, data := range old {
		got, err := os.ReadFile(filepath.Join(dest, filepath.FromSlash(path)))
		if overwrite && path == "Exact.txt" {
			data = offered[path]
		}
		if err != nil || string(got) != data {
			t.Errorf("existing %+q now holds %q (%v), want %q", path, got, err, data)
		}
		dir, name := filepath.Split(filepath.Join(dest, filepath.FromSlash(path)))
		if !slices.Contains(listNames(t, dir), name) {
			t.Errorf("existing %+q is no longer listed in %s: %+q", path, dir, listNames(t, dir))
		}
	}
	if names := listNames(t, filepath.Join(dest, "Photos")); !slices.Equal(names, []string{"keep.jpg"}) {
		t.Errorf("the existing Photos folder was merged into: %+q", names)
	}
}

func listNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// run runs a command, failing the test with its output.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(bytes.TrimSpace(out))
}

// kernelHas reports whether the running kernel has a file system.
func kernelHas(fstype string) bool {
	b, err := os.ReadFile("/proc/filesystems")
	if err != nil {
		return false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[len(f)-1] == fstype {
			return true
		}
	}
	return false
}

// image makes an empty image file of size bytes and attaches a loop
// device to it, detached again at cleanup.
func image(t *testing.T, size int64, mkfs ...string) (img, loop string) {
	t.Helper()
	img = testkit.SparseFile(t, filepath.Join(t.TempDir(), "fs.img"), size)
	run(t, mkfs[0], append(mkfs[1:], img)...)
	loop = run(t, "losetup", "--find", "--show", img)
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "--detach", loop).CombinedOutput(); err != nil {
			t.Errorf("detaching %s: %v\n%s", loop, err, out)
		}
	})
	return img, loop
}

// mountAt mounts with the command given and unmounts at cleanup (which
// runs before the loop device's, and after the receiver's Close).
func mountAt(t *testing.T, cmd ...string) string {
	t.Helper()
	mnt := t.TempDir()
	run(t, cmd[0], append(cmd[1:], mnt)...)
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v\n%s", mnt, err, out)
		}
	})
	return mnt
}

func needTool(t *testing.T, why string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s needs %s (tests/install-deps.sh installs it): %v", why, tool, err)
		}
	}
}

// mountVfat mounts a vfat image with the kernel's driver, as desktop
// automounters do (utf8, no "quiet"), and where the kernel has none with
// fusefat, which holds ASCII names only.
func mountVfat(t *testing.T) (string, bool) {
	needTool(t, "the vfat test", "mkfs.vfat", "losetup")
	_, loop := image(t, 8<<20, "mkfs.vfat")
	if mnt, ok := kernelMount(t, "vfat", loop, "utf8,shortname=mixed"); ok {
		return mnt, true
	}
	if _, err := exec.LookPath("fusefat"); err != nil {
		t.Skip("as root, but this kernel has no vfat and fusefat is not installed (tests/install-deps.sh installs it)")
	}
	t.Log("this kernel has no vfat: mounting with fusefat, ASCII names only")
	return mountAt(t, "fusefat", "-o", "rw+", loop), false
}

// mountExfat mounts an exFAT image with the kernel's driver, or with
// exfat-fuse where the kernel has none.
func mountExfat(t *testing.T) (string, bool) {
	needTool(t, "the exFAT test", "mkfs.exfat", "losetup")
	_, loop := image(t, 8<<20, "mkfs.exfat")
	if mnt, ok := kernelMount(t, "exfat", loop, "iocharset=utf8"); ok {
		return mnt, true
	}
	if _, err := exec.LookPath("mount.exfat-fuse"); err != nil {
		t.Skip("as root, but this kernel has no exFAT and exfat-fuse is not installed (tests/install-deps.sh installs it)")
	}
	t.Log("this kernel has no exFAT: mounting with exfat-fuse")
	return mountAt(t, "mount.exfat-fuse", loop), true
}

// kernelMount mounts dev with the kernel's driver for fstype; ok is false
// when the kernel has no such driver (mount loads a module if it can).
func kernelMount(t *testing.T, fstype, dev, opts string) (string, bool) {
	t.Helper()
	mnt := t.TempDir()
	out, err := exec.Command("mount", "-t", fstype, "-o", opts, dev, mnt).CombinedOutput()
	if err != nil {
		if !kernelHas(fstype) {
			t.Logf("the kernel has no %s driver: %s", fstype, bytes.TrimSpace(out))
			return "", false
		}
		t.Fatalf("mounting %s as %s: %v\n%s", dev, fstype, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v\n%s", mnt, err, out)
		}
	})
	return mnt, true
}

func mountCasefold(t *testing.T) (string, bool) {
	if _, err := os.Stat("/sys/fs/ext4/features/casefold"); err != nil {
		t.Skip("as root, but this kernel's ext4 has no casefold (built without CONFIG_UNICODE)")
	}
	needTool(t, "the ext4 casefold test", "mkfs.ext4", "losetup", "chattr")
	_, loop := image(t, 8<<20, "mkfs.ext4", "-q", "-O", "casefold", "-E", "encoding=utf8")
	mnt, ok := kernelMount(t, "ext4", loop, "rw")
	if !ok {
		t.Fatal("this kernel has casefold but no ext4")
	}
	// Only folders marked +F fold; the test's destinations go inside.
	cf := filepath.Join(mnt, "casefold")
	if err := os.Mkdir(cf, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "chattr", "+F", cf)
	return cf, true
}
