package mobile

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
)

// TestKindsAreCore: an app is told core's kind of every error (the
// CLI's --json kind and the history's), its own errors included.
func TestKindsAreCore(t *testing.T) {
	for _, k := range errkind.All() {
		err := fmt.Errorf("sending: %w", errkind.New(k, "example"))
		if got := failureOf(err).Kind; got != string(k) {
			t.Errorf("an error of kind %q reaches the app as %q", k, got)
		}
		// With core's words for it, the same as every front end's: mobile
		// keeps no table of words (the app adds its own buttons).
		w := errkind.WordsOf(k)
		b, jerr := event.MarshalFor(failureOf(err), 3)
		var got struct{ Kind, Title, Hint, Message string }
		if jerr != nil || json.Unmarshal(b, &got) != nil || got.Kind != string(k) || got.Title != w.Message || got.Hint != w.Hint || got.Message != err.Error() {
			t.Errorf("an error of kind %q reaches the app as %s (%v), want core's words %+v", k, b, jerr, w)
		}
	}
	for _, tt := range []struct {
		err  error
		want string
	}{
		// The engine's errors as it makes them, of their kind with their
		// words (core/receive/kinds_test.go holds each one's kind).
		{errkind.New(errkind.Busy, "receiver busy"), KindBusy},
		{errkind.New(errkind.Incompatible, "incompatible protocol version"), "incompatible_version"},
		{errkind.New(errkind.Damaged, "record failed authentication"), KindDamaged},
		{fmt.Errorf("dialing: %w: %w", errUnreachable, errors.New("refused")), KindUnreachable},
		{fmt.Errorf("%w: interface went away", errBrowse), KindBrowse},
		{panicError("sending", "boom"), KindInternal},
		{errBusy, KindOther},
		{errClosed, KindOther},
	} {
		if got := kindOf(tt.err); got != tt.want {
			t.Errorf("kindOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	for _, k := range []string{KindWrongCode, KindCodeRetired, KindCodesHeld, KindCodesStopped, KindNotPaired,
		KindKeyChanged, KindBusy, KindDeclined, KindCancelled, KindVerify, KindDamaged, KindRefusedPath,
		KindNoSpace, KindTimeout, KindSourceChanged, KindIncompatible, KindConnectionLost, KindProtocol,
		KindNotFerry, KindUnreachable, KindPermission, KindFileMissing, KindBrowse, KindInternal, KindOther} {
		if !isKind(k) {
			t.Errorf("mobile's kind %q is not one of core's", k)
		}
	}
}

func isKind(k string) bool {
	for _, c := range errkind.All() {
		if string(c) == k {
			return true
		}
	}
	return false
}
