package send

import (
	"fmt"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// BenchmarkConfirms: the sender's reading end taking the receiver's
// confirmation of each of 10,000 small files (take: decode, record,
// event), the work a file costs it besides sending the file; with a
// handler that drops the events.
func BenchmarkConfirms(b *testing.B) {
	const n = 10000
	entries := make([]event.Entry, n)
	msgs := make([]transfer.Msg, n)
	for i := range entries {
		p := fmt.Sprintf("tree/d%d/f%04d", i%10, i)
		entries[i] = event.Entry{Path: p, Kind: event.KindFile, Size: 4096, Mode: 0o644}
		body := wire.Confirm{Index: i, Outcome: event.Received, SavedAs: p}.Encode()
		msgs[i] = transfer.Msg{Type: wire.MsgConfirm, Len: len(body), Body: body}
	}
	b.ReportAllocs()
	for b.Loop() {
		s := &sender{entries: entries}
		s.readyConfirms()
		s.Events = &transfer.Emitter{F: func(event.Event) {}}
		for _, m := range msgs {
			if _, err := s.take(m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/confirm")
}
