package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
)

// TestDebugRuntime: with FERRY_DEBUG_RUNTIME=1 the done and error events
// carry the goroutine and descriptor counts; without it they do not, and
// other events never do.
func TestDebugRuntime(t *testing.T) {
	for _, on := range []bool{false, true} {
		var out bytes.Buffer
		p := &printer{stdout: &out, stderr: &bytes.Buffer{}, json: true, debugRuntime: on}
		p.event(event.Done{})
		p.event(event.Error{Kind: "failure"})
		p.event(event.CodeChanged{Code: "1"})
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		for i, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			want := on && i < 2
			for _, f := range []string{"goroutines", "open_fds"} {
				v, has := m[f]
				if has != want {
					t.Errorf("debug %v: %s: has %s = %v, want %v", on, l, f, has, want)
				}
				if has && v.(float64) < 1 {
					t.Errorf("%s = %v, want at least 1", f, v)
				}
			}
		}
	}

	// Through run: the env variable turns it on for the error event.
	e, stdout, _ := testEnv(t)
	getenv := e.getenv
	e.getenv = func(k string) string {
		if k == "FERRY_DEBUG_RUNTIME" {
			return "1"
		}
		return getenv(k)
	}
	if code := run(context.Background(), []string{"send", "--json", "--to", "127.0.0.1:9", "/nonexistent"}, e); code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(stdout.String(), `"goroutines":`) || !strings.Contains(stdout.String(), `"open_fds":`) {
		t.Fatalf("error event without runtime counts: %s", stdout)
	}
}
