// Package present holds what every front end needs to show a transfer
// to a person and that does not depend on how it is shown: sizes and
// rates in words, in the unit system a front end chooses (the CLI's
// binary units, the app's decimal ones); the rate of a transfer measured
// over a recent window, with "stalled" when no byte moved for a while;
// and counts and names read off offers, summaries and history records.
//
// It decides no policy and words no error: the sentences a front end
// builds around these pieces stay the front end's, so the CLI's output
// and the app's text keep their own voice. Everything here is pure and
// safe to call from any goroutine, but a Window belongs to one caller.
package present
