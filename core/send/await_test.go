package send

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/transfer"
)

// await takes a reply that arrived before its context ended, every time:
// the receiver's hello and then its decline are read back to back, and
// the hello must still be seen (its Connected event emitted) before the
// decline ends the exchange.
func TestAwaitTakesReplyBeforeEnd(t *testing.T) {
	s := &sender{lastFlush: time.Now()}
	s.Timeout = time.Hour
	for i := range 1000 {
		ctx, cancel := context.WithCancelCause(t.Context())
		reply := make(chan int, 1)
		reply <- i
		cancel(transfer.ErrDeclined)
		got, err := await(ctx, s, reply)
		if err != nil || got != i {
			t.Fatalf("round %d: await returned %d, %v; want the reply that was there", i, got, err)
		}
		if _, err := await(ctx, s, reply); !errors.Is(err, transfer.ErrDeclined) {
			t.Fatalf("round %d: the next await returned %v, want the cause", i, err)
		}
	}
}
