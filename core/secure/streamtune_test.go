package secure

import (
	"context"
	"net"
	"testing"

	"github.com/ferry-project/ferry/core/internal/streamtune"
)

// The benchmarks' knobs reach a connection only through the context of
// Client or Server, and only that connection.
func TestStreamTuneFromContext(t *testing.T) {
	a, b := ids(t)
	for _, tc := range []struct {
		name            string
		client, server  streamtune.Knobs
		wantBatch       int
		wantServerExact bool
	}{
		{"default", streamtune.Knobs{}, streamtune.Knobs{}, defaultBatch, false},
		{"tuned", streamtune.Knobs{Batch: 1}, streamtune.Knobs{Unbuffered: true}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			done := make(chan result, 1)
			go func() {
				nc, err := ln.Accept()
				if err != nil {
					done <- result{nil, err}
					return
				}
				c, err := Server(streamtune.With(context.Background(), tc.server), nc, Config{Identity: b, Code: "42"})
				if err != nil {
					nc.Close()
				}
				done <- result{c, err}
			}()
			nc, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c, err := Client(streamtune.With(context.Background(), tc.client), nc, Config{Identity: a, Code: "42"})
			s := <-done
			if err != nil || s.err != nil {
				t.Fatalf("handshake: %v / %v", err, s.err)
			}
			defer c.Close()
			defer s.c.Close()
			if c.w.batch != tc.wantBatch || s.c.w.batch != defaultBatch {
				t.Errorf("batch: client %d, server %d; want %d and the default", c.w.batch, s.c.w.batch, tc.wantBatch)
			}
			if s.c.r.exact != tc.wantServerExact || c.r.exact {
				t.Errorf("unbuffered: server %v, client %v; want %v and false", s.c.r.exact, c.r.exact, tc.wantServerExact)
			}
		})
	}
}
