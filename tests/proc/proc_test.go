package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An event line far over bufio.Scanner's default and over 1 MiB (a large
// offer's) reaches the test whole, and the events after it too. The
// writer is a real process (cat) writing to a pipe, as ferry does.
func TestLongEventLines(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	file := filepath.Join(t.TempDir(), "events")
	lines := `{"event":"Offered","text":"` + big + `"}` + "\n" + `{"event":"Done"}` + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	p := Start(t, exec.Command("cat", file), true)
	if ev := p.Until("Offered", 30*time.Second); ev["text"] != big {
		t.Fatalf("the long event arrived with %d bytes of text, want %d", len(ev["text"].(string)), len(big))
	}
	p.Until("Done", 30*time.Second)
	if code := p.Exit(30 * time.Second); code != 0 {
		t.Fatalf("cat exited %d", code)
	}
}
