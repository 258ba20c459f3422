package history

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/transfer"
)

// TestSetEndKinds: a record's outcome and kind come from core's taxonomy
// (ErrorKindOf) for an error of every kind, so a history reads as the
// front end's error said.
func TestSetEndKinds(t *testing.T) {
	for _, k := range transfer.ErrorKinds() {
		err := fmt.Errorf("sending: %w", transfer.NewError(k, "example"))
		var r Record
		r.SetEnd(err, time.Now())
		want, kind := Failed, string(k)
		switch k {
		case transfer.KindDeclined:
			want, kind = Declined, ""
		case transfer.KindCancelled:
			want, kind = Cancelled, ""
		}
		if r.Outcome != want || r.ErrorKind != kind || ErrorKind(err) != string(k) {
			t.Errorf("kind %q: %s %q (ErrorKind %q)", k, r.Outcome, r.ErrorKind, ErrorKind(err))
		}
	}
	var r Record
	r.SetEnd(context.Canceled, time.Now())
	if r.Outcome != Cancelled {
		t.Errorf("context.Canceled: %s", r.Outcome)
	}
}

// TestFileErrorKinds: a damaged or newer history file is history_file,
// as the error a Store builds for it, not only as the bare sentinel.
func TestFileErrorKinds(t *testing.T) {
	for _, err := range []error{corrupt("/h/history.json", "line %d", 2), fmt.Errorf("%w: version 9", ErrUnsupportedVersion)} {
		if k := transfer.ErrorKindOf(err); k != transfer.KindHistoryFile {
			t.Errorf("%v: kind %q", err, k)
		}
	}
}
