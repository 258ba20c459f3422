package receive

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
)

// BenchmarkWrongGuesses guesses wrong codes at full speed, four senders
// at once, against one real receiver over loopback, and reports how many
// guesses a second were answered and how many of those the receiver
// actually checked against a code. It uses only the public API (a checked
// guess is a "wrong code" answer, or the third guess that retired a
// code), so the same file measures the code before the guess budget:
// there every answered guess was a checked one.
//
//	go test -run '^$' -bench WrongGuesses -benchtime 20s ./core/transfer
func BenchmarkWrongGuesses(b *testing.B) {
	var retired atomic.Int64
	var once sync.Once
	dir := b.TempDir()
	sid, rid := ids(b)
	r, err := NewReceiver(ReceiverConfig{Dir: dir, Code: "424242", Identity: rid, Listen: "127.0.0.1:0", Policy: AcceptAll,
		OnEvent: func(ev event.Event) {
			if _, ok := ev.(event.CodeChanged); ok {
				retired.Add(1)
			}
		}})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx := b.Context()
	served := make(chan struct{})
	go func() { defer close(served); r.Serve(ctx) }()
	addr := fmt.Sprintf("127.0.0.1:%d", r.Port())
	var next, wrong, answered atomic.Int64
	b.SetParallelism(2) // 2 × GOMAXPROCS(2) = 4 senders
	began := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			code := fmt.Sprintf("%06d", 500000+next.Add(1)%400000)
			_, err := send.Send(ctx, send.SendConfig{Addrs: []string{addr}, Code: code, Identity: sid, Items: []event.Item{{Text: "x"}}})
			switch {
			case errors.Is(err, secure.ErrWrongCode):
				wrong.Add(1)
				answered.Add(1)
			case err != nil && ctx.Err() == nil:
				answered.Add(1)
			case err == nil:
				once.Do(func() { b.Error("a guess was right") })
			}
		}
	})
	took := time.Since(began)
	b.StopTimer()
	checked := wrong.Load() + retired.Load()
	b.ReportMetric(float64(answered.Load())/took.Seconds(), "answered/s")
	b.ReportMetric(float64(checked)/took.Seconds(), "checked/s")
	b.ReportMetric(float64(checked), "checked")
	r.Close()
	<-served
}
