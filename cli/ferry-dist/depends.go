package main

import (
	"debug/elf"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// debianLibs names the Debian package of every shared library that
// ferry-gui (Fyne over GLFW on X11) links. A library missing here fails the
// build, so a new dependency is noticed rather than left undeclared.
var debianLibs = map[string]string{
	"libc.so.6":        "libc6",
	"libm.so.6":        "libc6",
	"libdl.so.2":       "libc6",
	"libpthread.so.0":  "libc6",
	"libGL.so.1":       "libgl1",
	"libX11.so.6":      "libx11-6",
	"libXcursor.so.1":  "libxcursor1",
	"libXrandr.so.2":   "libxrandr2",
	"libXinerama.so.1": "libxinerama1",
	"libXi.so.6":       "libxi6",
	"libXxf86vm.so.1":  "libxxf86vm1",
}

// libraryDepends reads the shared libraries an ELF binary needs and returns
// them as package dependencies. A static binary (the CLI: CGO_ENABLED=0)
// needs none. For deb they are Debian package names, with the glibc
// version the binary's symbols require; for rpm they are the
// soname()(64bit) capabilities that rpmbuild itself would generate, which
// every RPM distribution resolves to its own package names.
func libraryDepends(bin, format string) ([]string, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", bin, err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return nil, fmt.Errorf("reading %s's libraries: %w", bin, err)
	}
	if len(libs) == 0 {
		return nil, nil
	}
	glibc := glibcVersion(f)
	suffix := ""
	if f.Class == elf.ELFCLASS64 {
		suffix = "(64bit)"
	}
	seen := map[string]bool{}
	var deps []string
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			deps = append(deps, d)
		}
	}
	for _, lib := range libs {
		switch format {
		case "deb":
			p, ok := debianLibs[lib]
			if !ok {
				return nil, fmt.Errorf("%s links %s, which has no Debian package in depends.go", bin, lib)
			}
			if p == "libc6" && glibc != "" {
				p += " (>= " + glibc + ")"
			}
			add(p)
		case "rpm":
			add(lib + "()" + suffix)
			if lib == "libc.so.6" && glibc != "" {
				add(lib + "(GLIBC_" + glibc + ")" + suffix)
			}
		default:
			return nil, fmt.Errorf("unknown package format %q", format)
		}
	}
	sort.Strings(deps)
	return deps, nil
}

// glibcVersion is the newest GLIBC_x.y symbol version the binary imports,
// or "" when it imports none.
func glibcVersion(f *elf.File) string {
	syms, err := f.ImportedSymbols()
	if err != nil {
		return ""
	}
	best, bestParts := "", []int(nil)
	for _, s := range syms {
		v, ok := strings.CutPrefix(s.Version, "GLIBC_")
		if !ok {
			continue
		}
		parts, ok := versionParts(v)
		if ok && lessParts(bestParts, parts) {
			best, bestParts = v, parts
		}
	}
	return best
}

func versionParts(v string) ([]int, bool) {
	var parts []int
	for _, p := range strings.Split(v, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		parts = append(parts, n)
	}
	return parts, true
}

func lessParts(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}
