//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
)

// jsEvent is ev as the page is handed it: its one JSON form
// (event.Marshal, the CLI's --json line), parsed into a plain
// JavaScript object. nil gives null. An event that cannot be encoded
// (a bug: a NaN, say) is logged and gives null: the page loses that
// event, not the transfer (a panic here would stop the whole wasm).
func jsEvent(ev event.Event) js.Value {
	if ev == nil {
		return js.Null()
	}
	b, err := event.Marshal(ev)
	if err != nil {
		js.Global().Get("console").Call("error", "ferry: "+err.Error())
		return js.Null()
	}
	return js.Global().Get("JSON").Call("parse", string(b))
}

// pageEvent is an engine event as the page is told it. The page's
// "connected" carries one field more, fp_match, when the link gave a
// fingerprint fp. Done, Error and Refused give nil: the operation's
// promise carries the result.
func pageEvent(ev event.Event, fp string) event.Event {
	switch e := ev.(type) {
	case event.Done, event.Error, event.Refused:
		return nil
	case event.Connected:
		if fp != "" {
			match := e.PeerFingerprint == fp
			return connected{Connected: e, FPMatch: &match}
		}
	}
	return ev
}

// connected is the page's "connected" event: core/app/event's, and
// whether the device that answered has the fingerprint the link gave.
type connected struct {
	event.Connected
	FPMatch *bool `json:"fp_match,omitempty"`
}

// errorEvent gives err's kind (core/errkind's Of, the CLI's --json
// kind) with a hint in the page's words. ExitCode stays 0: the page
// has no process to exit.
func errorEvent(err error) event.Error {
	kind := errkind.Of(err)
	return event.Error{Kind: string(kind), Message: err.Error(), Hint: pageHints[kind], Err: err}
}

// pageHints is what the page tells a person to do about each kind.
var pageHints = map[errkind.Kind]string{
	errkind.WrongCode:      "the code in the link is not the one the other device shows: scan its QR code again",
	errkind.CodeRetired:    "the other device now shows a new code: scan its new QR code",
	errkind.CodesHeld:      "the other device is holding back codes after too many wrong ones: wait a minute and try again",
	errkind.Busy:           "the other device is in another transfer: try again when it has finished",
	errkind.Verify:         "the data was damaged or changed on the way: send again",
	errkind.Damaged:        "the data was damaged or altered on the way: send again",
	errkind.Incompatible:   "this page and the other device speak different versions: reload the page from the link",
	errkind.NoSpace:        "the other device has not enough free space",
	errkind.Timeout:        "check that both devices are still on the same network",
	errkind.SourceChanged:  "a file changed while it was being sent: pick it again and send again",
	errkind.ConnectionLost: "the connection dropped: pick the same files and send again to resume where it stopped",
	errkind.NotFerry:       "this page did not reach a ferry device: open the link again",
	errkind.Unreachable:    "check that this device is on the same network as the other one, and that it is still waiting",
	errkind.Protocol:       "reload the page from the link; if it happens again, update ferry on the other device",
}
