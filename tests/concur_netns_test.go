package tests

// Issue 24's end-to-end tests: one `ferry receive --max-transfers N` in a
// hub namespace, each sender a real `ferry send` in a leaf namespace of
// its own, joined to the hub by a veth pair that can be shaped alone
// (tc tbf). Files are seeded random bytes checked by BLAKE3.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/netns"
	"github.com/ferry-project/ferry/tests/proc"
)

// concurRig is a star whose hub runs one receiver on port and whose
// leaves send to it.
type concurRig struct {
	t    *testing.T
	star *netns.Star
	port string
	code string
	dest string // the receiver's folder
	src  string // the senders' files
}

func newConcurRig(t *testing.T, prefix string, leaves int, port string) *concurRig {
	star := netns.NewStar(t, prefix, leaves)
	return &concurRig{t: t, star: star, port: port, code: "474747", dest: t.TempDir(), src: t.TempDir()}
}

// addr is the receiver's address as leaf i reaches it.
func (r *concurRig) addr(i int) string { return r.star.HubAddr[i].String() + ":" + r.port }

func (r *concurRig) in(ns string) func(string, ...string) *exec.Cmd {
	return func(name string, args ...string) *exec.Cmd { return r.star.Command(ns, name, args...) }
}

// receive starts the receiver in the hub with --json and extra flags,
// and waits until it listens.
func (r *concurRig) receive(extra ...string) *proc.Proc {
	args := append([]string{proc.Ferry(r.t), "receive", "--dir", r.dest, "--code", r.code, "--json",
		"--no-mdns", "--listen", "0.0.0.0:" + r.port}, extra...)
	p := proc.Start(r.t, asDevice(r.in(r.star.Hub), r.t.TempDir(), nil, args...), true)
	p.Until("listening", 20*time.Second)
	return p
}

// send starts `ferry send --json` in leaf i as the device whose home is
// home (a sender that is run again keeps its key, so it resumes).
func (r *concurRig) send(i int, home, code, name string, files ...string) *proc.Proc {
	args := append([]string{proc.Ferry(r.t), "send", "--json", "--name", name, "--to", r.addr(i), "--code", code}, files...)
	return proc.Start(r.t, asDevice(r.in(r.star.Leaves[i]), home, nil, args...), true)
}

