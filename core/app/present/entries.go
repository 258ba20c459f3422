package present

import "github.com/ferry-project/ferry/core/app/event"

// Files counts what a person calls the files of a transfer: every entry
// but folders (a text snippet counts, as it arrived as an item of its
// own).
func Files(es []event.EntryDone) int {
	n := 0
	for _, e := range es {
		if e.Kind != event.KindDir {
			n++
		}
	}
	return n
}

// OnlyTexts says whether a transfer moved text snippets and nothing
// else: nothing was saved, and no file was confirmed.
func OnlyTexts(es []event.EntryDone) bool {
	for _, e := range es {
		if e.Kind != event.KindText {
			return false
		}
	}
	return len(es) > 0
}
