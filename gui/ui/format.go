package ui

import (
	"fmt"
	"math"
	"time"
)

// formatBytes renders a byte count for people: decimal units, three
// significant digits ("4.2 MB", "640 kB", "17 bytes").
func formatBytes(n int64) string {
	if n < 1000 {
		if n == 1 {
			return "1 byte"
		}
		return fmt.Sprintf("%d bytes", n)
	}
	units := []string{"kB", "MB", "GB", "TB", "PB", "EB"}
	v := float64(n)
	for i, u := range units {
		v /= 1000
		// Thresholds sit where rounding would carry into the next digit,
		// so 999,949 bytes reads "1.00 MB", never "1000 kB".
		switch {
		case v < 9.995:
			return fmt.Sprintf("%.2f %s", v, u)
		case v < 99.95:
			return fmt.Sprintf("%.1f %s", v, u)
		case v < 999.5 || i == len(units)-1:
			return fmt.Sprintf("%.0f %s", v, u)
		}
	}
	panic("unreachable")
}

// formatRate renders bytes per second ("48.3 MB/s").
func formatRate(bps float64) string {
	if bps <= 0 || math.IsNaN(bps) || math.IsInf(bps, 0) {
		return ""
	}
	return formatBytes(int64(bps)) + "/s"
}

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

// plural returns "1 file" or "3 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
