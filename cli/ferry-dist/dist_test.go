package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPackageVersion(t *testing.T) {
	tests := []struct {
		in                 string
		version, pre, meta string
		deb                string // what dpkg shows, with release 1
	}{
		{"v1.2.3", "1.2.3", "", "", "1.2.3-1"},
		{"1.2.3", "1.2.3", "", "", "1.2.3-1"},
		{"v1.2.3-rc1", "1.2.3", "rc1", "", "1.2.3~rc1-1"},
		{"v1.2.3-4-gabc1234", "1.2.3", "", "git.4.gabc1234", "1.2.3+git.4.gabc1234-1"},
		{"v1.2.3-rc.2-4-gabc1234-dirty", "1.2.3", "rc.2", "git.4.gabc1234.dirty", "1.2.3~rc.2+git.4.gabc1234.dirty-1"},
		{"v1.2.3-dirty", "1.2.3", "", "dirty", "1.2.3+dirty-1"},
		{"bd23b1a", "0.0.0", "", "git.bd23b1a", "0.0.0+git.bd23b1a-1"},
		{"bd23b1a-dirty", "0.0.0", "", "git.bd23b1a.dirty", "0.0.0+git.bd23b1a.dirty-1"},
		{"dev", "0.0.0", "", "dev", "0.0.0+dev-1"},
	}
	for _, tt := range tests {
		v, pre, meta, err := packageVersion(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if v != tt.version || pre != tt.pre || meta != tt.meta {
			t.Errorf("%q: got %q %q %q, want %q %q %q", tt.in, v, pre, meta, tt.version, tt.pre, tt.meta)
		}
	}
	for _, bad := range []string{"", "v1.2", "latest", "v1.2.3 ", "1.2.3-", "ZZZ1234"} {
		if _, _, _, err := packageVersion(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	// dpkg itself must order them as a person expects: a pre-release
	// before its release, a later commit after its tag.
	if _, err := exec.LookPath("dpkg"); err == nil {
		order := []string{"0.0.0+git.bd23b1a-1", "1.2.3~rc1-1", "1.2.3-1", "1.2.3+git.4.gabc1234-1", "1.2.4~rc1-1"}
		for i := 0; i+1 < len(order); i++ {
			if err := exec.Command("dpkg", "--compare-versions", order[i], "lt", order[i+1]).Run(); err != nil {
				t.Errorf("dpkg does not order %s before %s", order[i], order[i+1])
			}
		}
	}
}

// testRelease lays out a release folder with two small stand-in binaries
// (archives do not look inside them), and a repository root with stand-in
// README.md and LICENSE and the real file managers' entries, and returns
// it.
func testRelease(t *testing.T) release {
	t.Helper()
	root, dir := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{"README.md": "# Ferry\n", "LICENSE": "MIT License\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The file managers' entries are the repository's own.
	if err := os.CopyFS(filepath.Join(root, fmSystem), os.DirFS(filepath.Join("..", "..", fmSystem))); err != nil {
		t.Fatal(err)
	}
	r := release{version: "v1.2.3", dir: dir, root: root, mtime: time.Unix(1700000000, 0).UTC()}
	for _, tg := range []target{{"linux", "arm64"}, {"windows", "amd64"}} {
		if err := os.WriteFile(r.binary(tg), []byte("binary for "+tg.String()), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func TestArchives(t *testing.T) {
	r := testRelease(t)

	name, err := r.archive(target{"linux", "arm64"})
	if err != nil {
		t.Fatal(err)
	}
	if name != "ferry-v1.2.3-linux-arm64.tar.gz" {
		t.Errorf("tar.gz name %q", name)
	}
	got := readTarGz(t, filepath.Join(r.dir, name))
	want := map[string]entry{
		"ferry-v1.2.3-linux-arm64/":          {mode: 0o755},
		"ferry-v1.2.3-linux-arm64/ferry":     {mode: 0o755, body: "binary for linux-arm64"},
		"ferry-v1.2.3-linux-arm64/README.md": {mode: 0o644, body: "# Ferry\n"},
		"ferry-v1.2.3-linux-arm64/LICENSE":   {mode: 0o644, body: "MIT License\n"},
	}
	compareEntries(t, name, got, want)

	name, err = r.archive(target{"windows", "amd64"})
	if err != nil {
		t.Fatal(err)
	}
	if name != "ferry-v1.2.3-windows-amd64.zip" {
		t.Errorf("zip name %q", name)
	}
	got = readZip(t, filepath.Join(r.dir, name))
	want = map[string]entry{
		"ferry-v1.2.3-windows-amd64/":          {mode: 0o755},
		"ferry-v1.2.3-windows-amd64/ferry.exe": {mode: 0o755, body: "binary for windows-amd64"},
		"ferry-v1.2.3-windows-amd64/README.md": {mode: 0o644, body: "# Ferry\n"},
		"ferry-v1.2.3-windows-amd64/LICENSE":   {mode: 0o644, body: "MIT License\n"},
	}
	compareEntries(t, name, got, want)

	// Reproducible: the same inputs and date give the same bytes.
	for _, tg := range []target{{"linux", "arm64"}, {"windows", "amd64"}} {
		name, _ := r.archive(tg)
		first, _ := os.ReadFile(filepath.Join(r.dir, name))
		if _, err := r.archive(tg); err != nil {
			t.Fatal(err)
		}
		second, _ := os.ReadFile(filepath.Join(r.dir, name))
		if !bytes.Equal(first, second) {
			t.Errorf("%s differs between two runs", name)
		}
	}

	// A missing binary is an error naming it, and leaves no archive.
	if _, err := r.archive(target{"darwin", "arm64"}); err == nil || !strings.Contains(err.Error(), "ferry-v1.2.3-darwin-arm64") {
		t.Errorf("missing binary: got %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "ferry-v1.2.3-darwin-arm64.tar.gz")); !os.IsNotExist(err) {
		t.Errorf("a failed archive was left behind: %v", err)
	}
}

type entry struct {
	mode os.FileMode
	body string
}

func compareEntries(t *testing.T, name string, got, want map[string]entry) {
	t.Helper()
	for n, w := range want {
		g, ok := got[n]
		if !ok {
			t.Errorf("%s lacks %s", name, n)
			continue
		}
		if g != w {
			t.Errorf("%s: %s is %v %q, want %v %q", name, n, g.mode, g.body, w.mode, w.body)
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("%s holds unexpected %s", name, n)
		}
	}
}

func readTarGz(t *testing.T, path string) map[string]entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out := map[string]entry{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		out[h.Name] = entry{os.FileMode(h.Mode).Perm(), string(body)}
	}
}

func readZip(t *testing.T, path string) map[string]entry {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string]entry{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		out[f.Name] = entry{f.Mode().Perm(), string(body)}
	}
	return out
}

func TestSums(t *testing.T) {
	r := testRelease(t)
	if _, err := r.archive(target{"linux", "arm64"}); err != nil {
		t.Fatal(err)
	}
	// A leftover temporary file must not be vouched for.
	if err := os.WriteFile(filepath.Join(r.dir, ".ferry-dist-123"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeSums(r.dir); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(r.dir, sumsName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	var names []string
	for _, l := range lines {
		names = append(names, l[strings.LastIndex(l, " ")+1:])
	}
	want := "ferry-v1.2.3-linux-arm64 ferry-v1.2.3-linux-arm64.tar.gz ferry-v1.2.3-windows-amd64.exe"
	if strings.Join(names, " ") != want {
		t.Errorf("SHA256SUMS lists %v, want %s", names, want)
	}
	// The standard tool agrees, and notices a changed file.
	cmd := exec.Command("sha256sum", "--strict", "-c", sumsName)
	cmd.Dir = r.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	if err := os.WriteFile(r.binary(target{"linux", "arm64"}), []byte("tampered"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("sha256sum", "-c", sumsName)
	cmd.Dir = r.dir
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "ferry-v1.2.3-linux-arm64: FAILED") {
		t.Errorf("sha256sum -c accepted a changed binary: %v\n%s", err, out)
	}
}

func TestIcon(t *testing.T) {
	svg, err := assets.ReadFile("assets/ferry.svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range pngSizes {
		var b bytes.Buffer
		if err := renderIcon(&b, svg, size); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() != size || img.Bounds().Dy() != size {
			t.Fatalf("%dpx icon is %v", size, img.Bounds())
		}
		// The rounded square leaves the corners transparent and fills
		// the middle: the drawing reached the pixels at every size.
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("%dpx icon: corner alpha %d, want transparent", size, a)
		}
		if _, _, _, a := img.At(size/2, size/2).RGBA(); a != 0xffff {
			t.Errorf("%dpx icon: centre alpha %d, want opaque", size, a)
		}
	}
	if err := renderIcon(io.Discard, []byte("<svg><path d='M 0 0 Q'/></svg>"), 48); err == nil {
		t.Error("a broken SVG rendered without an error")
	}
}
