package tests

import (
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/netns"
	"github.com/ferry-project/ferry/tests/proc"
)

// TestSendToThreeNamespaces sends one file with --to three times from a
// hub namespace to three receivers, each in a namespace of its own: the
// first declines (no --yes, no terminal), the second is killed with
// SIGKILL halfway, the third gets the file and its BLAKE3 matches. The
// sender's JSON says which got what, and it exits with the worst code:
// 1, the killed receiver's lost connection, over 4, the decline.
func TestSendToThreeNamespaces(t *testing.T) {
	star := netns.NewStar(t, "fmu", 3)
	// The killed receiver's link is slow, so the kill lands mid-file.
	if err := star.Limit(1, "24mbit"); err != nil {
		t.Fatal(err)
	}
	const size = 3 << 20
	src := randomFile(t, t.TempDir(), "photo.raw", size, 17)
	want := blake3File(t, src)

	codes := []string{"111111", "222222", "333333"}
	dests := make([]string, 3)
	recvs := make([]*proc.Proc, 3)
	var to []string
	for i := range 3 {
		dests[i] = t.TempDir()
		addr := net.JoinHostPort(star.LeafAddr[i].String(), "47001")
		in := func(name string, args ...string) *exec.Cmd { return star.Command(star.Leaves[i], name, args...) }
		args := []string{proc.Ferry(t), "receive", "--dir", dests[i], "--code", codes[i], "--json", "--no-mdns", "--listen", addr}
		if i != 0 {
			args = append(args, "--yes")
		}
		recvs[i] = proc.Start(t, asDevice(in, t.TempDir(), nil, args...), true)
		recvs[i].Until("listening", 20*time.Second)
		to = append(to, "--to", addr)
	}

	start := time.Now()
	args := []string{proc.Ferry(t), "send", "--json"}
	args = append(args, to...)
	for _, c := range codes {
		args = append(args, "--code", c)
	}
	hub := func(name string, args ...string) *exec.Cmd { return star.Command(star.Hub, name, args...) }
	send := proc.Start(t, asDevice(hub, t.TempDir(), nil, append(args, src)...), true)

	// Kill the second receiver once a third of the file has arrived, well
	// before the end: its link lets ~3 MB/s through, the file is 3 MiB,
	// and progress events come every 250 ms.
	for ev := range recvs[1].Events {
		if ev["event"] == "progress" && evInt(t, ev, "done") >= size/3 {
			if evInt(t, ev, "done") >= size {
				t.Fatal("the receiver to kill got the whole file before the kill")
			}
			recvs[1].Cmd.Process.Kill() // SIGKILL
			break
		}
	}

	results := map[float64]map[string]any{}
	var final map[string]any
	for ev := range send.Events {
		idx, tagged := ev["receiver_index"].(float64)
		switch {
		case !tagged && ev["event"] == "error":
			final = ev
		case !tagged:
			t.Errorf("sender event without its receiver: %v", ev)
		case ev["event"] == "done" || ev["event"] == "error":
			results[idx] = ev
		}
	}
	// The run's error is the killed receiver's (its failure is worse
	// than a decline), with that kind's exit code.
	killedKind, _ := results[2]["kind"].(string)
	checkFailure(t, "the sender", final, send.Exit(30*time.Second), []string{killedKind}, send.StderrText())
	t.Logf("the send took %v", time.Since(start).Round(time.Millisecond))
	if results[1]["kind"] != "declined" {
		t.Errorf("receiver 1: %v, want declined", results[1])
	}
	if results[2]["event"] != "error" || results[2]["kind"] == "declined" {
		t.Errorf("receiver 2 (killed): %v, want a failure", results[2])
	}
	if results[3]["event"] != "done" {
		t.Errorf("receiver 3: %v, want done", results[3])
	}
	if final == nil || !strings.Contains(final["message"].(string), "1 of 3 receivers got everything") {
		t.Errorf("the final error names what happened: %v", final)
	}

	failsAs(t, recvs[0], 20*time.Second, "the declining receiver", "declined")
	if code := recvs[2].Exit(20 * time.Second); code != 0 {
		t.Fatalf("third receiver exit %d; stderr:\n%s", code, recvs[2].StderrText())
	}
	if got := blake3File(t, filepath.Join(dests[2], "photo.raw")); got != want {
		t.Errorf("the third receiver's copy has BLAKE3 %s, the source %s", got, want)
	}
	for _, i := range []int{0, 1} {
		if _, err := exec.Command("test", "-e", filepath.Join(dests[i], "photo.raw")).Output(); err == nil {
			t.Errorf("receiver %d has photo.raw under its final name", i+1)
		}
	}
}
