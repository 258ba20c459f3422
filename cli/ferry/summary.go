package main

import "github.com/ferry-project/ferry/core/transfer"

// onlyTexts says whether a transfer moved text snippets and nothing else:
// nothing was saved, and no file was confirmed.
func onlyTexts(s transfer.Summary) bool {
	for _, e := range s.Entries {
		if e.Entry.Kind != transfer.KindText {
			return false
		}
	}
	return len(s.Entries) > 0
}

// confirmedWhat ends the sender's last line: "every file confirmed", or
// for snippets alone, which are not files, "confirmed".
func confirmedWhat(s transfer.Summary) string {
	if onlyTexts(s) {
		return "confirmed"
	}
	return "every file confirmed"
}

// savedInto is " into DIR" for the receiver's last line, unless only
// snippets came: they were printed, not saved.
func savedInto(s transfer.Summary, dir string) string {
	if onlyTexts(s) {
		return ""
	}
	return " into " + dir
}
