package event

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A Notice is an event a person reads as it is: it carries its own
// words, front-end neutral, so that every front end shows any Notice the
// same way, without knowing which it is (the CLI prints it, the app
// shows it on the receive screen, the page beside its code), and Marshal
// adds them to its JSON form as "notice" for mobile and --json. A new
// event a person must read needs no code in a front end. The words are
// in the form of core/errkind's Words: a clause, lowercase at the start,
// no period at the end, which a front end that writes sentences
// capitalises and ends with one.
type Notice interface {
	Event
	Notice() string
}

// SameNameWarning is what a question about o adds when its sender claims
// the name of others in progress with other keys (SameNameAs): both
// fingerprints, so the person tells the devices apart; "" when there is
// none. The name is the sender's choice: a front end that prints to a
// terminal makes the whole line safe, as it does every peer name.
func (o Offer) SameNameWarning() string {
	if len(o.SameNameAs) == 0 {
		return ""
	}
	return fmt.Sprintf("careful: another device is also sending as %q (fingerprint %s): one may be posing as the other; this one's fingerprint is %s",
		o.PeerName, strings.Join(o.SameNameAs, ", "), o.PeerFingerprint)
}

// withNotice adds a Notice's words to its JSON object b as "notice".
func withNotice(ev Event, b []byte) []byte {
	n, ok := ev.(Notice)
	if !ok || len(b) < 2 {
		return b
	}
	text, _ := json.Marshal(n.Notice()) // a string always encodes
	out := make([]byte, 0, len(b)+len(text)+len(`,"notice":`))
	out = append(out, b[:len(b)-1]...)
	out = append(out, `,"notice":`...)
	out = append(out, text...)
	return append(out, '}')
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
