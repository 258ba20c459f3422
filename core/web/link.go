package web

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
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

// Links are the page's links for code at port: one per address in hosts
// (IPs, best first), the first the one to scan; "localhost" when there
// is none, so that there is always a link to show.
func Links(hosts []string, port int, code, fingerprint string) []string {
	if len(hosts) == 0 {
		hosts = []string{"localhost"}
	}
	links := make([]string, len(hosts))
	for i, h := range hosts {
		links[i] = Link(h, port, code, fingerprint)
	}
	return links
}

// legacyScheme is the link the app's Receive view showed before it had a
// page, ferry://HOST:PORT?code=CODE&fp=FINGERPRINT; ParseLink still reads
// it.
const legacyScheme = "ferry"

// Target is what a receiver's link names: the same link pasted into a
// Ferry app's Send view has everything it needs to send there.
type Target struct {
	Addr        string // host:port
	Code        string
	Fingerprint string
}

// ParseLink reads a receiver's page link (Link's
// http://HOST:PORT/#code=...) or a legacy ferry:// link.
func ParseLink(s string) (Target, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Target{}, fmt.Errorf("parsing link: %w", err)
	}
	var q url.Values
	switch u.Scheme {
	case "http":
		if q, err = url.ParseQuery(u.Fragment); err != nil {
			return Target{}, fmt.Errorf("parsing link: %w", err)
		}
		if q.Get("code") == "" {
			return Target{}, errors.New("parsing link: no code after # (a Ferry link is http://HOST:PORT/#code=...)")
		}
	case legacyScheme:
		q = u.Query()
	default:
		return Target{}, fmt.Errorf("parsing link: scheme %q is neither http nor %s", u.Scheme, legacyScheme)
	}
	if u.Port() == "" || u.Hostname() == "" {
		return Target{}, errors.New("parsing link: no host:port")
	}
	return Target{Addr: u.Host, Code: q.Get("code"), Fingerprint: q.Get("fp")}, nil
}

// LinkCode picks the code for a link that this device shows and a page
// reads from the link (ferry send --to-browser, the app's "Send to a
// phone"): twelve digits (about 40 bits), since nobody types it. It is
// the code a guesser would have to find in the few tries the sender
// allows (core/transfer's MaxListenerGuesses).
func LinkCode() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000_000_000))
	if err != nil {
		panic("crypto/rand failed: " + err.Error()) // never fails on supported platforms
	}
	return fmt.Sprintf("%012d", n.Int64())
}
