//go:build !js

// The sentinel census imports the packages that keep files (trust,
// history), which do not build for the browser.

package receive_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/pick"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/clipboard"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/trust"
	"github.com/ferry-project/ferry/core/wire"
)

// sentinels are the exported sentinel errors of core's packages, by
// "package.Name", with the kind each must have. TestEverySentinelHasAKind
// finds them in the source, so a new one that is not here fails it.
var sentinels = map[string]struct {
	err  error
	kind errkind.Kind
}{
	"transfer.ErrDeclined":          {transfer.ErrDeclined, errkind.Declined},
	"transfer.ErrCancelled":         {transfer.ErrCancelled, errkind.Cancelled},
	"transfer.ErrVerify":            {transfer.ErrVerify, errkind.Verify},
	"transfer.ErrRefusedPath":       {transfer.ErrRefusedPath, errkind.RefusedPath},
	"transfer.ErrNoSpace":           {transfer.ErrNoSpace, errkind.NoSpace},
	"place.ErrRefusedPath":          {place.ErrRefusedPath, errkind.RefusedPath},
	"place.ErrNoSpace":              {place.ErrNoSpace, errkind.NoSpace},
	"transfer.ErrTimeout":           {transfer.ErrTimeout, errkind.Timeout},
	"transfer.ErrSourceChanged":     {transfer.ErrSourceChanged, errkind.SourceChanged},
	"transfer.ErrProtocol":          {transfer.ErrProtocol, errkind.Protocol},
	"wire.ErrProtocol":              {wire.ErrProtocol, errkind.Protocol},
	"transfer.ErrCodesStopped":      {transfer.ErrCodesStopped, errkind.CodesStopped},
	"transfer.ErrPeerFailed":        {transfer.ErrPeerFailed, errkind.Failure},
	"secure.ErrWrongCode":           {secure.ErrWrongCode, errkind.WrongCode},
	"secure.ErrCodeRetired":         {secure.ErrCodeRetired, errkind.CodeRetired},
	"secure.ErrCodesHeld":           {secure.ErrCodesHeld, errkind.CodesHeld},
	"secure.ErrBusy":                {secure.ErrBusy, errkind.Busy},
	"secure.ErrNotPaired":           {secure.ErrNotPaired, errkind.NotPaired},
	"secure.ErrNoCodes":             {secure.ErrNoCodes, errkind.NotPaired},
	"secure.ErrKeyChanged":          {secure.ErrKeyChanged, errkind.KeyChanged},
	"secure.ErrIncompatibleVersion": {secure.ErrIncompatibleVersion, errkind.Incompatible},
	"secure.ErrNotFerry":            {secure.ErrNotFerry, errkind.NotFerry},
	"secure.ErrHandshakeTimeout":    {secure.ErrHandshakeTimeout, errkind.Timeout},
	"secure.ErrBadPSK":              {secure.ErrBadPSK, errkind.Internal},
	"secure.ErrAuth":                {secure.ErrAuth, errkind.Damaged},
	"secure.ErrMalformed":           {secure.ErrMalformed, errkind.Protocol},
	"secure.ErrTruncated":           {secure.ErrTruncated, errkind.ConnectionLost},
	"secure.ErrTrailingData":        {secure.ErrTrailingData, errkind.Protocol},
	"secure.ErrConnectionLost":      {secure.ErrConnectionLost, errkind.ConnectionLost},
	"secure.ErrClosed":              {secure.ErrClosed, errkind.Internal},
	"trust.ErrNotFound":             {trust.ErrNotFound, errkind.NoSuchDevice},
	"trust.ErrAmbiguous":            {trust.ErrAmbiguous, errkind.Ambiguous},
	"trust.ErrCorrupt":              {trust.ErrCorrupt, errkind.TrustFile},
	"trust.ErrUnsupportedVersion":   {trust.ErrUnsupportedVersion, errkind.TrustFile},
	"history.ErrCorrupt":            {history.ErrCorrupt, errkind.HistoryFile},
	"history.ErrUnsupportedVersion": {history.ErrUnsupportedVersion, errkind.HistoryFile},
	"app.ErrClosed":                 {app.ErrClosed, errkind.Cancelled},
	"clipboard.ErrNoTool":           {clipboard.ErrNoTool, errkind.ClipboardTool},
	"clipboard.ErrEmpty":            {clipboard.ErrEmpty, errkind.ClipboardEmpty},
	"clipboard.ErrNoImage":          {clipboard.ErrNoImage, errkind.ClipboardEmpty},

	// core/app's names for the sentinels above, the same values.
	"app.ErrDeclined":     {app.ErrDeclined, errkind.Declined},
	"app.ErrCancelled":    {app.ErrCancelled, errkind.Cancelled},
	"app.ErrCodesStopped": {app.ErrCodesStopped, errkind.CodesStopped},
	"app.ErrWrongCode":    {app.ErrWrongCode, errkind.WrongCode},
	"app.ErrCodeRetired":  {app.ErrCodeRetired, errkind.CodeRetired},
	"app.ErrNotPaired":    {app.ErrNotPaired, errkind.NotPaired},
	"app.ErrKeyChanged":   {app.ErrKeyChanged, errkind.KeyChanged},

	// core/app/pick's: a picked file given at a path that is no path, or twice.
	"pick.ErrSourcePath":  {pick.ErrSourcePath, errkind.Usage},
	"pick.ErrSourceTwice": {pick.ErrSourceTwice, errkind.Usage},
	// core/app/stores' names for them.
	"stores.ErrNoSuchDevice":   {stores.ErrNoSuchDevice, errkind.NoSuchDevice},
	"stores.ErrAmbiguous":      {stores.ErrAmbiguous, errkind.Ambiguous},
	"stores.ErrTrustCorrupt":   {stores.ErrTrustCorrupt, errkind.TrustFile},
	"stores.ErrTrustVersion":   {stores.ErrTrustVersion, errkind.TrustFile},
	"stores.ErrHistoryVersion": {stores.ErrHistoryVersion, errkind.HistoryFile},
}

