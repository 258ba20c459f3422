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

// errorEvent gives err as the page's "error" event: its kind (core/errkind's
// Of, the CLI's --json kind) and core's words for that kind
// (errkind.WordsOf), "title" what happened and "hint" what to do, which
// the page shows with its own affordances after them; "message" is the
// error's own text. The words travel with the event, so the page words
// no kind itself and needs nothing from the network to say them.
// ExitCode stays 0: the page has no process to exit.
func errorEvent(err error) event.Event {
	kind := errkind.Of(err)
	w := errkind.WordsOf(kind)
	return pageError{Error: event.Error{Kind: string(kind), Message: err.Error(), Hint: w.Hint, Err: err}, Title: w.Message}
}

// pageError is the page's "error" event: core/app/event's, and its
// kind's message as a title.
type pageError struct {
	event.Error
	Title string `json:"title"`
}
