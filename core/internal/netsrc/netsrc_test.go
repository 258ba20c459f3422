package netsrc

import (
	"net"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		addr net.Addr
		want Source
	}{
		{&net.TCPAddr{IP: net.ParseIP("192.168.1.20"), Port: 5}, Source{Host: "192.168.1.20"}},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:192.168.1.20"), Port: 5}, Source{Host: "192.168.1.20"}},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8:1:2:a:b:c:d"), Port: 5}, Source{Host: "2001:db8:1:2:a:b:c:d", Net: "2001:db8:1:2::/64"}},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8:1:2::e"), Port: 5}, Source{Host: "2001:db8:1:2::e", Net: "2001:db8:1:2::/64"}},
		{&net.TCPAddr{IP: net.ParseIP("fe80::1"), Zone: "eth0", Port: 5}, Source{Host: "fe80::1%eth0", Net: "fe80::/64%eth0"}},
		{&net.TCPAddr{IP: net.ParseIP("fe80::1"), Zone: "wlan0", Port: 5}, Source{Host: "fe80::1%wlan0", Net: "fe80::/64%wlan0"}},
		{addrString("[fe80::2%eth0]:443"), Source{Host: "fe80::2%eth0", Net: "fe80::/64%eth0"}},
		{addrString("10.0.0.7:80"), Source{Host: "10.0.0.7"}},
		{addrString("pipe"), Source{Host: "pipe"}},
	}
	for _, tt := range tests {
		if got := Of(tt.addr); got != tt.want {
			t.Errorf("Of(%v) = %+v, want %+v", tt.addr, got, tt.want)
		}
	}
}

type addrString string

func (a addrString) Network() string { return "tcp" }
func (a addrString) String() string  { return string(a) }
