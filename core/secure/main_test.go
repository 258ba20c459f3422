package secure

import (
	"os"
	"testing"

	"github.com/ferry-project/ferry/core/testkit"
)

// TestMain fails the run if goroutines started by the tests outlive them:
// every handshake and stream goroutine has an owner that waits for it.
// Under -fuzz, m.Run starts the fuzzing engine's signal handler, which
// stays; it is not the tests'.
func TestMain(m *testing.M) { os.Exit(testkit.Main(m, "os/signal.loop")) }
