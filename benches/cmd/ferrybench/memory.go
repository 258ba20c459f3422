package main

import (
	"bufio"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// sampleHeap polls runtime/metrics every 5 ms until the returned function
// is called, which reports the largest live heap and the largest total of
// memory mapped by the Go runtime that it saw.
func sampleHeap() func() (heap, mapped uint64) {
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/total:bytes"},
	}
	var (
		mu          sync.Mutex
		peak, total uint64
	)
	read := func() {
		metrics.Read(samples)
		mu.Lock()
		peak = max(peak, samples[0].Value.Uint64())
		total = max(total, samples[1].Value.Uint64())
		mu.Unlock()
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		<-stopped
		read()
		mu.Lock()
		defer mu.Unlock()
		return peak, total
	}
}

// vmHWM reads this process's peak resident set size from /proc.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
