package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrinterRules(t *testing.T) {
	tests := []struct {
		name        string
		quiet, json bool
		wantStderr  string
		wantStdout  string
	}{
		{"default", false, false,
			"ferry: status\nferry: code 123456\nferry: warning: careful\nferry: error: it broke\nferry: hint: fix it\n", "payload\n"},
		{"quiet", true, false,
			"ferry: code 123456\nferry: warning: careful\nferry: error: it broke\nferry: hint: fix it\n", "payload\n"},
		{"json", false, true,
			"ferry: warning: careful\nferry: error: it broke\nferry: hint: fix it\n", `{"event":"x"}` + "\n"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		p := &printer{stdout: &stdout, stderr: &stderr, quiet: tt.quiet, json: tt.json}
		p.infof("status")
		p.noticef("code %s", "123456")
		p.warnf("careful")
		if !tt.json {
			p.stdoutText("payload\n")
		}
		p.event(struct {
			Event string `json:"event"`
		}{"x"})
		p.fail("it broke", "fix it")
		if stderr.String() != tt.wantStderr {
			t.Errorf("%s: stderr\n%q\nwant\n%q", tt.name, stderr.String(), tt.wantStderr)
		}
		if stdout.String() != tt.wantStdout {
			t.Errorf("%s: stdout %q, want %q", tt.name, stdout.String(), tt.wantStdout)
		}
	}
}

// TestOutputWrittenOnce enforces that output.go is the one writer: no
// other file of the command names os.Stdout or os.Stderr or prints with
// fmt.Print*, except main, which hands them to env.
func TestOutputWrittenOnce(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "output.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case id.Name == "os" && (sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr") && name != "main.go",
				id.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Print"),
				id.Name == "log":
				t.Errorf("%s: %s.%s writes around output.go", fset.Position(sel.Pos()), id.Name, sel.Sel.Name)
			}
			return true
		})
	}
	_ = os.Stdout
}
