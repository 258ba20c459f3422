package ui

import (
	"strings"

	"github.com/ferry-project/ferry/core/errkind"
)

// problem is an error as a person reads it: what happened, what to do, and
// the engine's own words for anyone filing a bug.
type problem struct {
	Headline string
	Advice   string
	Detail   string
}

// explain turns an error from the core into a problem: its kind's words
// (core/errkind's Of and WordsOf) as sentences, and after them what this
// app offers to do about it (affordances).
func explain(err error) problem {
	k := errkind.Of(err)
	w := errkind.WordsOf(k)
	p := problem{Headline: sentence(w.Message), Advice: sentence(w.Hint) + ".", Detail: err.Error()}
	if a := affordances[k]; a != "" {
		p.Advice += " " + a
	}
	return p
}

// affordances are the app's own part of an error's advice: where in this
// app the fix is, for the kinds whose fix is a control of the app. The
// words for what happened and what to do are core's; this table words
// no kind itself and tells no errors apart.
var affordances = map[errkind.Kind]string{
	errkind.NotPaired:      "Here, yes is the “Trust” tick box shown after a transfer with a code.",
	errkind.KeyChanged:     "Settings lists the trusted devices, each with its Remove button.",
	errkind.NoSpace:        "Settings chooses the download folder.",
	errkind.Permission:     "Settings chooses the download folder.",
	errkind.DirNotWritable: "Settings chooses the download folder.",
	errkind.Browse:         "Add it by its address under the list of devices.",
}

// sentence capitalises an engine error for display under the advice.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