// file writes a seeded random file into the senders' folder (under sub
// when given) and returns its path and BLAKE3.
func (r *concurRig) file(sub, name string, size int64, seed uint64) (string, string) {
	dir := filepath.Join(r.src, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	p := randomFile(r.t, dir, name, size, seed)
	return p, blake3File(r.t, p)
}

// sendsOK waits for a sender's outcome and exit and fails unless it
// landed; it returns its done event.
func sendsOK(t *testing.T, p *proc.Proc, who string) map[string]any {
	t.Helper()
	o := nextOutcome(t, p, 2*time.Minute)
	if code := p.Exit(20 * time.Second); !o.ok() || code != 0 {
		t.Fatalf("%s: exit %d, %v; stderr:\n%s", who, code, o.ev, p.StderrText())
	}
	return o.ev
}

// stopKeep interrupts a --keep receiver and checks it exits 0.
func stopKeep(t *testing.T, p *proc.Proc) {
	t.Helper()
	p.Signal(os.Interrupt)
	if code := p.Exit(20 * time.Second); code != 0 {
		t.Errorf("the receiver exited %d after SIGINT; stderr:\n%s", code, p.StderrText())
	}
}

// checkFolder checks that dest holds exactly the files of want (final
// name → BLAKE3) and no partial file.
func checkFolder(t *testing.T, dest string, want map[string]string) {
	t.Helper()
	got := finalNames(t, dest)
	var names []string
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	slices.Sort(got)
	if !slices.Equal(got, names) {
		t.Errorf("the receiver's folder holds %q, want %q", got, names)
	}
	for n, sum := range want {
		if h := blake3File(t, filepath.Join(dest, n)); h != sum {
			t.Errorf("%s has BLAKE3 %s, want %s", n, h, sum)
		}
	}
	if p := partials(t, dest); len(p) != 0 {
		t.Errorf("partial files left: %v", p)
	}
}

// transferOf is a receiver event's transfer number (0 when it has none).
func transferOf(ev map[string]any) int64 {
	f, _ := ev["transfer"].(float64)
	return int64(f)
}

// TestConcurDeclineKillResume: a receiver taking 4 at once, on a
// terminal, asked about three senders that arrive together. The person
// accepts alice and bob and declines carol; bob (on a slow link) is
// killed with SIGKILL halfway, then runs the same send again and resumes.
// alice and bob land intact, carol gets declined and leaves nothing.
func TestConcurDeclineKillResume(t *testing.T) {
	r := newConcurRig(t, "fcA", 3, "47301")
	if err := r.star.Limit(1, "24mbit"); err != nil { // bob: ~3 MB/s
		t.Fatal(err)
	}
	aPath, aSum := r.file("a", "alice.bin", 8<<20, 31)
	const bSize = 6 << 20
	bPath, bSum := r.file("b", "bob.bin", bSize, 32)
	cPath, _ := r.file("c", "carol.bin", 1<<20, 33)

	m, s := proc.OpenPTY(t)
	cmd := asDevice(r.in(r.star.Hub), t.TempDir(), nil, proc.Ferry(t), "receive", "--dir", r.dest, "--code", r.code,
		"--no-mdns", "--listen", "0.0.0.0:"+r.port, "--max-transfers", "4", "--keep")
	cmd.Stdin, cmd.Stderr = s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	recv := proc.Start(t, cmd, false)
	s.Close()
	person := answerer(m, map[string]string{"alice": "y", "bob": "y", "carol": "n"})
	person.waitFor(t, "waiting for senders, up to 4 at once")

	bobHome := t.TempDir()
	alice := r.send(0, t.TempDir(), r.code, "alice", aPath)
	bob := r.send(1, bobHome, r.code, "bob", bPath)
	carol := r.send(2, t.TempDir(), r.code, "carol", cPath)

	// Kill bob once a quarter of his file is across, well before its end.
	for ev := range bob.Events {
		if ev["event"] == "progress" && evInt(t, ev, "done") >= bSize/4 {
			if evInt(t, ev, "done") >= bSize {
				t.Fatal("bob sent the whole file before the kill")
			}
			bob.Cmd.Process.Kill() // SIGKILL
			break
		}
	}
	bob.Exit(20 * time.Second)
	failsAs(t, carol, time.Minute, "carol", "declined")
	sendsOK(t, alice, "alice")
	person.waitFor(t, "transfer from bob")

	// bob again, the same device and file: it resumes.
	bob = r.send(1, bobHome, r.code, "bob", bPath)
	done := sendsOK(t, bob, "bob's second run")
	// What bob had sent when killed was partly still in flight, so the
	// receiver kept less: some, never all.
	if rb := evInt(t, done, "resumed_bytes"); rb <= 0 || rb >= bSize {
		t.Errorf("bob's second run resumed %d of %d bytes, want some and not all: %v", rb, bSize, done)
	}
	stopKeep(t, recv)
	if got := person.asked(); !slices.Equal(got, []string{"alice", "bob", "bob", "carol"}) {
		t.Errorf("the person was asked about %v, want alice, bob (twice) and carol once each; terminal:\n%s", got, person.text())
	}
	checkFolder(t, r.dest, map[string]string{"alice.bin": aSum, "bob.bin": bSum})
	if text := person.text(); !strings.Contains(text, "transfer from carol") || regexp.MustCompile(`hint: *\r?\n`).MatchString(text) {
		t.Errorf("the receiver's terminal lacks carol's decline or has an empty hint line:\n%s", text)
	}
}

// person answers a receiver's questions on its terminal: each "accept
// ... from NAME (FINGERPRINT)? [y/N] " gets the answer for NAME, and
// every other question no.
type person struct {
	mu      sync.Mutex
	out     strings.Builder
	names   []string
	changed chan struct{}
}

func answerer(m *os.File, answers map[string]string) *person {
	p := &person{changed: make(chan struct{}, 1)}
	go func() {
		b := make([]byte, 4096)
		seen := 0
		for {
			n, err := m.Read(b)
			p.mu.Lock()
			p.out.Write(b[:max(n, 0)])
			text := p.out.String()
			for {
				i := strings.Index(text[seen:], "? [y/N] ")
				if i < 0 {
					break
				}
				q := text[seen : seen+i]
				seen += i + len("? [y/N] ")
				p.answer(m, q[strings.LastIndex(q, "\n")+1:], answers)
			}
			p.mu.Unlock()
			select {
			case p.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// answer answers question q, the line that asks it: an offer from a
// sender of answers by its answer, anything else (whether to trust a
// sender after its transfer) no.
func (p *person) answer(m *os.File, q string, answers map[string]string) {
	// The CLI's progress rows are wiped (cursor up, erase) just before a
	// question, on the question's own line.
	if i := strings.LastIndex(q, "ferry: "); i > 0 {
		q = q[i:]
	}
	if !strings.HasPrefix(q, "ferry: accept ") {
		m.Write([]byte("n\n"))
		return
	}
	for name, a := range answers {
		if strings.Contains(q, " from "+name+" (") {
			p.names = append(p.names, name)
			m.Write([]byte(a + "\n"))
			return
		}
	}
	m.Write([]byte("n\n"))
}

func (p *person) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		p.mu.Lock()
		text := p.out.String()
		p.mu.Unlock()
		if strings.Contains(text, s) {
			return
		}
		select {
		case <-p.changed:
		case <-deadline:
			t.Fatalf("the receiver's terminal shows no %q:\n%s", s, text)
		}
	}
}

func (p *person) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *person) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(slices.Values(p.names))
}

// TestConcurSameNames: two senders offer photo.jpg (different bytes) at
// once into one folder: both transfers are under way together, and the
// folder ends with photo.jpg and photo (1).jpg, each intact, and no
// partial file.
func TestConcurSameNames(t *testing.T) {
	r := newConcurRig(t, "fcB", 2, "47302")
	want := map[string]bool{}
	var paths []string
	for i := range 2 {
		if err := r.star.Limit(i, "32mbit"); err != nil { // ~1.5 s each: they overlap
			t.Fatal(err)
		}
		p, sum := r.file(fmt.Sprint(i), "photo.jpg", 6<<20, uint64(40+i))
		paths, want[sum] = append(paths, p), true
	}
	recv := r.receive("--yes", "--keep", "--max-transfers", "4")
	senders := []*proc.Proc{r.send(0, t.TempDir(), r.code, "one", paths[0]), r.send(1, t.TempDir(), r.code, "two", paths[1])}
	moving := map[int64]bool{}
	for len(moving) < 2 {
		ev := recv.Until("progress", time.Minute)
		moving[transferOf(ev)] = true
	}
	for i, s := range senders {
		sendsOK(t, s, fmt.Sprintf("sender %d", i))
	}
	stopKeep(t, recv)
	names := finalNames(t, r.dest)
	slices.Sort(names)
	if !slices.Equal(names, []string{"photo (1).jpg", "photo.jpg"}) {
		t.Fatalf("the folder holds %q, want photo.jpg and photo (1).jpg", names)
	}
	for _, n := range names {
		sum := blake3File(t, filepath.Join(r.dest, n))
		if !want[sum] {
			t.Errorf("%s matches neither sender's photo.jpg", n)
		}
		delete(want, sum)
	}
	if p := partials(t, r.dest); len(p) != 0 {
		t.Errorf("partial files left: %v", p)
	}
}

// TestConcurBusyBeyondLimit: --max-transfers 3 with three senders under
// way on slow links; a fourth and a fifth are told busy, with the three
// in the message and busy's exit code, and the three land intact.
func TestConcurBusyBeyondLimit(t *testing.T) {
	r := newConcurRig(t, "fcC", 5, "47303")
	recv := r.receive("--yes", "--keep", "--max-transfers", "3")
	want := map[string]string{}
	var running []*proc.Proc
	for i := range 3 {
		// 4 MiB: ~4 s, long enough for two more senders to start on a
		// loaded machine.
		if err := r.star.Limit(i, "8mbit"); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("run%d.bin", i)
		p, sum := r.file(name, name, 4<<20, uint64(50+i))
		want[name] = sum
		running = append(running, r.send(i, t.TempDir(), r.code, name, p))
	}
	moving := map[int64]bool{}
	for len(moving) < 3 {
		moving[transferOf(recv.Until("progress", time.Minute))] = true
	}
	for i := 3; i < 5; i++ {
		p, _ := r.file("late", fmt.Sprintf("late%d.bin", i), 1<<20, uint64(50+i))
		late := r.send(i, t.TempDir(), r.code, fmt.Sprint("late", i), p)
		ev := failsAs(t, late, time.Minute, fmt.Sprint("sender ", i+1), "busy")
		if msg, _ := ev["message"].(string); !strings.Contains(msg, "in 3 transfers") {
			t.Errorf("sender %d's busy message does not say 3 transfers: %q", i+1, msg)
		}
	}
	for i, s := range running {
		sendsOK(t, s, fmt.Sprint("sender ", i+1))
	}
	stopKeep(t, recv)
	checkFolder(t, r.dest, want)
}

// TestConcurWrongCodeFlood: two transfers under way on slow links while
// 16 senders with wrong codes arrive, four at a time, from a third
// namespace. Each of them fails as a wrong or refused code (or busy),
// and the two transfers land intact.
func TestConcurWrongCodeFlood(t *testing.T) {
	r := newConcurRig(t, "fcD", 3, "47304")
	recv := r.receive("--yes", "--max-transfers", "4")
	want := map[string]string{}
	var honest []*proc.Proc
	for i := range 2 {
		// 6 MiB: ~6 s, far longer than the flood even on a loaded
		// machine (checked below).
		if err := r.star.Limit(i, "8mbit"); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("honest%d.bin", i)
		p, sum := r.file(name, name, 6<<20, uint64(60+i))
		want[name] = sum
		honest = append(honest, r.send(i, t.TempDir(), r.code, name, p))
	}
	moving := map[int64]bool{}
	for len(moving) < 2 {
		moving[transferOf(recv.Until("progress", time.Minute))] = true
	}
	junk, _ := r.file("junk", "junk.bin", 1024, 69)
	kinds := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range 4 {
				code := fmt.Sprintf("%06d", 100000+w*10+g)
				cmd := asDevice(r.in(r.star.Leaves[2]), t.TempDir(), nil, proc.Ferry(t), "send", "--json",
					"--to", r.addr(2), "--code", code, junk)
				out, _ := cmd.Output()
				kind := "?"
				if i := strings.LastIndex(string(out), `"kind":"`); i >= 0 {
					kind = strings.SplitN(string(out)[i+8:], `"`, 2)[0]
				}
				mu.Lock()
				kinds[kind]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("the flood's 16 senders failed as %v", kinds)
	if p := partials(t, r.dest); len(p) != 2 {
		t.Fatalf("the honest transfers were not both under way when the flood ended (partial files %v): make them longer", p)
	}
	for k := range kinds {
		if !slices.Contains([]string{"wrong_code", "code_retired", "codes_held", "codes_stopped", "busy"}, k) {
			t.Errorf("a wrong-code sender ended as %q", k)
		}
	}
	if kinds["wrong_code"] == 0 {
		t.Errorf("no wrong code was checked: %v", kinds)
	}
	for i, s := range honest {
		sendsOK(t, s, fmt.Sprint("honest sender ", i+1))
	}
	// A handful of wrong codes was checked, far from the budget's end:
	// the receiver ends as usual, once its transfers have.
	if code := recv.Exit(time.Minute); code != 0 {
		t.Errorf("the receiver exited %d after the flood; stderr:\n%s", code, recv.StderrText())
	}
	checkFolder(t, r.dest, want)
}

// TestConcurSlowSenderKeepsGoing (issue 24 item 4): one sender throttled
// to 1 MiB/s while two others run at full speed. The two fast ones finish
// first, whole, while the slow one is still under way; then it finishes
// too. Order and bytes only: the speeds are benches/concur-netns.sh's.
func TestConcurSlowSenderKeepsGoing(t *testing.T) {
	r := newConcurRig(t, "fcE", 3, "47305")
	if err := r.star.Limit(0, "8mbit"); err != nil { // 1 MiB/s
		t.Fatal(err)
	}
	recv := r.receive("--yes", "--max-transfers", "4")
	const slowSize, fastSize = 4 << 20, 24 << 20
	want := map[string]string{}
	sizes := []int64{slowSize, fastSize, fastSize}
	senders := make([]*proc.Proc, len(sizes))
	start := func(i int) {
		name := fmt.Sprintf("s%d.bin", i)
		p, sum := r.file(name, name, sizes[i], uint64(70+i))
		want[name] = sum
		senders[i] = r.send(i, t.TempDir(), r.code, name, p)
	}
	start(0)
	// The receiver's transfers in the order they ended, and the slow
	// one's bytes (its last progress) when each ended; the fast ones
	// start once the slow one is under way.
	ended, slowAt := watchEnds(t, recv, "s0.bin", func() { start(1); start(2) })
	if len(ended) != 3 || ended[2] != "s0.bin" {
		t.Fatalf("the transfers ended in the order %v, want the slow s0.bin last", ended)
	}
	for i, at := range slowAt[:2] {
		if at <= 0 || at >= slowSize {
			t.Errorf("the slow sender had %d of %d bytes across when fast %s ended, want it under way", at, slowSize, ended[i])
		}
	}
	t.Logf("the slow sender had %s and %s across when the fast ones ended", mib(slowAt[0]), mib(slowAt[1]))
	for i, s := range senders {
		if got := evInt(t, sendsOK(t, s, fmt.Sprint("sender ", i+1)), "bytes"); got != sizes[i] {
			t.Errorf("sender %d sent %d bytes, want %d", i+1, got, sizes[i])
		}
	}
	if code := recv.Exit(time.Minute); code != 0 {
		t.Errorf("the receiver exited %d; stderr:\n%s", code, recv.StderrText())
	}
	checkFolder(t, r.dest, want)
}

// watchEnds reads a receiver's events until three transfers have ended
// (done or error), each known by its sender's --name. It returns their
// names in the order they ended and, at each end, the bytes the sender
// named slow had moved by its last progress event. moving runs once,
// when the slow one's first bytes are across.
func watchEnds(t *testing.T, recv *proc.Proc, slow string, moving func()) (ended []string, slowAt []int64) {
	t.Helper()
	names := map[int64]string{}
	var slowDone int64
	deadline := time.After(2 * time.Minute)
	for len(ended) < 3 {
		var ev map[string]any
		select {
		case e, ok := <-recv.Events:
			if !ok {
				t.Fatalf("the receiver exited after %v ended; stderr:\n%s", ended, recv.StderrText())
			}
			ev = e
		case <-deadline:
			t.Fatalf("only %v ended; stderr:\n%s", ended, recv.StderrText())
		}
		id := transferOf(ev)
		switch ev["event"] {
		case "connected":
			names[id], _ = ev["peer_name"].(string)
		case "progress":
			if names[id] == slow {
				if slowDone == 0 && evInt(t, ev, "done") > 0 {
					moving()
				}
				slowDone = evInt(t, ev, "done")
			}
		case "done", "error":
			if id == 0 {
				t.Fatalf("the receiver ended: %v", ev)
			}
			if ev["event"] == "error" {
				t.Errorf("%s's transfer failed on the receiver: %v", names[id], ev)
			}
			ended, slowAt = append(ended, names[id]), append(slowAt, slowDone)
		}
	}
	return ended, slowAt
}
