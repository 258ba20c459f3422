package mobile

import (
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/app/event"
)

// HistoryJSON returns the transfer history's records [start,
// start+count), newest first, as a JSON array of "history" events (the
// objects of the CLI's history --json): core/app records every transfer
// this device made, in DataDir, at most 500. A range past the end is
// cut short; "[]" when nothing is left. A history file found damaged is
// set aside and a "warning" says where.
func (n *Node) HistoryJSON(start, count int) (_ string, err error) {
	defer guard("reading the history", &err)
	h := n.app.History()
	if h == nil {
		return "", errors.New("reading the history: it is off")
	}
	recs, aside, err := h.List()
	if aside != nil {
		n.warn(errors.New(aside.String()))
	}
	if err != nil {
		return "", fmt.Errorf("reading the history: %w", err)
	}
	lo, hi := event.PageOf(len(recs), start, count)
	b, err := event.MarshalArray(recs[lo:hi])
	if err != nil {
		return "", fmt.Errorf("reading the history: %w", err)
	}
	return string(b), nil
}
