package ui

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/ferry-project/ferry/core/web"
)

// The Receive view's QR code and link are the receiver's browser page
// (core/web): http://HOST:PORT/#code=CODE&fp=FINGERPRINT. A phone that
// scans it opens the page, which sends through Ferry's own protocol; the
// code and fingerprint ride in the fragment, which browsers never send
// over the network. The same link pasted into another Ferry app's Send
// view has everything that app needs: the address, the code and the
// fingerprint to check.
//
// legacyScheme is the link the Receive view showed before it had a page,
// ferry://HOST:PORT?code=CODE&fp=FINGERPRINT; ParseLink still reads it.
const legacyScheme = "ferry"

// FormatLink returns the page link for a receiver.
func FormatLink(host string, port int, code, fingerprint string) string {
	return web.Link(host, port, code, fingerprint)
}

// Link is a parsed receiver link.
type Link struct {
	Addr        string // host:port
	Code        string
	Fingerprint string
}

// ParseLink reads a receiver's page link (http://HOST:PORT/#code=...) or
// a legacy ferry:// link.
func ParseLink(s string) (Link, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Link{}, fmt.Errorf("parsing link: %w", err)
	}
	var q url.Values
	switch u.Scheme {
	case "http":
		if q, err = url.ParseQuery(u.Fragment); err != nil {
			return Link{}, fmt.Errorf("parsing link: %w", err)
		}
		if q.Get("code") == "" {
			return Link{}, errors.New("parsing link: no code after # (a Ferry link is http://HOST:PORT/#code=...)")
		}
	case legacyScheme:
		q = u.Query()
	default:
		return Link{}, fmt.Errorf("parsing link: scheme %q is neither http nor %s", u.Scheme, legacyScheme)
	}
	if u.Port() == "" || u.Hostname() == "" {
		return Link{}, errors.New("parsing link: no host:port")
	}
	return Link{Addr: u.Host, Code: q.Get("code"), Fingerprint: q.Get("fp")}, nil
}
