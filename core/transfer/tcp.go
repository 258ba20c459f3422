//go:build !js

// The engine's own TCP: dialing a receiver's address and binding a
// port, through package net's dialer, resolver and listener. The page's
// js/wasm build has neither (tcp_js.go): it dials through its WebSocket
// (SendConfig.Dialer, ServeConn) and listens nowhere, and leaving them
// out keeps net's resolver and dialer out of ferry.wasm.

package transfer

import (
	"context"
	"net"
)

// dialOne opens a TCP connection to one address, within dialTimeout.
func dialOne(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	return d.DialContext(ctx, "tcp", addr)
}

// listenTCP binds addr (host:port).
func listenTCP(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
