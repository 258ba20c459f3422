package mobile

import (
	"runtime/debug"
	"sync"
)

// profile is a memory profile: how the Go runtime and the transfers are
// held inside a phone's budget. The build picks one (limits_ios.go,
// limits_android.go, limits_default.go). Both phone profiles exist in
// every build so that tests on a development machine can measure each.
type profile struct {
	name string
	// budget is the whole process's allowance, start-up to teardown, as
	// the platform counts it (resident memory). Tests fail above it.
	budget int64
	// memoryLimit is the Go runtime's soft limit (debug.SetMemoryLimit,
	// GOMEMLIMIT): the heap goal never passes it, whatever gcPercent
	// says. It sits well below budget because the runtime's text, data
	// and stacks, the platform's side of the process, and memory the
	// runtime has not yet returned all count against the budget too.
	memoryLimit int64
	// gcPercent is debug.SetGCPercent (GOGC). Ferry's live heap during a
	// transfer is a few MiB of fixed-size buffers, so a lower value costs
	// little CPU and keeps garbage from piling up between cycles.
	gcPercent int
	// maxTransfers bounds transfers (sending and receiving together)
	// running at once. Each holds one encrypted connection, about 640 KiB
	// of buffers in core/secure, plus the transfer's chunks in flight.
	maxTransfers int
	// freeAfter returns freed memory to the OS when a transfer ends
	// (debug.FreeOSMemory), so a quiet app does not sit on its peak.
	freeAfter bool
}

const mib = 1 << 20

// The iOS profile, the strictest: 32 MiB is what an iOS app extension
// (share sheet, file provider) may keep resident, and one that passes it
// is killed without a word.
const (
	iosBudget       = 32 * mib
	iosMemoryLimit  = 20 * mib
	iosGCPercent    = 50
	iosMaxTransfers = 1
)

// The Android profile: 64 MiB is Ferry's ceiling for an Android process.
const (
	androidBudget       = 64 * mib
	androidMemoryLimit  = 40 * mib
	androidGCPercent    = 100
	androidMaxTransfers = 2
)

var (
	iosProfile = profile{
		name:         "ios",
		budget:       iosBudget,
		memoryLimit:  iosMemoryLimit,
		gcPercent:    iosGCPercent,
		maxTransfers: iosMaxTransfers,
		freeAfter:    true,
	}
	androidProfile = profile{
		name:         "android",
		budget:       androidBudget,
		memoryLimit:  androidMemoryLimit,
		gcPercent:    androidGCPercent,
		maxTransfers: androidMaxTransfers,
		freeAfter:    true,
	}
)

// applied makes the first NewNode the only one that touches the runtime.
var applied sync.Once

// applyProfile sets the runtime's memory limit and GC percent from p
// (the build's profile, or the one a test put in Config), once per
// process: both are process-wide, and a second Node must not undo what
// the app may have set since.
func applyProfile(p profile) {
	applied.Do(func() {
		debug.SetMemoryLimit(p.memoryLimit)
		debug.SetGCPercent(p.gcPercent)
	})
}
