package benches

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFSCalls(t *testing.T) {
	summary := `% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 40.00    0.004000           4      1000           write
 30.00    0.003000           3      1053        12 openat
 20.00    0.002000           2      1010           close
 10.00    0.001000           1        40           futex
------ ----------- ----------- --------- --------- ----------------
100.00    0.010000           3      3103        12 total
`
	p := filepath.Join(t.TempDir(), "s")
	if err := os.WriteFile(p, []byte(summary), 0o644); err != nil {
		t.Fatal(err)
	}
	total, by, err := FSCalls(p)
	if err != nil || total != 2063 || by["openat"] != 1053 || by["close"] != 1010 || len(by) != 2 {
		t.Errorf("FSCalls = %d, %v, %v; want 2063 from openat 1053 and close 1010", total, by, err)
	}
	if err := os.WriteFile(p, []byte("nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := FSCalls(p); err == nil {
		t.Error("a summary without file-system calls gave no error")
	}
}
