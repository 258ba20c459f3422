package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// humanBytes renders a byte count in binary units: "512 B", "3.1 MiB",
// "412 MiB", "1.0 GiB". Below ten units it keeps one decimal.
func humanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v := float64(n) / 1024
	i := 0
	// Round before choosing: 1023.9 MiB reads "1.0 GiB", 9.99 KiB "10 KiB".
	for v >= 1023.5 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v < 9.95 {
		return fmt.Sprintf("%.1f %s", v, units[i])
	}
	return fmt.Sprintf("%.0f %s", v, units[i])
}

// humanRate renders bytes per second: "110 MiB/s".
func humanRate(bps float64) string {
	if bps <= 0 {
		return "0 B/s"
	}
	return humanBytes(int64(bps)) + "/s"
}

// humanDuration renders a duration for people: "850ms", "5s", "1m05s",
// "2h03m".
func humanDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// plural renders "1 file", "3 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// describeOffer renders what an offer holds: "3 files, 1 folder and 1
// text (1.2 GiB)".
func describeOffer(o event.Offer) string {
	var parts []string
	if o.Files > 0 {
		parts = append(parts, plural(o.Files, "file", "files"))
	}
	if o.Folders > 0 {
		parts = append(parts, plural(o.Folders, "folder", "folders"))
	}
	if o.Texts > 0 {
		parts = append(parts, plural(o.Texts, "text", "texts"))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	s := parts[0]
	if len(parts) > 1 {
		s = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return fmt.Sprintf("%s (%s)", s, humanBytes(o.TotalBytes))
}

// peerLabel renders a peer for people: "laptop (K7QX-M2PA-9RTE-WD4C)".
// The name is the peer's choice, so it goes through safe; the
// fingerprint is computed here from its key.
func peerLabel(name, fingerprint string) string {
	name = safe(name)
	switch {
	case name == "" && fingerprint == "":
		return "an unnamed device"
	case fingerprint == "":
		return name
	case name == "":
		return fingerprint
	}
	return name + " (" + fingerprint + ")"
}
