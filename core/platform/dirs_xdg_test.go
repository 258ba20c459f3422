//go:build unix && !darwin && !ios && !android

package platform

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDownloadDirXDG: on Linux and the BSDs the download folder is
// $XDG_DOWNLOAD_DIR, else user-dirs.dirs' XDG_DOWNLOAD_DIR (a localized
// name), else ~/Downloads; one equal to home means disabled.
func TestDownloadDirXDG(t *testing.T) {
	home := t.TempDir()
	config := filepath.Join(home, "cfg")
	if err := os.MkdirAll(config, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("XDG_DOWNLOAD_DIR", "")
	check := func(what, want string) {
		t.Helper()
		got, err := DownloadDir()
		if err != nil || got != want {
			t.Errorf("%s: DownloadDir() = %q, %v; want %q", what, got, err, want)
		}
	}
	check("no user-dirs", filepath.Join(home, "Downloads"))
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(config, "user-dirs.dirs"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# comment\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n")
	check("user-dirs", filepath.Join(home, "Téléchargements"))
	write("XDG_DOWNLOAD_DIR=\"$HOME/\"\n")
	check("disabled download dir", filepath.Join(home, "Downloads"))
	write("XDG_DOWNLOAD_DIR=\"relative/in\"\n")
	check("relative download dir", filepath.Join(home, "Downloads"))
	t.Setenv("XDG_DOWNLOAD_DIR", "/srv/in")
	check("XDG_DOWNLOAD_DIR", "/srv/in")
}

// TestConfigDirXDG: the key and trust file live in $XDG_CONFIG_HOME/ferry,
// else ~/.config/ferry, read from the environment at each call.
func TestConfigDirXDG(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if got, err := ConfigDir(); err != nil || got != filepath.Join(home, ".config", "ferry") {
		t.Errorf("default: ConfigDir() = %q, %v", got, err)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "elsewhere"))
	if got, err := ConfigDir(); err != nil || got != filepath.Join(home, "elsewhere", "ferry") {
		t.Errorf("XDG_CONFIG_HOME: ConfigDir() = %q, %v", got, err)
	}
}

// TestConfigDirWithoutHome: an explicit $XDG_CONFIG_HOME needs no home;
// without either there is no config folder, rather than one under "/".
func TestConfigDirWithoutHome(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "/srv/cfg")
	if got, err := ConfigDir(); err != nil || got != "/srv/cfg/ferry" {
		t.Errorf("XDG_CONFIG_HOME without HOME: ConfigDir() = %q, %v", got, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	if got, err := ConfigDir(); err == nil {
		t.Errorf("neither HOME nor XDG_CONFIG_HOME: ConfigDir() = %q, want an error", got)
	}
}
