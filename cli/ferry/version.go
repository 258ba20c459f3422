package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/ferry-project/ferry/core/app"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

func cmdVersion(p *printer, args []string) error {
	fs := newFlagSet("version")
	operands, err := parseArgs(fs, args)
	if err == errHelp {
		p.stdoutText(versionUsage)
		return errHelp
	}
	if err != nil {
		return err
	}
	if len(operands) > 0 {
		return usagef("run 'ferry version' alone", "unexpected argument %q", operands[0])
	}
	p.stdoutText(versionText())
	return nil
}

// versionText is three lines: ferry's version (with the commit when the
// build recorded one), the protocol version, and the Go toolchain.
func versionText() string {
	v, goVersion := version, runtime.Version()
	var rev string
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = s.Value[:12]
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if rev != "" {
		v += " " + rev
	}
	return fmt.Sprintf("ferry %s\nprotocol %d\n%s %s/%s\n", v, app.WireVersion, goVersion, runtime.GOOS, runtime.GOARCH)
}
