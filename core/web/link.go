package web

import (
	"crypto/rand"
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
