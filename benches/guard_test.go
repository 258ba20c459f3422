package benches

import (
	"errors"
	"runtime/debug"
	"testing"
)

func TestCheckBuild(t *testing.T) {
	s := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	release := s("-buildmode", "exe", "-compiler", "gc", "CGO_ENABLED", "1", "GOAMD64", "v1")
	cases := []struct {
		name     string
		settings []debug.BuildSetting
		refuse   bool
	}{
		{"release", release, false},
		{"no settings", nil, false},
		{"race", append(s("-race", "true"), release...), true},
		{"race false", s("-race", "false"), false},
		{"msan", s("-msan", "true"), true},
		{"asan", s("-asan", "true"), true},
		{"all -N -l", s("-gcflags", "all=-N -l"), true},
		{"bare -N -l", s("-gcflags", "-N -l"), true},
		{"only -N", s("-gcflags", "all=-N"), true},
		{"only -l for one package", s("-gcflags", "github.com/ferry-project/ferry/core/secure=-l"), true},
		{"-l later in the list", s("-gcflags", "-m -l"), true},
		{"harmless gcflags", s("-gcflags", "all=-B -m"), false},
		{"trimpath and ldflags", s("-trimpath", "true", "-ldflags", "-s -w -X main.version=-N"), false},
		{"-N in ldflags is not a gcflag", s("-ldflags", "-N -l"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckBuild(c.settings)
			if got := err != nil; got != c.refuse {
				t.Fatalf("CheckBuild refused=%v (%v), want refused=%v", got, err, c.refuse)
			}
			if err != nil && !errors.Is(err, ErrDebugBuild) {
				t.Fatalf("error %v does not wrap ErrDebugBuild", err)
			}
		})
	}
}

// The test binary itself: under -race it must refuse, otherwise (a plain
// go test) it must not.
func TestCheckThisBuild(t *testing.T) {
	err := CheckThisBuild()
	if raceEnabled != (err != nil) {
		t.Fatalf("race=%v but CheckThisBuild() = %v", raceEnabled, err)
	}
}
