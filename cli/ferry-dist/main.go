// Command ferry-dist packs the release files that `make dist` built into
// what people download: one archive per target with the README and the
// LICENSE (tar.gz, zip for Windows), .deb and .rpm packages of ferry and
// ferry-gui for Linux, and a SHA256SUMS over all of it.
//
// It does not compile anything: the Makefile cross-builds
// bin/dist/ferry-VERSION-GOOS-GOARCH[.exe] with the version stamped by
// -ldflags, and hands the GUI binary (cgo, built natively) by path. Keeping
// the builds in make lets each one be rerun alone and keeps this program
// free of toolchain flags.
//
// Usage (as the Makefile runs it):
//
//	ferry-dist -version V -dir bin/dist -root . -targets "linux/amd64 ..." [-gui bin/ferry-gui]
//
// Everything written carries the time in SOURCE_DATE_EPOCH (the Makefile
// sets it to the last commit's), so two runs on one commit give the same
// archives and packages byte for byte.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "ferry-dist: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("ferry-dist", flag.ContinueOnError)
	version := fs.String("version", "", "the version stamped into the binaries (git describe)")
	dir := fs.String("dir", "bin/dist", "the folder holding the built binaries; everything is written there")
	root := fs.String("root", ".", "the repository root, for README.md and LICENSE")
	targets := fs.String("targets", "", "GOOS/GOARCH pairs that were built, space separated")
	gui := fs.String("gui", "", "the linux/amd64 ferry-gui binary to package (none: no ferry-gui packages)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *version == "" {
		return fmt.Errorf("-version is required")
	}
	ts, err := parseTargets(*targets)
	if err != nil {
		return err
	}
	mtime, err := sourceDate()
	if err != nil {
		return err
	}
	r := release{version: *version, dir: *dir, root: *root, mtime: mtime}
	for _, t := range ts {
		name, err := r.archive(t)
		if err != nil {
			return err
		}
		fmt.Println(name)
		if t.goos != "linux" {
			continue
		}
		for _, format := range []string{"deb", "rpm"} {
			name, err := r.pkg(cliPackage, t.goarch, r.binary(t), format)
			if err != nil {
				return err
			}
			fmt.Println(name)
		}
	}
	if *gui != "" {
		for _, format := range []string{"deb", "rpm"} {
			// The GUI needs cgo, so only the machine's own architecture
			// is built; the Makefile builds it on linux/amd64.
			name, err := r.pkg(guiPackage, "amd64", *gui, format)
			if err != nil {
				return err
			}
			fmt.Println(name)
		}
	}
	if err := writeSums(r.dir); err != nil {
		return err
	}
	fmt.Println(sumsName)
	return nil
}

// target is one GOOS/GOARCH pair.
type target struct{ goos, goarch string }

func (t target) String() string { return t.goos + "-" + t.goarch }

func parseTargets(s string) ([]target, error) {
	var ts []target
	for _, f := range strings.Fields(s) {
		goos, goarch, ok := strings.Cut(f, "/")
		if !ok || goos == "" || goarch == "" {
			return nil, fmt.Errorf("target %q: want GOOS/GOARCH", f)
		}
		ts = append(ts, target{goos, goarch})
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("-targets is required")
	}
	return ts, nil
}

// sourceDate is the reproducible-builds convention: SOURCE_DATE_EPOCH if
// set, else now.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Now().UTC().Truncate(time.Second), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading SOURCE_DATE_EPOCH: %w", err)
	}
	return time.Unix(n, 0).UTC(), nil
}

// release is one version's set of files in one folder.
type release struct {
	version string
	dir     string
	root    string
	mtime   time.Time
}

// base is a target's name without extension:
// ferry-VERSION-GOOS-GOARCH, which is also the archive's top folder.
func (r release) base(t target) string {
	return "ferry-" + r.version + "-" + t.String()
}

// binary is where the Makefile put a target's build.
func (r release) binary(t target) string {
	return r.dir + "/" + r.base(t) + exe(t.goos)
}

func exe(goos string) string {
	if goos == "windows" {
		return ".exe"
	}
	return ""
}
