package page

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
)

// nodeJSON runs node with args (a script and its arguments) and decodes
// what it prints, one JSON value, into got; why says what node is for,
// in the words of testkit.NeedTool. A run that fails, hangs past a
// minute or prints anything else fails t with node's output.
func nodeJSON(t *testing.T, why string, got any, args ...string) {
	t.Helper()
	node := testkit.NeedTool(t, "node", why)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	if err := json.Unmarshal(out, got); err != nil {
		t.Fatalf("node's output %q: %v", out, err)
	}
}
