//go:build !js

// The engine's own TCP: dialing a receiver's address and binding a
// port, through package net's dialer, resolver and listener. The page's
// js/wasm build has neither (tcp_js.go): it dials through its WebSocket
// (core/transfer's SendConfig.Dialer, ServeConn) and listens nowhere, and leaving them
// out keeps net's resolver and dialer out of ferry.wasm.

package dial

import (
	"context"
	"net"
)

// TCP opens a TCP connection to one address, within Timeout.
func TCP(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: Timeout}
	return d.DialContext(ctx, "tcp", addr)
}

// Listen binds addr (host:port).
func Listen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
