package ui

// The app's logic must build for every desktop OS, not only Linux. For
// Windows `make lint` runs go vet; for darwin go vet cannot run anywhere
// but a Mac: Fyne's own darwin files (internal/widget's scroller
// behaviour) are cgo against Apple's SDK. So this test type-checks
// gui/ui and everything of Ferry's it imports for darwin from source, as
// go vet would, and fails on any error in Ferry's packages; errors in
// other modules (Fyne's cgo-only files) are logged, not ours to fix.

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

func TestTypeChecksForDarwin(t *testing.T) {
	if testing.Short() {
		t.Skip("short: type-checks gui/ui and its imports from source for darwin")
	}
	const ferry = "github.com/ferry-project/ferry/"
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Env: append(os.Environ(), "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0"),
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatalf("loading gui/ui for darwin: %v", err)
	}
	checked := 0
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		mine := strings.HasPrefix(p.PkgPath+"/", ferry)
		if mine {
			checked++
		}
		for _, e := range p.Errors {
			if mine {
				t.Errorf("darwin: %s: %v", p.PkgPath, e)
			} else {
				t.Logf("darwin, not Ferry's: %s: %v", p.PkgPath, e)
			}
		}
	})
	// gui/ui and at least the core packages it drives were checked.
	if checked < 3 {
		t.Errorf("only %d of Ferry's packages were type-checked", checked)
	}
}
