package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/present"
)

// Sizes and rates are written in binary units ("412 MiB", "110 MiB/s"),
// as the tools beside ferry in a terminal write them; the words are
// core/app/present's, shared with the app, which chose decimal ones.
var (
	humanBytes = present.Binary.Bytes
	humanRate  = present.Binary.Rate
	plural     = present.Plural
)

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
