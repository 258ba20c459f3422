package dial

import (
	"context"
	"errors"
	"net"
)

// errNoTCP: a browser page has no TCP of its own; it reaches the other
// device through its WebSocket (see tcp.go).
var errNoTCP = errors.New("a browser page has no TCP: it connects through its WebSocket")

func TCP(context.Context, string) (net.Conn, error) { return nil, errNoTCP }

func Listen(string) (net.Listener, error) { return nil, errNoTCP }
