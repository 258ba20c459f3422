package main

import (
	"runtime"
	"runtime/debug"
)

func numCPU() int { return runtime.NumCPU() }

func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return runtime.Version()
}
