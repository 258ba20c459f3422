package main

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinuxPackages builds the .deb and .rpm of both packages from a real
// ELF binary (the system's small `true`, linked to glibc like ferry-gui) and reads them back with Debian's and
// RPM's own tools, as a person installing them would meet them. The
// installing itself needs root and is tests/dist-check.sh's (make
// dist-check).
func TestLinuxPackages(t *testing.T) {
	for _, tool := range []string{"dpkg-deb", "rpm", "desktop-file-validate"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed: run tests/install-deps.sh (%v)", tool, err)
		}
	}
	bin := systemELF(t)
	r := testRelease(t)
	r.version = "v1.2.3-4-gabc1234"

	for _, spec := range []pkgSpec{cliPackage, guiPackage} {
		deb, err := r.pkg(spec, "amd64", bin, "deb")
		if err != nil {
			t.Fatal(err)
		}
		if want := spec.name + "_1.2.3+git.4.gabc1234-1_amd64.deb"; deb != want {
			t.Errorf("deb named %q, want %q", deb, want)
		}
		debPath := filepath.Join(r.dir, deb)
		fields := runTool(t, "dpkg-deb", "-f", debPath, "Package", "Version", "Architecture", "Depends")
		if !strings.Contains(fields, "Package: "+spec.name+"\n") || !strings.Contains(fields, "Version: 1.2.3+git.4.gabc1234-1\n") ||
			!strings.Contains(fields, "Architecture: amd64\n") {
			t.Errorf("%s control fields:\n%s", deb, fields)
		}
		// Depends follows what the binary links, glibc's version included.
		if !strings.Contains(fields, "Depends: libc6 (>= 2.") {
			t.Errorf("%s: Depends lacks glibc:\n%s", deb, fields)
		}

		want := []string{"./usr/bin/" + spec.name, "./usr/share/doc/" + spec.name + "/copyright", "./usr/share/doc/" + spec.name + "/README.md"}
		if spec.desktop {
			want = append(want,
				"./usr/share/applications/"+appID+".desktop",
				"./usr/share/icons/hicolor/scalable/apps/"+appID+".svg",
				"./usr/share/icons/hicolor/48x48/apps/"+appID+".png",
				"./usr/share/icons/hicolor/256x256/apps/"+appID+".png",
				"./usr/share/nemo/actions/ferry-send.nemo_action",
				"./usr/share/kio/servicemenus/ferry-send.desktop")
		}
		if spec.service {
			want = append(want, "."+serviceUnit)
		}
		list := runTool(t, "dpkg-deb", "-c", debPath)
		for _, w := range want {
			if !strings.Contains(list, " "+w+"\n") {
				t.Errorf("%s lacks %s:\n%s", deb, w, list)
			}
		}
		if !strings.Contains(list, "-rwxr-xr-x root/root") {
			t.Errorf("%s: the binary is not root-owned and executable:\n%s", deb, list)
		}

		if spec.desktop {
			x := t.TempDir()
			runTool(t, "dpkg-deb", "-x", debPath, x)
			runTool(t, "desktop-file-validate", filepath.Join(x, "usr/share/applications", appID+".desktop"))
		}

		rpmName, err := r.pkg(spec, "amd64", bin, "rpm")
		if err != nil {
			t.Fatal(err)
		}
		if want := spec.name + "-1.2.3+git.4.gabc1234-1.x86_64.rpm"; rpmName != want {
			t.Errorf("rpm named %q, want %q", rpmName, want)
		}
		rpmPath := filepath.Join(r.dir, rpmName)
		info := runTool(t, "rpm", "-qp", "--nosignature", "--queryformat", "%{NAME} %{VERSION}-%{RELEASE} %{ARCH} %{LICENSE}\n", rpmPath)
		if info != spec.name+" 1.2.3+git.4.gabc1234-1 x86_64 MIT\n" {
			t.Errorf("%s: rpm reads %q", rpmName, info)
		}
		files := runTool(t, "rpm", "-qlp", "--nosignature", rpmPath)
		for _, w := range append(want[:1:1], "/usr/share/licenses/"+spec.name+"/LICENSE") {
			if !strings.Contains(files, strings.TrimPrefix(w, ".")+"\n") {
				t.Errorf("%s lacks %s:\n%s", rpmName, w, files)
			}
		}
	}
}

func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func elfLibs(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ImportedLibraries()
}

// systemELF is a small dynamically linked program every Debian has.
func systemELF(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("true")
	if err != nil {
		t.Fatal(err)
	}
	bin, err = filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestLibraryDepends(t *testing.T) {
	bin := systemELF(t)
	libs, err := elfLibs(bin)
	if err != nil {
		t.Fatal(err)
	}
	deb, err := libraryDepends(bin, "deb")
	if err != nil {
		t.Fatal(err)
	}
	rpm, err := libraryDepends(bin, "rpm")
	if err != nil {
		t.Fatal(err)
	}
	// Every linked library shows up as an rpm capability, and maps to a
	// Debian package.
	for _, l := range libs {
		if !strings.Contains(strings.Join(rpm, " "), l+"()(64bit)") {
			t.Errorf("rpm requires %v lack %s", rpm, l)
		}
	}
	if len(libs) == 0 || len(deb) == 0 || !strings.HasPrefix(deb[0], "libc6 (>= 2.") {
		t.Errorf("%s links %v: Debian depends %v, want libc6 with its version", bin, libs, deb)
	}
	if _, err := libraryDepends(bin, "apk"); err == nil {
		t.Error("an unknown format was accepted")
	}
	if _, err := libraryDepends(filepath.Join(t.TempDir(), "missing"), "deb"); err == nil {
		t.Error("a missing binary was accepted")
	}
	for _, tt := range []struct {
		a, b string
		less bool
	}{{"2.2.5", "2.34", true}, {"2.34", "2.4", false}, {"2.3", "2.3.4", true}, {"2.34", "2.34", false}} {
		pa, _ := versionParts(tt.a)
		pb, _ := versionParts(tt.b)
		if lessParts(pa, pb) != tt.less {
			t.Errorf("%s < %s: got %v", tt.a, tt.b, !tt.less)
		}
	}
}
