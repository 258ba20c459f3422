package ui

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
)

// linkScheme is the scheme of the address a receiver shows as a QR code:
// ferry://HOST:PORT?code=CODE&fp=FINGERPRINT. A phone that scans it has
// everything it needs to send; the fingerprint lets it check that it
// reached the device it scanned.
const linkScheme = "ferry"

// FormatLink returns the ferry:// link for a receiver.
func FormatLink(host string, port int, code, fingerprint string) string {
	q := url.Values{}
	q.Set("code", code)
	if fingerprint != "" {
		q.Set("fp", fingerprint)
	}
	u := url.URL{Scheme: linkScheme, Host: net.JoinHostPort(host, strconv.Itoa(port)), RawQuery: q.Encode()}
	return u.String()
}

// Link is a parsed ferry:// link.
type Link struct {
	Addr        string // host:port
	Code        string
	Fingerprint string
}

// ParseLink reads a ferry:// link.
func ParseLink(s string) (Link, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Link{}, fmt.Errorf("parsing link: %w", err)
	}
	if u.Scheme != linkScheme {
		return Link{}, fmt.Errorf("parsing link: scheme %q is not %s", u.Scheme, linkScheme)
	}
	if u.Port() == "" || u.Hostname() == "" {
		return Link{}, errors.New("parsing link: no host:port")
	}
	q := u.Query()
	return Link{Addr: u.Host, Code: q.Get("code"), Fingerprint: q.Get("fp")}, nil
}
