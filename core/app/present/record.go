package present

import "github.com/ferry-project/ferry/core/app/event"

// Who names the other device of a history record by the best it has:
// the name it gave, else its key's fingerprint, else its address; ""
// when the record has none of them (a front end words "unknown").
func Who(r event.History) string {
	for _, s := range []string{r.PeerName, r.PeerFingerprint, r.PeerAddr} {
		if s != "" {
			return s
		}
	}
	return ""
}

// MoreNames is how many top-level names a record holds besides its
// first: the names it lists and the ones it only counted.
func MoreNames(r event.History) int {
	return max(len(r.Names)-1, 0) + r.MoreNames
}

// HasSize says whether a record's size means something: a transfer
// that offered nothing (declined or failed before its offer) has none,
// and shows none rather than "0 bytes".
func HasSize(r event.History) bool {
	return r.Bytes > 0 || r.Files > 0 || r.Texts > 0
}
