//go:build unix && !linux

package diag

import "time"

// runDelay is unknown outside Linux: a busy machine then shows only as
// less CPU time than the stages took.
func runDelay() time.Duration { return 0 }
