package ui

import (
	"fmt"
	"math"
	"time"

	"github.com/ferry-project/ferry/core/app/present"
)

// Sizes and rates are written in decimal units ("4.20 MB", "48.7 MB/s"),
// as the file managers beside the app write them; the words are
// core/app/present's, shared with the CLI, which chose binary ones.
var (
	formatBytes = present.Decimal.Bytes
	formatRate  = present.Decimal.Rate
	plural      = present.Plural
)

// formatLeft renders an estimated time left, rounded the way a person
// would say it: "8 s left", "3 min left", "1 h 20 min left".
func formatLeft(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s left", int(math.Ceil(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%d min left", int(math.Round(d.Minutes())))
	default:
		h := int(d.Hours())
		m := int(math.Round(d.Minutes())) - h*60
		if m == 0 {
			return fmt.Sprintf("%d h left", h)
		}
		return fmt.Sprintf("%d h %d min left", h, m)
	}
}

// formatDuration renders how long something took ("2.4 s", "3 min 5 s").
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		s := int(d.Round(time.Second).Seconds())
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	default:
		m := int(d.Round(time.Minute).Minutes())
		return fmt.Sprintf("%d h %d min", m/60, m%60)
	}
}
