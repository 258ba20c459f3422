package benches

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
)

// ErrDebugBuild is returned by CheckBuild for a build whose numbers would
// not describe the binary Ferry ships.
var ErrDebugBuild = errors.New("refusing to benchmark a debug build")

// CheckThisBuild checks the running binary: its build settings, and the
// race detector's build tag in case the settings were stripped.
func CheckThisBuild() error {
	if raceEnabled {
		return fmt.Errorf("%w: built with -race", ErrDebugBuild)
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("%w: no build information to check (build with the go command)", ErrDebugBuild)
	}
	return CheckBuild(bi.Settings)
}

// CheckBuild refuses build settings that make a slower binary than the one
// that ships: the race detector or other sanitizers, and compiler flags
// that turn off optimisation (-N) or inlining (-l) for any package. Seed
// 002 is the reason: a debug build's cipher measured 50 times slower and
// sent an investigation to the wrong machine.
func CheckBuild(settings []debug.BuildSetting) error {
	for _, s := range settings {
		switch s.Key {
		case "-race", "-msan", "-asan":
			if s.Value == "true" {
				return fmt.Errorf("%w: built with %s", ErrDebugBuild, s.Key)
			}
		case "-gcflags":
			for _, f := range strings.Fields(s.Value) {
				// A flag may carry a package pattern: all=-N, ./x=-l.
				if i := strings.LastIndexByte(f, '='); i >= 0 {
					f = f[i+1:]
				}
				switch f {
				case "-N", "-l":
					return fmt.Errorf("%w: built with -gcflags=%q (%s turns off %s)",
						ErrDebugBuild, s.Value, f, map[string]string{"-N": "optimisation", "-l": "inlining"}[f])
				}
			}
		}
	}
	return nil
}
