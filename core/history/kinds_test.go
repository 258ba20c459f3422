package history

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/errkind"
)

// TestSetEndKinds: a record's outcome and kind come from core's taxonomy
// (errkind.Of) for an error of every kind, so a history reads as the
// front end's error said.
func TestSetEndKinds(t *testing.T) {
	for _, k := range errkind.All() {
		err := fmt.Errorf("sending: %w", errkind.New(k, "example"))
		var r Record
		r.SetEnd(err, time.Now())
		want, kind := Failed, string(k)
		switch k {
		case errkind.Declined:
			want, kind = Declined, ""
		case errkind.Cancelled:
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
		if k := errkind.Of(err); k != errkind.HistoryFile {
			t.Errorf("%v: kind %q", err, k)
		}
	}
}
