package transfer

import (
	"io"
	"net"

	"github.com/ferry-project/ferry/core/wire"
)

// stream is what the protocol needs from the secure channel; *secure.Conn
// is one.
type stream interface {
	io.ReadWriter
	Flush() error
	Prefetch(n int) error
	CloseWrite() error
	Close() error
	NetConn() net.Conn
}

// MaxChunk is the size of the data chunks this end sends: the largest the
// protocol allows.
const MaxChunk = wire.MaxData
