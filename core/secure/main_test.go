package secure

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run if goroutines started by the tests outlive them:
// every handshake and stream goroutine has an owner that waits for it.
func TestMain(m *testing.M) {
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		// Under -fuzz, m.Run starts the fuzzing engine's signal handler,
		// which stays; it is not the tests'.
		buf := make([]byte, 1<<20)
		before += strings.Count(string(buf[:runtime.Stack(buf, true)]), "os/signal.loop()")
		if stacks := leaked(before, 5*time.Second); stacks != "" {
			fmt.Fprintf(os.Stderr, "goroutines outlived the tests (%d at start):\n%s", before, stacks)
			code = 1
		}
	}
	os.Exit(code)
}

// leaked waits up to limit for the goroutine count to fall back to
// before, and returns every stack if it does not.
func leaked(before int, limit time.Duration) string {
	deadline := time.Now().Add(limit)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			return string(buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
	return ""
}
