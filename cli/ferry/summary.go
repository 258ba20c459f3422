package main

import (
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/present"
)

// confirmedWhat ends the sender's last line: "every file confirmed", or
// for snippets alone, which are not files, "confirmed".
func confirmedWhat(s event.Summary) string {
	if present.OnlyTexts(s.Entries) {
		return "confirmed"
	}
	return "every file confirmed"
}

// savedInto is " into DIR" for the receiver's last line, unless only
// snippets came: they were printed, not saved.
func savedInto(s event.Summary, dir string) string {
	if present.OnlyTexts(s.Entries) {
		return ""
	}
	return " into " + dir
}
