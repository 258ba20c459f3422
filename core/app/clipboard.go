package app

import "strings"

// Clip says whether the texts a transfer received go to the clipboard.
type Clip int

const (
	ClipNothing Clip = iota // no text was kept
	ClipPut                 // put it: the sender is a trusted device
	ClipAsk                 // ask the person first: the sender is not trusted
	ClipNot                 // not put: the sender is not trusted and nobody can be asked
)

// Clipboard decides, for a receiver that kept texts (KeepTexts), whether
// they go to the clipboard, and returns them as one text, separated by
// blank lines. Only a trusted device's text goes there unasked; the
// clipboard itself is the front end's (core/clipboard, or its toolkit's).
func (r Result) Clipboard(canAsk bool) (Clip, string) {
	if r.Err != nil || len(r.Texts) == 0 {
		return ClipNothing, ""
	}
	text := strings.Join(r.Texts, "\n\n")
	switch {
	case r.Paired:
		return ClipPut, text
	case canAsk:
		return ClipAsk, text
	}
	return ClipNot, text
}
