//go:build !js

// The sentinel census imports the packages that keep files (trust,
// history), which do not build for the browser.

package transfer_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ferry-project/ferry/core/clipboard"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/trust"
)

// sentinels are the exported sentinel errors of core's packages, by
// "package.Name", with the kind each must have. TestEverySentinelHasAKind
// finds them in the source, so a new one that is not here fails it.
var sentinels = map[string]struct {
	err  error
	kind transfer.ErrorKind
}{
	"transfer.ErrDeclined":          {transfer.ErrDeclined, transfer.KindDeclined},
	"transfer.ErrCancelled":         {transfer.ErrCancelled, transfer.KindCancelled},
	"transfer.ErrVerify":            {transfer.ErrVerify, transfer.KindVerify},
	"transfer.ErrRefusedPath":       {transfer.ErrRefusedPath, transfer.KindRefusedPath},
	"transfer.ErrNoSpace":           {transfer.ErrNoSpace, transfer.KindNoSpace},
	"transfer.ErrTimeout":           {transfer.ErrTimeout, transfer.KindTimeout},
	"transfer.ErrSourceChanged":     {transfer.ErrSourceChanged, transfer.KindSourceChanged},
	"transfer.ErrProtocol":          {transfer.ErrProtocol, transfer.KindProtocol},
	"transfer.ErrCodesStopped":      {transfer.ErrCodesStopped, transfer.KindCodesStopped},
	"secure.ErrWrongCode":           {secure.ErrWrongCode, transfer.KindWrongCode},
	"secure.ErrCodeRetired":         {secure.ErrCodeRetired, transfer.KindCodeRetired},
	"secure.ErrCodesHeld":           {secure.ErrCodesHeld, transfer.KindCodesHeld},
	"secure.ErrBusy":                {secure.ErrBusy, transfer.KindBusy},
	"secure.ErrNotPaired":           {secure.ErrNotPaired, transfer.KindNotPaired},
	"secure.ErrNoCodes":             {secure.ErrNoCodes, transfer.KindNotPaired},
	"secure.ErrKeyChanged":          {secure.ErrKeyChanged, transfer.KindKeyChanged},
	"secure.ErrIncompatibleVersion": {secure.ErrIncompatibleVersion, transfer.KindIncompatible},
	"secure.ErrNotFerry":            {secure.ErrNotFerry, transfer.KindNotFerry},
	"secure.ErrHandshakeTimeout":    {secure.ErrHandshakeTimeout, transfer.KindTimeout},
	"secure.ErrBadPSK":              {secure.ErrBadPSK, transfer.KindInternal},
	"secure.ErrAuth":                {secure.ErrAuth, transfer.KindDamaged},
	"secure.ErrMalformed":           {secure.ErrMalformed, transfer.KindProtocol},
	"secure.ErrTruncated":           {secure.ErrTruncated, transfer.KindConnectionLost},
	"secure.ErrTrailingData":        {secure.ErrTrailingData, transfer.KindProtocol},
	"secure.ErrConnectionLost":      {secure.ErrConnectionLost, transfer.KindConnectionLost},
	"secure.ErrClosed":              {secure.ErrClosed, transfer.KindInternal},
	"trust.ErrNotFound":             {trust.ErrNotFound, transfer.KindNoSuchDevice},
	"trust.ErrAmbiguous":            {trust.ErrAmbiguous, transfer.KindAmbiguous},
	"trust.ErrCorrupt":              {trust.ErrCorrupt, transfer.KindTrustFile},
	"trust.ErrUnsupportedVersion":   {trust.ErrUnsupportedVersion, transfer.KindTrustFile},
	"history.ErrCorrupt":            {history.ErrCorrupt, transfer.KindHistoryFile},
	"history.ErrUnsupportedVersion": {history.ErrUnsupportedVersion, transfer.KindHistoryFile},
	"clipboard.ErrNoTool":           {clipboard.ErrNoTool, transfer.KindClipboardTool},
	"clipboard.ErrEmpty":            {clipboard.ErrEmpty, transfer.KindClipboardEmpty},
	"clipboard.ErrNoImage":          {clipboard.ErrNoImage, transfer.KindClipboardEmpty},
}

