package transfer

import "net"

// SameMachine reports whether a connection from local to remote stays on
// this machine: the remote is a loopback address or the local one. The
// verdict then knows both ends share its cores. Two network namespaces
// of one machine look like two machines here, which errs the safe way:
// the verdict judges each end by its own figures.
func SameMachine(local, remote net.Addr) bool {
	l, lok := local.(*net.TCPAddr)
	r, rok := remote.(*net.TCPAddr)
	if !lok || !rok {
		return false
	}
	return r.IP.IsLoopback() || r.IP.Equal(l.IP)
}
