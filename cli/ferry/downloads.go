package main

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

// downloadDir finds the person's download folder the way desktop Linux
// does: $XDG_DOWNLOAD_DIR when set, else the XDG_DOWNLOAD_DIR line of
// user-dirs.dirs in the config folder, else ~/Downloads. A value of
// exactly $HOME means "disabled" in the XDG convention and falls back to
// ~/Downloads as well, so that received files never land loose in home.
func downloadDir(getenv func(string) string) (string, error) {
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("cannot find the home folder: set HOME or use --dir")
		}
		home = h
	}
	fallback := filepath.Join(home, "Downloads")
	if v := expandHome(getenv("XDG_DOWNLOAD_DIR"), home); v != "" {
		return v, nil
	}
	config := getenv("XDG_CONFIG_HOME")
	if config == "" {
		config = filepath.Join(home, ".config")
	}
	f, err := os.Open(filepath.Join(config, "user-dirs.dirs"))
	if err != nil {
		return fallback, nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		val, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "XDG_DOWNLOAD_DIR=")
		if !ok {
			continue
		}
		if u, err := strconv.Unquote(val); err == nil {
			val = u
		}
		if v := expandHome(val, home); v != "" {
			return v, nil
		}
	}
	return fallback, nil
}

// expandHome resolves "$HOME/x" and absolute paths; anything else, and
// $HOME itself, gives "".
func expandHome(v, home string) string {
	switch {
	case v == "" || v == "$HOME" || v == "$HOME/":
		return ""
	case strings.HasPrefix(v, "$HOME/"):
		return filepath.Join(home, v[len("$HOME/"):])
	case filepath.IsAbs(v):
		if filepath.Clean(v) == filepath.Clean(home) {
			return ""
		}
		return filepath.Clean(v)
	}
	return ""
}
