// Package memprofile holds the memory profiles a device runs under on a
// phone: how the Go runtime and the transfers are held inside the
// platform's budget for the whole process. The build picks one (Build:
// build_ios.go, build_android.go, build_default.go); both phone profiles
// exist in every build so that tests on a development machine can
// measure each.
package memprofile

import (
	"runtime/debug"
	"sync"
)

// A Profile is one memory profile.
type Profile struct {
	Name string
	// Budget is the whole process's allowance, start-up to teardown, as
	// the platform counts it (resident memory). Tests fail above it.
	Budget int64
	// MemoryLimit is the Go runtime's soft limit (debug.SetMemoryLimit,
	// GOMEMLIMIT): the heap goal never passes it, whatever GCPercent
	// says. It sits well below Budget because the runtime's text, data
	// and stacks, the platform's side of the process, and memory the
	// runtime has not yet returned all count against the budget too.
	MemoryLimit int64
	// GCPercent is debug.SetGCPercent (GOGC). Ferry's live heap during a
	// transfer is a few MiB of fixed-size buffers, so a lower value costs
	// little CPU and keeps garbage from piling up between cycles.
	GCPercent int
	// MaxTransfers bounds transfers (sending and receiving together)
	// running at once. Each holds one encrypted connection, about 640 KiB
	// of buffers in core/secure, plus the transfer's chunks in flight.
	MaxTransfers int
	// FreeAfter returns freed memory to the OS when a transfer ends
	// (debug.FreeOSMemory), so a quiet app does not sit on its peak.
	FreeAfter bool
}

// MiB is a mebibyte, the unit the budgets are set in.
const MiB = 1 << 20

// IOS is the strictest profile: 32 MiB is what an iOS app extension
// (share sheet, file provider) may keep resident, and one that passes it
// is killed without a word.
var IOS = Profile{
	Name:         "ios",
	Budget:       32 * MiB,
	MemoryLimit:  20 * MiB,
	GCPercent:    50,
	MaxTransfers: 1,
	FreeAfter:    true,
}

// Android is the Android profile: 64 MiB is Ferry's ceiling for an
// Android process.
var Android = Profile{
	Name:         "android",
	Budget:       64 * MiB,
	MemoryLimit:  40 * MiB,
	GCPercent:    100,
	MaxTransfers: 2,
	FreeAfter:    true,
}

// applied makes the first Apply the only one that touches the runtime.
var applied sync.Once

// Apply sets the runtime's memory limit and GC percent from p, once per
// process: both are process-wide, and a second device must not undo
// what the app may have set since.
func Apply(p Profile) {
	applied.Do(func() {
		debug.SetMemoryLimit(p.MemoryLimit)
		debug.SetGCPercent(p.GCPercent)
	})
}
