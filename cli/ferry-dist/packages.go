package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager
)

// appID is the GUI's Fyne app ID (gui/ferry-gui), which the desktop entry
// and the icon are named after, as the freedesktop specs ask.
const appID = "io.github.ferry-project.ferry"

// pkgSpec is one Linux package: what it is called, what it installs.
type pkgSpec struct {
	name        string
	summary     string
	description string
	desktop     bool // installs the desktop entry and the icons
	service     bool // installs the systemd user unit ferry-receive.service
}

var cliPackage = pkgSpec{
	name:    "ferry",
	summary: "send files between two devices on a LAN, encrypted end to end",
	description: "Ferry sends files, folders and text between two devices on the same\n" +
		"network, found by mDNS and paired with a short code (CPace and Noise),\n" +
		"verified with BLAKE3, resumable. This package is the ferry command.",
	service: true,
}

var guiPackage = pkgSpec{
	name:    "ferry-gui",
	summary: "desktop app to send files between two devices on a LAN",
	description: "Ferry's desktop app: drop files on the window, pick a device found\n" +
		"on the network, type its code. Interoperates with the ferry command\n" +
		"and shares its device key and trusted devices.",
	desktop: true,
}

// pkg builds one .deb or .rpm of spec for goarch from the binary bin and
// returns its file name (the packager's conventional one).
func (r release) pkg(spec pkgSpec, goarch, bin, format string) (string, error) {
	ver, pre, meta, err := packageVersion(r.version)
	if err != nil {
		return "", err
	}
	deps, err := libraryDepends(bin, format)
	if err != nil {
		return "", fmt.Errorf("%s: %w", spec.name, err)
	}
	stage, err := os.MkdirTemp("", "ferry-dist-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(stage)

	contents := files.Contents{
		{Source: bin, Destination: "/usr/bin/" + spec.name, FileInfo: &files.ContentFileInfo{Mode: 0o755}},
		{Source: filepath.Join(r.root, "README.md"), Destination: "/usr/share/doc/" + spec.name + "/README.md"},
		// Debian keeps the license as doc/NAME/copyright, RPM distributions
		// under licenses/ marked %license.
		{Source: filepath.Join(r.root, "LICENSE"), Destination: "/usr/share/doc/" + spec.name + "/copyright", Packager: "deb"},
		{Source: filepath.Join(r.root, "LICENSE"), Destination: "/usr/share/licenses/" + spec.name + "/LICENSE", Type: files.TypeRPMLicense, Packager: "rpm"},
	}
	if spec.desktop {
		assets, err := writeAssets(stage, r.root)
		if err != nil {
			return "", err
		}
		contents = append(contents, assets...)
	}
	if spec.service {
		unit, err := writeServiceUnit(stage)
		if err != nil {
			return "", err
		}
		contents = append(contents, unit)
	}

	info := &nfpm.Info{
		Name:            spec.name,
		Arch:            goarch,
		Platform:        "linux",
		Version:         ver,
		VersionSchema:   "none",
		Prerelease:      pre,
		VersionMetadata: meta,
		Release:         "1",
		Section:         "net",
		Priority:        "optional",
		Maintainer:      "the Ferry authors",
		Vendor:          "the Ferry authors",
		Description:     description(spec, format),
		License:         "MIT",
		MTime:           r.mtime,
		Overridables: nfpm.Overridables{
			Depends:  deps,
			Contents: contents,
			RPM:      nfpm.RPM{Summary: spec.summary, Group: "Applications/Internet"},
		},
	}
	info = nfpm.WithDefaults(info)
	if err := nfpm.PrepareForPackager(info, format); err != nil {
		return "", fmt.Errorf("preparing %s %s: %w", spec.name, format, err)
	}
	packager, err := nfpm.Get(format)
	if err != nil {
		return "", err
	}
	name := packager.ConventionalFileName(info)
	if err := writeAtomic(filepath.Join(r.dir, name), func(w io.Writer) error {
		return packager.Package(info, w)
	}); err != nil {
		return "", fmt.Errorf("writing %s: %w", name, err)
	}
	return name, nil
}

// description is the package's long text. dpkg takes its first line as
// the synopsis; rpm has a Summary of its own and would show it twice.
func description(spec pkgSpec, format string) string {
	if format == "rpm" {
		return spec.description
	}
	return spec.summary + "\n" + spec.description
}

// describeRE reads `git describe --tags --always --dirty`: an optional
// tag vX.Y.Z[-PRE], then -N-gHASH when commits follow it, then -dirty.
// Without any tag describe gives a bare hash.
var describeRE = regexp.MustCompile(`^v?(\d+\.\d+\.\d+)(?:-([0-9A-Za-z.]+?))??(?:-(\d+)-g([0-9a-f]+))?(-dirty)?$`)
var hashRE = regexp.MustCompile(`^([0-9a-f]{7,40}|dev)(-dirty)?$`)

// packageVersion turns the stamped version into the parts dpkg and rpm
// order correctly: version, pre-release (sorts before the release, `~`)
// and metadata (sorts after, `+`). A build after a tag is newer than the
// tag; a build without any tag is 0.0.0 plus its commit.
func packageVersion(v string) (version, pre, meta string, err error) {
	if m := describeRE.FindStringSubmatch(v); m != nil {
		version, pre = m[1], m[2]
		var md []string
		if m[3] != "" {
			md = append(md, "git", m[3], "g"+m[4])
		}
		if m[5] != "" {
			md = append(md, "dirty")
		}
		return version, pre, strings.Join(md, "."), nil
	}
	if m := hashRE.FindStringSubmatch(v); m != nil {
		meta = "git." + m[1]
		if m[1] == "dev" {
			meta = "dev"
		}
		if m[2] != "" {
			meta += ".dirty"
		}
		return "0.0.0", "", meta, nil
	}
	return "", "", "", fmt.Errorf("version %q: want vX.Y.Z[-PRE][-N-gHASH][-dirty] or a commit hash", v)
}