// TestEverySentinelHasAKind parses every package under core/ for
// exported package-level variables named Err*, and fails for one that
// the sentinels table above does not list (add it to ErrorKindOf's rules
// in kinds.go, or make it with NewError, and to the table), or whose kind
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
			t.Errorf("%s has no kind: give it one in core/transfer/kinds.go (a rule, or NewError) and list it in this test", name)
		case transfer.ErrorKindOf(fmt.Errorf("doing it: %w", s.err)) != s.kind:
			t.Errorf("%s: kind %q, want %q", name, transfer.ErrorKindOf(s.err), s.kind)
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

// TestErrorKindOf covers the errors that are not sentinels of core's:
// the standard library's and the system's.
func TestErrorKindOf(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, tt := range []struct {
		err  error
		want transfer.ErrorKind
	}{
		{nil, ""},
		{errors.New("disk on fire"), transfer.KindFailure},
		{context.Canceled, transfer.KindCancelled},
		{context.DeadlineExceeded, transfer.KindTimeout},
		{dial, transfer.KindUnreachable},
		{&net.DNSError{Err: "no such host", Name: "box.invalid"}, transfer.KindUnreachable},
		{&net.OpError{Op: "listen", Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}, transfer.KindAddressInUse},
		{&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, transfer.KindConnectionLost},
		{&net.OpError{Op: "write", Err: errors.New("broken")}, transfer.KindConnectionLost},
		{os.NewSyscallError("write", syscall.ENOSPC), transfer.KindNoSpace},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, transfer.KindPermission},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, transfer.KindFileMissing},
		{transfer.NewError(transfer.KindUsage, "bad flags"), transfer.KindUsage},
	} {
		if got := transfer.ErrorKindOf(tt.err); got != tt.want {
			t.Errorf("ErrorKindOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestErrorKindOfTwoSentinels: an error that wraps two sentinels gets the
// same kind every time, the more specific one's, however it wraps them.
func TestErrorKindOfTwoSentinels(t *testing.T) {
	for _, tt := range []struct {
		a, b error
		want transfer.ErrorKind
	}{
		{transfer.ErrCancelled, transfer.ErrTimeout, transfer.KindCancelled},
		{secure.ErrWrongCode, secure.ErrConnectionLost, transfer.KindWrongCode},
		{transfer.ErrDeclined, transfer.ErrCancelled, transfer.KindDeclined},
		{transfer.ErrNoSpace, transfer.ErrRefusedPath, transfer.KindNoSpace},
		{transfer.ErrVerify, transfer.ErrProtocol, transfer.KindVerify},
		{trust.ErrCorrupt, transfer.ErrCancelled, transfer.KindCancelled},
	} {
		for _, err := range []error{
			fmt.Errorf("%w: %w", tt.a, tt.b), fmt.Errorf("%w: %w", tt.b, tt.a),
			errors.Join(tt.a, tt.b), errors.Join(tt.b, tt.a),
		} {
			for range 200 {
				if got := transfer.ErrorKindOf(err); got != tt.want {
					t.Fatalf("ErrorKindOf(%v) = %q, want %q", err, got, tt.want)
				}
			}
		}
	}
}

// TestErrorKindsListed: ErrorKinds names every kind once, KindFailure
// last, and NewError's errors carry theirs.
func TestErrorKindsListed(t *testing.T) {
	kinds := transfer.ErrorKinds()
	seen := map[transfer.ErrorKind]bool{}
	for _, k := range kinds {
		if k == "" || seen[k] || strings.ToLower(string(k)) != string(k) || strings.ContainsAny(string(k), " -") {
			t.Errorf("kind %q: empty, repeated, or not lower_snake_case", k)
		}
		seen[k] = true
		if got := transfer.ErrorKindOf(fmt.Errorf("x: %w", transfer.NewError(k, "example"))); got != k {
			t.Errorf("NewError(%q) has kind %q", k, got)
		}
	}
	if kinds[len(kinds)-1] != transfer.KindFailure {
		t.Errorf("ErrorKinds ends with %q, not failure", kinds[len(kinds)-1])
	}
	for _, s := range sentinels {
		if !seen[s.kind] {
			t.Errorf("kind %q is not in ErrorKinds", s.kind)
		}
	}
}
