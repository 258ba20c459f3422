package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/tests/proc"
)

// soakTransfers is how many transfers the soak sends to one receiver.
const soakTransfers = 200

// TestSoakKeepReceiver sends 200 transfers in a row (files, folders and
// text, with a wrong code every 25) to one --keep
// receiver, and checks that its open file descriptors and goroutines come
// back to where they stood after the first transfer: nothing leaks per
// transfer. The counts come from the receiver's own done events
// (FERRY_DEBUG_RUNTIME=1) and, for descriptors, from /proc too.
func TestSoakKeepReceiver(t *testing.T) {
	dest := t.TempDir()
	recv := proc.Start(t, asDevice(exec.Command, t.TempDir(), []string{"FERRY_DEBUG_RUNTIME=1"},
		proc.Ferry(t), "receive", "--keep", "--yes", "--json", "--no-mdns",
		"--dir", dest, "--code", "919191", "--listen", "127.0.0.1:0"), true)
	ev := recv.Until("listening", 20*time.Second)
	addr := fmt.Sprintf("127.0.0.1:%d", evInt(t, ev, "port"))
	pid := recv.Cmd.Process.Pid
	src := t.TempDir()
	code := "919191"

	type level struct{ fds, procFDs, goroutines int64 }
	var start, end, peak level
	began := time.Now()
	for i := 1; i <= soakTransfers; i++ {
		args := []string{"send", "--to", addr, "--code", code, "--quiet"}
		switch i % 4 {
		case 0: // a folder of three files
			dir := filepath.Join(src, fmt.Sprintf("album-%03d", i))
			for j := range 3 {
				randomFile(t, mkdir(t, dir), fmt.Sprintf("p%d.jpg", j), 16<<10, uint64(i*10+j))
			}
			args = append(args, dir)
		case 1:
			args = append(args, "--text", fmt.Sprintf("snippet %d", i))
		default:
			args = append(args, randomFile(t, src, fmt.Sprintf("doc-%03d.bin", i), 48<<10, uint64(i)))
		}
		_, stderr, exit := proc.Run(t, exec.Command(proc.Ferry(t), args...))
		if exit != 0 {
			t.Fatalf("transfer %d: send exited %d:\n%s", i, exit, stderr)
		}
		o := nextOutcome(t, recv, time.Minute)
		if !o.ok() {
			t.Fatalf("transfer %d: receiver %v", i, o.ev)
		}
		// Once a wrong code retired the fixed one, the codes are picked,
		// and each is replaced when the transfer it made ends.
		for _, ev := range o.events {
			if ev["event"] == "code_changed" {
				code, _ = ev["code"].(string)
			}
		}
		if i%40 == 0 {
			// A wrong code between transfers: a failed handshake must
			// not leak either. Every third retires the code. Five in
			// all stay inside the receiver's six free wrong codes
			// (core/transfer's guess budget), so none is held back.
			wrong := fmt.Sprintf("%06d", (codeNum(code)+1)%1_000_000)
			_, stderr, exit := proc.Run(t, exec.Command(proc.Ferry(t), "send", "--to", addr, "--code", wrong, "--quiet", "--text", "x"))
			if exit != 3 {
				t.Fatalf("wrong code: exit %d, want 3:\n%s", exit, stderr)
			}
			if strings.Contains(stderr, "retired") {
				code, _ = recv.Until("code_changed", 20*time.Second)["code"].(string)
			}
		}
		l := level{fds: evInt(t, o.ev, "open_fds"), procFDs: int64(openFDs(t, pid)), goroutines: evInt(t, o.ev, "goroutines")}
		if i == 1 {
			start = l
		}
		end = l
		peak.fds, peak.procFDs, peak.goroutines = max(peak.fds, l.fds), max(peak.procFDs, l.procFDs), max(peak.goroutines, l.goroutines)
	}
	took := time.Since(began)
	t.Logf("%d transfers in %v; receiver after the first: %d open fds (%d in /proc), %d goroutines; after the last: %d fds (%d), %d goroutines; peak %d fds, %d goroutines",
		soakTransfers, took.Round(time.Millisecond), start.fds, start.procFDs, start.goroutines,
		end.fds, end.procFDs, end.goroutines, peak.fds, peak.goroutines)
	t.Logf("receiver peak RSS (VmHWM) over the soak: %s", mib(vmHWM(t, pid)))
	if end.fds > start.fds || end.procFDs > start.procFDs {
		t.Errorf("open file descriptors grew from %d to %d (/proc: %d to %d)", start.fds, end.fds, start.procFDs, end.procFDs)
	}
	if end.goroutines > start.goroutines {
		t.Errorf("goroutines grew from %d to %d", start.goroutines, end.goroutines)
	}
	if n := len(finalNames(t, dest)); n != soakTransfers*3/4 {
		t.Errorf("destination holds %d entries, want %d (texts are not saved)", n, soakTransfers*3/4)
	}
	if out := strings.TrimSpace(recv.StderrText()); strings.Contains(out, "panic") {
		t.Errorf("receiver stderr:\n%s", out)
	}
	recv.Signal(os.Interrupt)
	recv.Exit(20 * time.Second)
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
