//go:build unix && !darwin

package platform

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/adrg/xdg"
)

// loginItemPath is $XDG_CONFIG_HOME/autostart/ID.desktop, which every
// desktop following the XDG autostart spec (GNOME, KDE, Xfce, Cinnamon,
// MATE, LXQt) starts at login.
func loginItemPath(l LoginItem) (string, error) {
	base := reload(func() string { return xdg.ConfigHome })
	if base == "" || !filepath.IsAbs(base) {
		return "", fmt.Errorf("finding the autostart folder: no absolute config folder (got %q)", base)
	}
	return filepath.Join(base, "autostart", l.ID+".desktop"), nil
}

// loginItemText is the autostart file's text.
func loginItemText(l LoginItem) string { return desktopEntry(l) }

// desktopEntry is the autostart file: a desktop entry of type
// Application whose Exec line runs the command.
func desktopEntry(l LoginItem) string {
	var b strings.Builder
	b.WriteString("[Desktop Entry]\nType=Application\n")
	b.WriteString("Name=" + escapeDesktopString(l.Name) + "\n")
	if l.Comment != "" {
		b.WriteString("Comment=" + escapeDesktopString(l.Comment) + "\n")
	}
	var args []string
	for _, a := range l.Command {
		args = append(args, quoteExecArg(a))
	}
	b.WriteString("Exec=" + escapeDesktopString(strings.Join(args, " ")) + "\n")
	b.WriteString("Icon=" + l.ID + "\nTerminal=false\nX-GNOME-Autostart-enabled=true\n")
	return b.String()
}

// quoteExecArg quotes one argument of an Exec line as the Desktop Entry
// spec says: double quotes around an argument with a reserved character,
// a backslash before ", `, $ and \ inside them, and % doubled (a lone %
// starts a field code).
func quoteExecArg(a string) string {
	a = strings.ReplaceAll(a, "%", "%%")
	if a != "" && !strings.ContainsAny(a, " \t\n\"'\\><~|&;$*?#()`") {
		return a
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", `$`, `\$`)
	return `"` + r.Replace(a) + `"`
}

// escapeDesktopString escapes a value of type string: a backslash
// becomes \\ (the Exec line's own backslashes then read back as the
// quoting rule wants), and line breaks become \n.
func escapeDesktopString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return r.Replace(s)
}
