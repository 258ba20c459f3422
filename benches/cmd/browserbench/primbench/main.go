// Command primbench measures the page's primitives alone in headless
// Chromium (issue 33, item 1): ChaCha20-Poly1305 and BLAKE3 in Go's
// WebAssembly (x/crypto, core/filehash) against libsodium's and
// blake3-wasm's builds as the page uses them (gui/page/prims.js, called
// from Go with the crossing core/secure and core/filehash make), and
// the libraries called from JavaScript with nothing around them, in one
// page, interleaved in rounds: it prints each one's median MiB/s, its
// range and every round, and the ratio of each to Go's.
//
// The machines here are shared, so a wall-clock rate moves with
// everyone else's load: each run is also timed by the CPU the page's
// renderer spent on it (every thread of it, from /proc), which a busy
// machine slows far less; that rate is the figure to read. To find its
// own renderer among other people's browsers, primbench runs in a
// network namespace of its own (unshare -n, as root) and counts only the
// processes in it.
//
// It needs gui/page's aead.js (libsodium's cipher for WebAssembly SIMD,
// gui/page/simd) or sodium.js (npm libsodium's, where the build could
// not make aead.js), and blake3.js (make wasm); "libsodium" in its
// figures is whichever of the two the page has, and it prints which.
// The page is served on 127.0.0.1 and runs the primitives on its main
// thread.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-project/ferry/tests/browser"
)

var (
	rounds = flag.Int("rounds", 5, "interleaved rounds")
	mib    = flag.Int("mib", 64, "MiB each primitive runs over per round")
	page   = flag.String("page", "gui/page", "the folder with aead.js or sodium.js, blake3.js and prims.js")
)

// order is each round's: every Go figure next to the library's.
var order = []string{
	"seal x/crypto", "seal libsodium via Go", "seal libsodium from JS",
	"open x/crypto", "open libsodium via Go",
	"BLAKE3 Go (filehash)", "BLAKE3 blake3-wasm via Go", "BLAKE3 blake3-wasm from JS",
}

const index = `<!doctype html><meta charset="utf-8"><title>primbench</title>
<script src="wasm_exec.js"></script><script src="CIPHER"></script><script src="blake3.js"></script><script src="prims.js"></script>
<script>
// jsBench runs a library from JavaScript alone: the figure its own
// overhead-free use would reach.
async function jsBench(name, mib) {
  const p = globalThis.ferryPrims;
  const t = performance.now();
  if (name === 'seal libsodium from JS') {
    const n = 65519;
    for (let i = 0; i < (mib << 20) / n; i++) p.seal(n);
  } else {
    // The hash's state copied in and out around each piece, as for Go.
    const st = p.hashNew();
    for (let i = 0; i < mib * (1 << 20) / p.hashIO; i++) p.hashWrite(st, p.hashIO);
    p.hashSum(st);
  }
  return mib / ((performance.now() - t) / 1000);
}
window.ready = (async () => {
  const aead = globalThis.ferryAEADWasm ? {wasm: ferryAEADWasm, known: globalThis.ferryAEADKnown} : null;
  globalThis.ferryPrims = await ferryMakePrims({aead, sodium: globalThis.ferrySodium, blake3: ferryBLAKE3Wasm});
  const go = new Go();
  const r = await WebAssembly.instantiateStreaming(fetch('prim.wasm'), go.importObject);
  await new Promise(res => { globalThis.primBenchReady = res; go.run(r.instance); });
})();
window.one = async (n, mib) => n.endsWith('from JS') ? await jsBench(n, mib) : primBench(n, mib);
</script>`

