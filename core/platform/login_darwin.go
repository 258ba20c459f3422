//go:build darwin

package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Written but never run here: the tests run on Linux only, and darwin is
// cross-vetted (make vet-targets).

// loginItemPath is ~/Library/LaunchAgents/ID.plist: launchd loads each
// agent there at login and, with RunAtLoad, starts its program.
func loginItemPath(l LoginItem) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the LaunchAgents folder: %w", err)
	}
	return filepath.Join(home, "Library", "LaunchAgents", l.ID+".plist"), nil
}

// loginItemText is the agent file's text.
func loginItemText(l LoginItem) string { return launchAgent(l) }

// launchAgent is the agent's property list: its label, the program and
// its arguments, started at load; Interactive, as it is an app a person
// uses, not a background job to be throttled.
func launchAgent(l LoginItem) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + xmlEscape(l.ID) + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range l.Command {
		b.WriteString("\t\t<string>" + xmlEscape(a) + "</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`)
	return b.String()
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}
