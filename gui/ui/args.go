package ui

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Args is what ferry-gui was started with: `ferry-gui [OPTION] [--]
// [FILE... | ferry://LINK]`, the way a file manager or a desktop entry's
// Exec line (ferry-gui -- %F) runs it.
type Args struct {
	// Files are the files and folders to select on the Send view, as
	// absolute paths (a script from a file manager passes names relative
	// to the folder it shows, which is its working directory).
	Files []string
	// Link is a ferry:// link (what a receiver's QR code holds).
	Link string
	// InstallActions and RemoveActions add or remove "Send with Ferry" in
	// this person's file managers (package gui/fmactions) and exit.
	InstallActions bool
	RemoveActions  bool
	// Hidden starts the app with its window closed into the tray, when
	// the tray setting is on (the login item's --hidden, tray.go).
	Hidden bool
}

// ParseArgs reads ferry-gui's arguments; cwd makes relative paths
// absolute. A file:// URI (what a file manager passes for %U) counts as
// its path. After "--" everything is a file, even "-x" or "ferry://".
func ParseArgs(args []string, cwd string) (Args, error) {
	var a Args
	files := false
	for _, s := range args {
		switch {
		case files || !strings.HasPrefix(s, "-"):
			if !files && strings.HasPrefix(s, "ferry://") {
				if a.Link != "" {
					return Args{}, fmt.Errorf("two ferry:// links given: open one at a time")
				}
				a.Link = s
				continue
			}
			p, err := argPath(s, cwd)
			if err != nil {
				return Args{}, err
			}
			a.Files = append(a.Files, p)
		case s == "--":
			files = true
		case s == "--install-file-manager-actions":
			a.InstallActions = true
		case s == "--remove-file-manager-actions":
			a.RemoveActions = true
		case s == "--hidden":
			a.Hidden = true
		default:
			return Args{}, fmt.Errorf("unknown option %q (to send a file whose name starts with a dash, put -- before it)", s)
		}
	}
	if a.Link != "" && len(a.Files) > 0 {
		return Args{}, fmt.Errorf("give files or a ferry:// link, not both")
	}
	if (a.InstallActions || a.RemoveActions) && (a.Link != "" || len(a.Files) > 0) {
		return Args{}, fmt.Errorf("--install-file-manager-actions and --remove-file-manager-actions take no files")
	}
	return a, nil
}

// argPath is an argument as an absolute path.
func argPath(s, cwd string) (string, error) {
	if strings.HasPrefix(s, "file://") {
		u, err := url.Parse(s)
		if err != nil || (u.Host != "" && u.Host != "localhost") {
			return "", fmt.Errorf("%q is not a local file", s)
		}
		s = filepath.FromSlash(u.Path)
	}
	if s == "" {
		return "", fmt.Errorf("an empty file name was given")
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(cwd, s)
	}
	return filepath.Clean(s), nil
}
