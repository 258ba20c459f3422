package testkit

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// LeakLimit is how long a leak check waits for goroutines to end before it
// calls them leaked. Generous: a goroutine that has signalled its end (a
// WaitGroup's Done, a send) is still on the stack until its deferred calls
// return, and on a loaded 2-core machine that can take a while.
const LeakLimit = 5 * time.Second

// stacks returns the stack of every goroutine, the caller's first, one
// string each, headed "goroutine N [state]:".
func stacks() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Split(string(buf[:n]), "\n\n")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// id returns the goroutine number in a stack's header line.
func id(stack string) string {
	head, _, _ := strings.Cut(stack, " [")
	return strings.TrimPrefix(head, "goroutine ")
}

// WaitGone waits up to limit until no goroutine other than the caller's
// has a stack that satisfies match, and returns the stacks of those that
// still do (empty when none). It polls because nothing signals a
// goroutine's last step.
func WaitGone(limit time.Duration, match func(stack string) bool) string {
	deadline := time.Now().Add(limit)
	for {
		var left []string
		for _, g := range stacks()[1:] {
			if match(g) {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return strings.Join(left, "\n\n")
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond) // polling a condition nothing signals
	}
}

// jsEvents is in the stack of js/wasm's runtime goroutine that runs
// JavaScript's callbacks (a timer's, a file read's): the runtime starts
// it at the first one and it never ends, so a test that is the first to
// wait on JavaScript must not be charged with it.
const jsEvents = "runtime.handleEvent("

// Baseline is the set of goroutines running at one moment.
type Baseline map[string]bool

// Running returns the goroutines running now.
func Running() Baseline {
	b := Baseline{}
	for _, g := range stacks() {
		b[id(g)] = true
	}
	return b
}

// Leaked waits up to limit for every goroutine started since b to end,
// and returns the stacks of those still running (empty when none).
// Goroutines whose stack contains one of ignore are not counted: name
// there what a test knowingly leaves running, such as a listener's
// accept loop that ends at cleanup.
func (b Baseline) Leaked(limit time.Duration, ignore ...string) string {
	return WaitGone(limit, func(g string) bool {
		if b[id(g)] || strings.Contains(g, jsEvents) {
			return false
		}
		for _, s := range ignore {
			if strings.Contains(g, s) {
				return false
			}
		}
		return true
	})
}

// CheckGoroutines fails t if goroutines started from now on (other than
// those whose stack contains one of ignore) are still running LeakLimit
// after t and its cleanups registered before this call end.
func CheckGoroutines(t testing.TB, ignore ...string) {
	t.Helper()
	checkGoroutines(t, LeakLimit, ignore...)
}

func checkGoroutines(t testing.TB, limit time.Duration, ignore ...string) {
	b := Running()
	t.Cleanup(func() {
		if left := b.Leaked(limit, ignore...); left != "" {
			t.Errorf("goroutines outlived the test:\n%s", left)
		}
	})
}

// Main runs the tests and then fails the run if goroutines they started
// (other than those whose stack contains one of ignore) are still
// running LeakLimit later. It returns the exit code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
func Main(m *testing.M, ignore ...string) int {
	b := Running()
	code := m.Run()
	if code == 0 {
		if left := b.Leaked(LeakLimit, ignore...); left != "" {
			fmt.Fprintf(os.Stderr, "goroutines outlived the tests:\n%s\n", left)
			code = 1
		}
	}
	return code
}
