package nearby

import "github.com/ferry-project/ferry/core/web"

// The link a receiver shows (as text and as a QR code) and a phone's
// browser or another Ferry app opens: core/web makes and reads it, these
// are the front ends' door to it: a link is how a phone, or an app
// given one, finds a receiver.

// PageLink is the address a person opens on a phone: the page at
// host:port, with the code and this device's fingerprint in the
// fragment, which a browser never sends over the network. host is an IP
// address (or localhost).
func PageLink(host string, port int, code, fingerprint string) string {
	return web.Link(host, port, code, fingerprint)
}

// LinkCode picks the code for a link that this device shows and a page
// reads from the link: twelve digits, since nobody types it.
func LinkCode() string { return web.LinkCode() }

// LinkTarget is what a receiver's link names: pasted into a Ferry app's
// Send view, it has everything needed to send there.
type LinkTarget struct {
	Addr        string // host:port
	Code        string
	Fingerprint string
}

// ParseLink reads a receiver's page link (PageLink's
// http://HOST:PORT/#code=...) or the older ferry://HOST:PORT?code=... form.
func ParseLink(s string) (LinkTarget, error) {
	t, err := web.ParseLink(s)
	return LinkTarget(t), err
}
