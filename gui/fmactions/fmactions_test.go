package fmactions

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/testkit"
)

// Install writes each file manager's entry where it looks, executable
// where it must be; a second Install changes nothing; an entry the person
// edited is left alone; Remove takes away only Ferry's own.
func TestInstallRemove(t *testing.T) {
	systemRoot = t.TempDir() // no package installed
	defer func() { systemRoot = "/" }()
	home := t.TempDir()
	written, err := Install(home)
	if err != nil || len(written) != len(Files) {
		t.Fatalf("Install: %v, %v", written, err)
	}
	script := filepath.Join(home, ".local/share/nautilus/scripts", Label)
	fi, err := os.Stat(script)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("nautilus script: %v %v", fi, err)
	}
	if fi, _ := os.Stat(filepath.Join(home, ".local/share/nemo/actions/ferry-send.nemo_action")); fi == nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("nemo action: %v", fi)
	}
	if _, err := Install(home); err != nil {
		t.Fatalf("second Install: %v", err)
	}
	caja := filepath.Join(home, ".config/caja/scripts", Label)
	os.WriteFile(caja, []byte("#!/bin/sh\necho mine\n"), 0o755)
	if _, err := Install(home); err == nil || !strings.Contains(err.Error(), "left alone") {
		t.Errorf("edited entry: Install error %v, want one saying it was left alone", err)
	}
	removed, err := Remove(home)
	if err != nil || len(removed) != len(Files)-1 {
		t.Fatalf("Remove: %v, %v", removed, err)
	}
	if b, _ := os.ReadFile(caja); string(b) != "#!/bin/sh\necho mine\n" {
		t.Errorf("Remove touched the person's own script: %q", b)
	}
	if _, err := os.Stat(script); !os.IsNotExist(err) {
		t.Errorf("nautilus script still there: %v", err)
	}
}

// The script hands its arguments to ferry-gui unchanged, spaces, dashes
// and all: run it with a ferry-gui on PATH that prints its arguments.
// With the package installed, the entries it put in system folders are
// not written again for the person: the menu would list them twice.
func TestInstallSkipsSystemWide(t *testing.T) {
	systemRoot = t.TempDir()
	defer func() { systemRoot = "/" }()
	menu := filepath.Join(systemRoot, "usr/share/kio/servicemenus")
	os.MkdirAll(menu, 0o755)
	os.WriteFile(filepath.Join(menu, "ferry-send.desktop"), []byte(DolphinServiceMenu), 0o644)
	home := t.TempDir()
	written, err := Install(home)
	if err != nil || len(written) != len(Files)-1 {
		t.Fatalf("Install: %v, %v", written, err)
	}
	if _, err := os.Stat(filepath.Join(home, ".local/share/kio/servicemenus/ferry-send.desktop")); !os.IsNotExist(err) {
		t.Errorf("the Dolphin menu was written for the person too: %v", err)
	}
}

func TestScriptPassesArguments(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ferry-gui"), []byte("#!/bin/sh\nfor a; do printf '<%s>' \"$a\"; done\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "script"), []byte(Script), 0o755)
	cmd := exec.Command(filepath.Join(dir, "script"), "holiday photo.jpg", "-rf", "ü.txt")
	cmd.Env = append(os.Environ(), "PATH="+dir+":/usr/bin:/bin")
	out, err := cmd.Output()
	if err != nil || string(out) != "<-->"+"<holiday photo.jpg><-rf><ü.txt>" {
		t.Fatalf("script ran ferry-gui with %q (%v)", out, err)
	}
}

// desktop-file-validate finds nothing wrong with the Dolphin service
// menu but what KDE adds to the spec: it knows no Type=Service entry with
// MimeType and Actions, which is what a service menu is (KDE's own
// documentation of service menus). Every other line must pass.
func TestServiceMenuValidates(t *testing.T) {
	testkit.NeedTool(t, "desktop-file-validate", "validating the service menu")
	path := filepath.Join(t.TempDir(), "ferry-send.desktop")
	os.WriteFile(path, []byte(DolphinServiceMenu), 0o644)
	out, _ := exec.Command("desktop-file-validate", path).CombinedOutput()
	if bad := ServiceMenuProblems(string(out)); len(bad) > 0 {
		t.Errorf("desktop-file-validate: %q", bad)
	}
}

// TestSystemFiles: system/ holds exactly the system-wide entries of
// Files (the packages copy the whole tree, so a stray file would ship),
// each naming the menu entry, the icon and ferry-gui's command line.
func TestSystemFiles(t *testing.T) {
	want := map[string]bool{}
	for _, f := range Files {
		if f.System == "" {
			continue
		}
		want[path.Join("system", f.System, f.Name)] = true
		for _, s := range []string{"Name=" + Label, appID, "Exec=ferry-gui -- %F"} {
			if !strings.Contains(f.Text, s) {
				t.Errorf("%s: no %q in\n%s", f.Name, s, f.Text)
			}
		}
	}
	found := 0
	err := fs.WalkDir(system, "system", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		found++
		if !want[p] {
			t.Errorf("%s is in system/ but no entry of Files", p)
		}
		return nil
	})
	if err != nil || found != len(want) || found == 0 {
		t.Errorf("system/ holds %d files, Files %d system-wide entries (%v)", found, len(want), err)
	}
}
