//go:build !linux

package diag

// threadTimes is unknown outside Linux: a busy machine then shows only as
// less CPU time than the stages took.
func threadTimes() map[string]runWait { return nil }
