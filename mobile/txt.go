package mobile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/discovery"
)

// Ferry's TXT keys and limits, as core/discovery advertises and reads
// them (see its package doc). The platform hands TXT over raw, as keys
// and values, not in the escaped presentation form zeroconf uses, so the
// mobile side reads it here.
const (
	txtVersion     = "v"
	txtName        = "name"
	txtFingerprint = "fp"

	maxTXTString     = 255                             // one TXT string, "key=value"
	maxNameBytes     = maxTXTString - len(txtName+"=") // a device name in TXT
	maxInstanceBytes = 63                              // one DNS label
)

// txtInfo is what a peer's TXT says; a zero field was missing or unusable.
type txtInfo struct {
	version     int
	name        string
	fingerprint string
}

// txtFromJSON reads TXT given as a JSON object of strings (what the app
// builds from NsdServiceInfo.getAttributes or an NWTxtRecord).
func txtFromJSON(s string) (txtInfo, error) {
	if s == "" {
		return txtInfo{}, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return txtInfo{}, fmt.Errorf("reading txt json: %w", err)
	}
	var info txtInfo
	for k, v := range m {
		info.set(k, v)
	}
	return info, nil
}

// txtFromRecord reads TXT in DNS wire form: strings of one length byte
// and that many bytes (what NetService.txtRecordData and NWTxtRecord.data
// give). Like core/discovery it never rejects a peer for junk: a string
// it cannot read is skipped, the first of repeated keys wins. A record
// whose lengths run past its end is an error.
func txtFromRecord(b []byte) (txtInfo, error) {
	var info txtInfo
	seen := map[string]bool{}
	for len(b) > 0 {
		n := int(b[0])
		if 1+n > len(b) {
			return txtInfo{}, errors.New("reading txt record: string runs past the end")
		}
		s := string(b[1 : 1+n])
		b = b[1+n:]
		k, v, _ := strings.Cut(s, "=")
		k = strings.ToLower(k)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		info.set(k, v)
	}
	return info, nil
}

// set records one key's value if Ferry knows the key and the value is
// usable. Keys are case-insensitive (RFC 6763 6.4).
func (info *txtInfo) set(key, value string) {
	switch strings.ToLower(key) {
	case txtVersion:
		if v, err := strconv.Atoi(value); err == nil && v > 0 {
			info.version = v
		}
	case txtName:
		info.name = cleanName(value, maxNameBytes)
	case txtFingerprint:
		info.fingerprint = canonicalFingerprint(value)
	}
}

// txtStrings is the TXT Ferry advertises, as key=value strings, in
// core/discovery's order.
func txtStrings(name, fingerprint string) []string {
	return []string{
		txtVersion + "=" + strconv.Itoa(discovery.ProtocolVersion),
		txtName + "=" + cleanName(name, maxNameBytes),
		txtFingerprint + "=" + fingerprint,
	}
}

// txtRecord encodes strings in DNS wire form.
func txtRecord(strs []string) []byte {
	var b []byte
	for _, s := range strs {
		b = append(b, byte(len(s)))
		b = append(b, s...)
	}
	return b
}

// cleanName makes a device name safe to show and to advertise: valid
// UTF-8, control and format characters (terminal escapes, bidi
// overrides) and runs of space turned into one space, trimmed, and cut to
// at most max bytes on a rune boundary. It is core/discovery's rule.
func cleanName(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			space = true
			continue
		}
		need := utf8.RuneLen(r)
		if space && b.Len() > 0 {
			need++
		}
		if b.Len()+need > max {
			break
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// instanceName is the DNS-SD instance name Ferry advertises: the device
// name and the fingerprint's first group, "Zoë's phone (K7QX)", within
// one DNS label, as core/discovery names it.
func instanceName(name, fingerprint string) string {
	group, _, _ := strings.Cut(fingerprint, "-")
	suffix := " (" + group + ")"
	return cleanName(name, maxInstanceBytes-len(suffix)) + suffix
}

// fpAlphabet is core/secure's fingerprint alphabet: base32 without the
// look-alikes I, O, 0 and 1; a fingerprint is 16 of them in groups of 4.
const (
	fpAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	fpLen      = 16
)

// canonicalFingerprint returns s as "XXXX-XXXX-XXXX-XXXX" if it is a
// fingerprint in any case and dashing, and "" otherwise.
func canonicalFingerprint(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r == '-' || r == ' ' {
			continue
		}
		if r > unicode.MaxASCII || !strings.ContainsRune(fpAlphabet, r) || b.Len() == fpLen {
			return ""
		}
		b.WriteRune(r)
	}
	n := b.String()
	if len(n) != fpLen {
		return ""
	}
	return n[0:4] + "-" + n[4:8] + "-" + n[8:12] + "-" + n[12:16]
}
