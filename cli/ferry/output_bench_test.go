package main

import (
	"io"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// entryEvent is one small file's entry event as the engine hands it on:
// already an event.Event, as it arrives at a session's onEvent.
var entryEvent event.Event = event.EntryDone{Entry: event.Entry{Path: "src/project/internal/file_0042.go", Kind: event.KindFile, Size: 4096}, Outcome: event.Received}

// BenchmarkEntryEvent is what the CLI spends on one entry event, one a
// file, from the session's onEvent to the bytes handed to stdout, on
// each end, with --json and with the progress bar (stderr a terminal).
func BenchmarkEntryEvent(b *testing.B) {
	for _, mode := range []struct {
		name string
		json bool
	}{{"json", true}, {"bar", false}} {
		newPrinter := func() *printer {
			p := &printer{stdout: io.Discard, stderr: io.Discard, json: mode.json}
			b.Cleanup(p.flush)
			return p
		}
		progressFor := func(p *printer) *progress {
			if mode.json {
				return newProgress(p, progressOff, time.Now)
			}
			return newProgress(p, progressBar, time.Now)
		}
		b.Run("receiver-"+mode.name, func(b *testing.B) {
			p := newPrinter()
			rs := &receiveSession{p: p, pr: progressFor(p)}
			b.ReportAllocs()
			for b.Loop() {
				rs.onEvent(nil, entryEvent)
			}
		})
		b.Run("sender-"+mode.name, func(b *testing.B) {
			p := newPrinter()
			ss := &sendSession{p: p, pr: progressFor(p)}
			b.ReportAllocs()
			for b.Loop() {
				ss.onEvent(nil, entryEvent)
			}
		})
	}
}
