package main

import "github.com/ferry-project/ferry/core/app/event"

// onlyTexts says whether a transfer moved text snippets and nothing else:
// nothing was saved, and no file was confirmed.
func onlyTexts(s event.Summary) bool {
	for _, e := range s.Entries {
		if e.Entry.Kind != event.KindText {
			return false
		}
	}
	return len(s.Entries) > 0
}

// confirmedWhat ends the sender's last line: "every file confirmed", or
// for snippets alone, which are not files, "confirmed".
func confirmedWhat(s event.Summary) string {
	if onlyTexts(s) {
		return "confirmed"
	}
	return "every file confirmed"
}

// savedInto is " into DIR" for the receiver's last line, unless only
// snippets came: they were printed, not saved.
func savedInto(s event.Summary, dir string) string {
	if onlyTexts(s) {
		return ""
	}
	return " into " + dir
}
