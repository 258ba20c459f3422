package app

import (
	"context"
	"net"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// Stage is a stage of a transfer that a front end's own I/O is part of:
// the browser page reads the picked files, writes to its WebSocket and
// hands bytes to the browser's downloads itself.
type Stage int

// The stages a front end's I/O can be part of, as a transfer's
// diagnostics name them.
const (
	StageDiskRead    = Stage(diag.DiskRead)
	StageSocketWrite = Stage(diag.SocketWrite)
	StageSocketRead  = Stage(diag.SocketRead)
	StageDiskWrite   = Stage(diag.DiskWrite)
)

// Crossings take, into a transfer's diagnostics, the time a front end
// spent moving bytes across a boundary of its own (the page: between
// JavaScript and Go's WebAssembly) inside the call of a stage: the
// split's "JS crossing", taken out of that stage so that the shares
// still add up. A nil *Crossings takes nothing.
//
// They live here rather than in package event: events are what a
// transfer tells, and this is a hook into a running one, which only the
// transfer's owner can hand out.
type Crossings struct{ t *diag.Timers }

// Add records that a part of a call of stage outer, from start until
// now, moved n bytes across the boundary.
func (c *Crossings) Add(outer Stage, start time.Time, n int) {
	if c == nil {
		return
	}
	c.t.Within(diag.Stage(outer), diag.Crossing, time.Since(start), n)
}

// CrossingConn is a connection that moves bytes across a boundary
// inside its own calls (the page's WebSocket). Given as a front end's
// connection (SendConfig.Dialer, ReceiveFromConfig.Dial), it is handed
// its transfer's Crossings once the handshake is done and diagnostics
// are on; its reads and writes, and the front end's other I/O for that
// transfer, record their crossings there.
type CrossingConn interface {
	net.Conn
	UseCrossings(*Crossings)
}

// timedConn is a CrossingConn as the engine's diagnostics take it
// (diag.TimedConn).
type timedConn struct{ CrossingConn }

func (c timedConn) UseTimers(t *diag.Timers) { c.UseCrossings(&Crossings{t: t}) }

// timed is c, made a diag.TimedConn when it is a CrossingConn.
func timed(c net.Conn) net.Conn {
	if cc, ok := c.(CrossingConn); ok {
		return timedConn{cc}
	}
	return c
}

// timedDialer is dial, whose connections are timed; nil stays nil.
func timedDialer(dial func(ctx context.Context, addr string) (net.Conn, error)) func(ctx context.Context, addr string) (net.Conn, error) {
	if dial == nil {
		return nil
	}
	return func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := dial(ctx, addr)
		if err != nil {
			return nil, err
		}
		return timed(c), nil
	}
}
