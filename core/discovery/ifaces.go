package discovery

import (
	"fmt"
	"net"
	"slices"
	"strings"
)

// interfaces resolves interface names. No names means every interface
// that is up, loopback ones only if multicast-capable (Linux's lo is
// not; it is used only when named). Interfaces without multicast stay in
// the list so that openLinks reports them: on Windows that is how an
// adapter that refuses multicast shows. An unknown name is an error that
// lists the names that exist.
func interfaces(names []string) ([]net.Interface, error) {
	all, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing network interfaces: %w", err)
	}
	if len(names) == 0 {
		var out []net.Interface
		for _, ifi := range all {
			loopOnly := ifi.Flags&net.FlagLoopback != 0 && ifi.Flags&net.FlagMulticast == 0
			if ifi.Flags&net.FlagUp != 0 && !loopOnly {
				out = append(out, ifi)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no network interface is up")
		}
		return out, nil
	}
	var out []net.Interface
	for _, name := range names {
		ifi, err := net.InterfaceByName(name)
		if err != nil {
			known := make([]string, len(all))
			for i, a := range all {
				known[i] = a.Name
			}
			return nil, fmt.Errorf("unknown network interface %q (have: %s)", name, strings.Join(known, ", "))
		}
		if !slices.ContainsFunc(out, func(o net.Interface) bool { return o.Index == ifi.Index }) {
			out = append(out, *ifi)
		}
	}
	return out, nil
}

func ifaceNames(ifaces []net.Interface) string {
	s := make([]string, len(ifaces))
	for i, ifi := range ifaces {
		s[i] = ifi.Name
	}
	return strings.Join(s, ", ")
}
