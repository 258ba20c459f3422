package main

import (
	"bufio"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/ferry-project/ferry/benches"
)

// machine is what the results file says about where it was measured.
type machine struct {
	Host      string     `json:"host"`
	CPU       string     `json:"cpu"`
	Cores     int        `json:"cores"`
	MemoryGiB float64    `json:"memory_gib"`
	Kernel    string     `json:"kernel"`
	Go        string     `json:"go"`
	Load      [3]float64 `json:"load_before"`
	Root      bool       `json:"root"`
	Tmp       string     `json:"tmp"`
}

func describeMachine(tmp string) machine {
	m := machine{Cores: runtime.NumCPU(), Go: goVersion(), Load: loadAvg(), Root: os.Geteuid() == 0, Tmp: tmp}
	m.Host, _ = os.Hostname()
	m.CPU = procField("/proc/cpuinfo", "model name")
	if kb, err := strconv.ParseFloat(strings.TrimSuffix(procField("/proc/meminfo", "MemTotal"), " kB"), 64); err == nil {
		m.MemoryGiB = kb / (1 << 20)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAvg is the 1, 5 and 15 minute load averages.
func loadAvg() [3]float64 {
	var l [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l
	}
	for i, f := range strings.Fields(string(b)) {
		if i == 3 {
			break
		}
		l[i], _ = strconv.ParseFloat(f, 64)
	}
	return l
}

func fmtLoad(l [3]float64) string { return fmt.Sprintf("%.2f %.2f %.2f", l[0], l[1], l[2]) }

// moduleRoot is the folder holding go.mod, where bin/ferry and
// benches/results are.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("finding the module: not inside one (run from the repository)")
	}
	return filepath.Dir(gomod), nil
}

// commit is HEAD's short hash and whether the tree has changes.
func commit(root string) (string, bool) {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "nocommit", false
	}
	st, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(out)), len(strings.TrimSpace(string(st))) > 0
}

// checkBinary refuses a Go binary built the way the harness refuses to
// be (benches.CheckBuild: -race, -N, -l), and describes it.
func checkBinary(path string) (*binInfo, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the build information of %s: %w", path, err)
	}
	if err := benches.CheckBuild(bi.Settings); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var set []string
	for _, s := range bi.Settings {
		set = append(set, s.Key+"="+s.Value)
	}
	return &binInfo{Path: path, GoVersion: bi.GoVersion, Settings: strings.Join(set, " ")}, nil
}
