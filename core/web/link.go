package web

import (
	"net"
	"net/url"
	"strconv"
)

// Link is the address a person opens on the phone: the page at host:port,
// with the code and this device's fingerprint in the fragment, which a
// browser never sends over the network (RFC 3986, 3.5). host is an IP
// address (or localhost): the Server refuses other names.
func Link(host string, port int, code, fingerprint string) string {
	v := url.Values{}
	v.Set("code", code)
	v.Set("fp", fingerprint)
	return "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/#" + v.Encode()
}