func main() {
	flag.Parse()
	ownNetns()
	dir, err := os.MkdirTemp("", "primbench-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	wasm := filepath.Join(dir, "prim.wasm")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, "./benches/cmd/browserbench/primbench/wasm")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		fatal(fmt.Errorf("building the wasm: %v\n%s", err, b))
	}
	root, _ := exec.Command("go", "env", "GOROOT").Output()
	files := map[string]string{
		"prim.wasm":    wasm,
		"wasm_exec.js": filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", "wasm_exec.js"),
	}
	cipher := "aead.js"
	if _, err := os.Stat(filepath.Join(*page, cipher)); err != nil {
		cipher = "sodium.js"
	}
	fmt.Printf("the page's cipher: %s\n", cipher)
	for _, f := range []string{cipher, "blake3.js", "prims.js"} {
		files[f] = filepath.Join(*page, f)
		if _, err := os.Stat(files[f]); err != nil {
			fatal(fmt.Errorf("%v (make wasm fetches the page's libraries)", err))
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(strings.Replace(index, "CIPHER", cipher, 1)))
			return
		}
		if f, ok := files[name]; ok {
			if strings.HasSuffix(name, ".wasm") {
				w.Header().Set("Content-Type", "application/wasm")
			}
			http.ServeFile(w, r, f)
			return
		}
		http.NotFound(w, r)
	}))
	b, err := browser.New(context.Background())
	if err != nil {
		fatal(err)
	}
	defer b.Close()
	if err := b.Open("http://" + ln.Addr().String() + "/"); err != nil {
		fatal(err)
	}
	if err := b.EvalFor(time.Minute, "window.ready.then(() => true)", nil); err != nil {
		fatal(fmt.Errorf("starting the page: %w", err))
	}
	got, byCPU := map[string][]float64{}, map[string][]float64{}
	for r := 1; r <= *rounds; r++ {
		fmt.Fprintf(os.Stderr, "primbench: round %d of %d\n", r, *rounds)
		for _, n := range order {
			name, _ := json.Marshal(n)
			var v float64
			c0 := rendererJiffies()
			if err := b.EvalFor(10*time.Minute, fmt.Sprintf("window.one(%s, %d)", name, *mib), &v); err != nil {
				fatal(err)
			}
			c1 := rendererJiffies()
			got[n] = append(got[n], v)
			byCPU[n] = append(byCPU[n], float64(*mib)/(float64(c1-c0)/100))
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("# primbench %s: %d MiB per primitive per round, %d rounds, interleaved; Chromium %s; %d cores, load average %s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), *mib, *rounds, b.Version(), runtime.NumCPU(), strings.Join(strings.Fields(string(load))[:3], " "))
	table("By the renderer's CPU time (MiB per CPU second; the figure to read)", order, byCPU)
	table("By the wall clock (moves with the machine's load)", order, got)
}

func table(title string, order []string, got map[string][]float64) {
	fmt.Printf("%s:\n\n", title)
	fmt.Println("| primitive | MiB/s median | range | ratio to Go's (same round), median | range | runs, MiB/s |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, n := range order {
		base := "seal x/crypto"
		switch {
		case strings.HasPrefix(n, "open"):
			base = "open x/crypto"
		case strings.HasPrefix(n, "BLAKE3"):
			base = "BLAKE3 Go (filehash)"
		}
		var ratios []float64
		var runs []string
		for i, v := range got[n] {
			ratios = append(ratios, v/got[base][i])
			runs = append(runs, fmt.Sprintf("%.0f", v))
		}
		m, lo, hi := stats(got[n])
		rm, rlo, rhi := stats(ratios)
		fmt.Printf("| %s | %.0f | %.0f–%.0f | %.2f | %.2f–%.2f | %s |\n", n, m, lo, hi, rm, rlo, rhi, strings.Join(runs, " "))
	}
	fmt.Println()
}

// rendererJiffies is the user and system time, in jiffies (10 ms), of
// every Chromium renderer process in this network namespace.
func rendererJiffies() uint64 {
	ours, _ := os.Readlink("/proc/self/ns/net")
	var sum uint64
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		if ns, err := os.Readlink("/proc/" + d.Name() + "/ns/net"); err != nil || ns != ours {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmd), "--type=renderer") {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: state is the
		// first, utime the 12th, stime the 13th.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.ParseUint(f[11], 10, 64)
			st, _ := strconv.ParseUint(f[12], 10, 64)
			sum += u + st
		}
	}
	return sum
}

// inNetns marks the copy of primbench that runs in its own namespace.
const inNetns = "FERRY_PRIMBENCH_NETNS"

// ownNetns runs primbench again in a network namespace of its own, with
// its lo up, and exits with its status; inside it returns.
func ownNetns() {
	if os.Getenv(inNetns) != "" {
		if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
			fatal(fmt.Errorf("ip link set lo up: %v: %s", err, out))
		}
		return
	}
	if os.Geteuid() != 0 {
		fatal(fmt.Errorf("needs root: it runs in a network namespace of its own"))
	}
	self, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	cmd := exec.Command("unshare", append([]string{"-n", self}, os.Args[1:]...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), inNetns+"=1")
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		fatal(err)
	}
	os.Exit(0)
}

func stats(v []float64) (median, lo, hi float64) {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2], s[0], s[len(s)-1]
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "primbench:", err)
	os.Exit(1)
}
