package transfer

import "net"

// provenConn is a connection whose listener wants to know when its peer
// has proven the code (or its pinned key): core/web's page server never
// closes such a WebSocket to make room for another.
type provenConn interface{ Proven() }

// MarkProven tells nc's listener, if it asks, that nc's peer proved
// itself in the handshake.
func MarkProven(nc net.Conn) {
	if p, ok := nc.(provenConn); ok {
		p.Proven()
	}
}
