// Package fmactions is "Send with Ferry" in Linux file managers: the
// files each file manager reads, in one place, for the two that write
// them (the .deb and .rpm built by cli/ferry-dist, system-wide, and
// `ferry-gui --install-file-manager-actions`, per user).
//
// Every entry runs `ferry-gui -- FILE...`, which opens the app (or the
// one already running) on the Send view with those files selected.
//
// Where each file manager looks:
//
//	GNOME Files (Nautilus)  ~/.local/share/nautilus/scripts/   per user only
//	Caja (MATE)             ~/.config/caja/scripts/            per user only
//	Nemo (Cinnamon)         /usr/share/nemo/actions/*.nemo_action, or
//	                        ~/.local/share/nemo/actions/
//	Dolphin (KDE)           /usr/share/kio/servicemenus/*.desktop, or
//	                        ~/.local/share/kio/servicemenus/ (Plasma 6 runs
//	                        a per-user one only when it is executable)
//	others (Thunar, PCManFM, "Open With" everywhere)  the application's
//	                        desktop entry, which takes files (%F) and lists
//	                        every file type (application/octet-stream and
//	                        inode/directory)
//
// Nautilus and Caja scripts have no system-wide folder, so the packages
// cannot add them: Install writes them for the person who runs it. A
// script gets the selected files as its arguments (relative to the folder
// it runs in, which is the one shown), which ferry-gui makes absolute.
package fmactions

import (
	"embed"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Label is the menu entry's text in every file manager.
const Label = "Send with Ferry"

// appID names the icon (and the application's desktop entry).
const appID = "io.github.ferry-project.ferry"

// Script is the Nautilus and Caja script: the selected files are its
// arguments. `--` keeps a file whose name starts with a dash a file.
const Script = `#!/bin/sh
# ` + Label + `: opens Ferry with the selected files, ready to send.
# Written by ferry-gui --install-file-manager-actions; remove it with
# ferry-gui --remove-file-manager-actions.
exec ferry-gui -- "$@"
`

// The system-wide entries are files under system/, at the path each is
// installed at: the packages (cli/ferry-dist) copy that tree as it is
// (reading it from the repository, as they read README.md, so that the
// packaging tool imports nothing of the app), and Install writes the same
// texts per user.
//
//go:embed system
var system embed.FS

// NemoAction is Nemo's action file.
var NemoAction = systemFile("/usr/share/nemo/actions", "ferry-send.nemo_action")

// DolphinServiceMenu is Dolphin's service menu: a desktop entry of type
// Service whose one action is the menu entry. X-KDE-ServiceTypes is for
// Plasma 5; Plasma 6 reads the folder it is in.
var DolphinServiceMenu = systemFile("/usr/share/kio/servicemenus", "ferry-send.desktop")

// systemFile is the text of system/DIR/NAME.
func systemFile(dir, name string) string {
	b, err := system.ReadFile(path.Join("system", dir, name))
	if err != nil {
		panic(err) // embedded: only a build that lost the file gets here
	}
	return string(b)
}

// File is one file manager's entry: its file name, its text, and where
// it goes (a system-wide path, empty when there is none, and the folder
// under the home).
type File struct {
	Manager string
	Name    string
	Text    string
	Exec    bool   // must be executable
	System  string // folder for the packages; "" when per user only
	User    string // folder relative to the home directory
}

// Files are all the entries.
var Files = []File{
	{Manager: "GNOME Files (Nautilus)", Name: Label, Text: Script, Exec: true, User: ".local/share/nautilus/scripts"},
	{Manager: "Caja", Name: Label, Text: Script, Exec: true, User: ".config/caja/scripts"},
	{Manager: "Nemo", Name: "ferry-send.nemo_action", Text: NemoAction, System: "/usr/share/nemo/actions", User: ".local/share/nemo/actions"},
	// Plasma 6 refuses a per-user service menu that is not executable.
	{Manager: "Dolphin", Name: "ferry-send.desktop", Text: DolphinServiceMenu, Exec: true, System: "/usr/share/kio/servicemenus", User: ".local/share/kio/servicemenus"},
}

// systemRoot is where the packages' files are looked for (tests move it).
var systemRoot = "/"

// Install writes every entry under home and returns the paths written.
// An entry the installed package provides system-wide already is skipped
// (the file manager would list it twice). An entry that is there with
// other content (edited by the person) is left alone and reported in the
// error; the others are still written.
func Install(home string) (written []string, err error) {
	var errs []error
	for _, f := range Files {
		if f.System != "" {
			if _, err := os.Stat(filepath.Join(systemRoot, f.System, f.Name)); err == nil {
				continue
			}
		}
		dir := filepath.Join(home, f.User)
		path := filepath.Join(dir, f.Name)
		if old, rerr := os.ReadFile(path); rerr == nil && string(old) != f.Text {
			errs = append(errs, fmt.Errorf("%s: already there with other content, left alone (remove it to replace it)", path))
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Manager, err))
			continue
		}
		mode := os.FileMode(0o644)
		if f.Exec {
			mode = 0o755
		}
		if err := writeFile(path, []byte(f.Text), mode); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Manager, err))
			continue
		}
		written = append(written, path)
	}
	return written, joinErrs(errs)
}

// Remove deletes the entries Install wrote (only those whose content is
// still Ferry's) and returns the paths removed.
func Remove(home string) (removed []string, err error) {
	var errs []error
	for _, f := range Files {
		path := filepath.Join(home, f.User, f.Name)
		old, rerr := os.ReadFile(path)
		if rerr != nil || string(old) != f.Text {
			continue
		}
		if err := os.Remove(path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, path)
	}
	return removed, joinErrs(errs)
}

// writeFile writes through a temporary file and a rename, so a file
// manager never runs half a script.
func writeFile(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ferry-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func joinErrs(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	msg := errs[0].Error()
	for _, e := range errs[1:] {
		msg += "; " + e.Error()
	}
	return fmt.Errorf("%s", msg)
}

// ServiceMenuProblems is desktop-file-validate's output on the Dolphin
// service menu, without the complaints about what KDE adds to the spec
// (MimeType and Actions in a Type=Service entry): what is left is a real
// problem. tests/dist-check.sh applies the same rule to the installed file.
func ServiceMenuProblems(validateOutput string) []string {
	var bad []string
	for _, l := range strings.Split(strings.TrimSpace(validateOutput), "\n") {
		if l == "" || (strings.Contains(l, "the type is \"Service\"") &&
			(strings.Contains(l, `key "MimeType"`) || strings.Contains(l, `key "Actions"`))) {
			continue
		}
		bad = append(bad, l)
	}
	return bad
}