// TestEverySentinelHasAKind parses every package under core/ for
// exported package-level variables named Err*, and fails for one that
// the sentinels table above does not list (make it with errkind.New, and add
// it to the table), or whose kind
// is not the table's.
func TestEverySentinelHasAKind(t *testing.T) {
	found := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			return err
		}
		for _, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, name := range errVars(f) {
					found[pkg.Name+"."+name] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < len(sentinels)/2 {
		t.Fatalf("found only %d sentinels under core/: %v", len(found), found)
	}
	for name := range found {
		s, ok := sentinels[name]
		switch {
		case !ok:
			t.Errorf("%s has no kind: give it one in core/errkind (make it with errkind.New) and list it in this test", name)
		case errkind.Of(fmt.Errorf("doing it: %w", s.err)) != s.kind:
			t.Errorf("%s: kind %q, want %q", name, errkind.Of(s.err), s.kind)
		}
	}
	for name := range sentinels {
		if !found[name] {
			t.Errorf("%s is listed here but not declared under core/ any more", name)
		}
	}
}

// errVars are the exported package-level variables of f named Err*.
func errVars(f *ast.File) []string {
	var names []string
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			for _, n := range spec.(*ast.ValueSpec).Names {
				if strings.HasPrefix(n.Name, "Err") && n.IsExported() {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}

// TestErrorKindOfTwoSentinels: an error that wraps two sentinels gets the
// same kind every time, the more specific one's, however it wraps them.
func TestErrorKindOfTwoSentinels(t *testing.T) {
	for _, tt := range []struct {
		a, b error
		want errkind.Kind
	}{
		{transfer.ErrCancelled, transfer.ErrTimeout, errkind.Cancelled},
		{secure.ErrWrongCode, secure.ErrConnectionLost, errkind.WrongCode},
		{transfer.ErrDeclined, transfer.ErrCancelled, errkind.Declined},
		{transfer.ErrNoSpace, transfer.ErrRefusedPath, errkind.NoSpace},
		{transfer.ErrVerify, transfer.ErrProtocol, errkind.Verify},
		{trust.ErrCorrupt, transfer.ErrCancelled, errkind.Cancelled},
	} {
		for _, err := range []error{
			fmt.Errorf("%w: %w", tt.a, tt.b), fmt.Errorf("%w: %w", tt.b, tt.a),
			errors.Join(tt.a, tt.b), errors.Join(tt.b, tt.a),
		} {
			for range 200 {
				if got := errkind.Of(err); got != tt.want {
					t.Fatalf("errkind.Of(%v) = %q, want %q", err, got, tt.want)
				}
			}
		}
	}
}

// TestEverySentinelKindListed: every sentinel's kind is one errkind.All
// lists.
func TestEverySentinelKindListed(t *testing.T) {
	listed := map[errkind.Kind]bool{}
	for _, k := range errkind.All() {
		listed[k] = true
	}
	for name, s := range sentinels {
		if !listed[s.kind] {
			t.Errorf("%s: kind %q is not in errkind.All", name, s.kind)
		}
	}
}
