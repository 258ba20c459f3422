package discovery

import (
	"github.com/ferry-project/ferry/core/secure"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds Ferry's naming and TXT rules, once: what a receiver
// advertises (TXTStrings, InstanceName) and what a browser makes of what
// it hears (parseTXT, NewPeer). They work on raw strings, as the bytes
// stand on the wire. zeroconf takes and gives names and TXT strings in
// the escaped presentation form of miekg/dns, which packs and unpacks
// its packets, so Advertise and Browse escape and unescape on top of
// these (escapeTXT, unescapeTXT), and front ends that use a platform's
// own DNS-SD service (mobile) call the raw forms.

// TXT keys. Keys are case-insensitive (RFC 6763 section 6.4).
const (
	keyVersion     = "v"
	keyName        = "name"
	keyFingerprint = "fp"
)

// maxNameBytes bounds a device name in TXT: a TXT string holds at most
// 255 bytes, "name=" included.
const maxNameBytes = 255 - len(keyName+"=")

// maxInstanceBytes is the DNS label limit; a longer instance name would
// make every packet of the advertiser fail to pack, silently.
const maxInstanceBytes = 63

// txtInfo is what a peer's TXT record says. A zero field means the key was
// missing or its value unusable.
type txtInfo struct {
	Version     int
	Name        string
	Fingerprint string
}

// TXTStrings returns the TXT record Ferry advertises for a device, as raw
// key=value strings, in this order:
//
//	v=2                      ProtocolVersion
//	name=Zoë's laptop        name cleaned as NewPeer cleans it, at most 250 bytes
//	fp=K7QX-M2PA-9RTE-WD4C   fingerprint in canonical form
//
// The fingerprint may come in any case and dashing; one that is not a
// fingerprint at all gives an empty "fp=", which browsers read as none.
// Each string fits a TXT string (255 bytes). Hand them to a platform's
// DNS-SD service as they are; zeroconf needs them escaped (escapeTXT).
func TXTStrings(name, fingerprint string) []string {
	return []string{
		keyVersion + "=" + strconv.Itoa(ProtocolVersion),
		keyName + "=" + cleanName(name, maxNameBytes),
		keyFingerprint + "=" + secure.CanonicalFingerprint(fingerprint),
	}
}

// InstanceName is the DNS-SD instance name Ferry advertises: the cleaned
// device name with the first group of the fingerprint, "Zoë's laptop
// (K7QX)", so two devices with the same name do not collide (zeroconf's
// responder does no conflict resolution) and stay apart in other browsers.
// It is raw and at most one DNS label (63 bytes) long, the name cut on a
// rune boundary to make room for the group. A fingerprint may come in any
// case and dashing; without a valid one the name stands alone.
func InstanceName(name, fingerprint string) string {
	fp := secure.CanonicalFingerprint(fingerprint)
	if fp == "" {
		return cleanName(name, maxInstanceBytes)
	}
	suffix := " (" + fp[:4] + ")"
	return cleanName(name, maxInstanceBytes-len(suffix)) + suffix
}

// parseTXT reads a peer's TXT strings, raw (see unescapeTXT for what
// zeroconf hands over). It never fails: junk strings are skipped, the
// first occurrence of a key wins (RFC 6763 section 6.4), an unusable
// value leaves its field zero. The name comes back as valid UTF-8
// without control characters, so it is safe to print.
func parseTXT(kv []string) txtInfo {
	var info txtInfo
	seen := map[string]bool{}
	for _, s := range kv {
		key, value, _ := strings.Cut(s, "=")
		key = strings.ToLower(key)
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		switch key {
		case keyVersion:
			if v, err := strconv.Atoi(value); err == nil && v > 0 {
				info.Version = v
			}
		case keyName:
			info.Name = cleanName(value, maxNameBytes)
		case keyFingerprint:
			info.Fingerprint = secure.CanonicalFingerprint(value)
		}
	}
	return info
}

// cleanName makes a device name safe to show and to put in a record:
// valid UTF-8, control and format characters (terminal escapes, bidi
// overrides) replaced by spaces, runs of space collapsed, trimmed, and cut
// to at most max bytes on a rune boundary.
func cleanName(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			if b.Len()+1+utf8.RuneLen(r) > max {
				break
			}
			b.WriteByte(' ')
		}
		space = false
		if b.Len()+utf8.RuneLen(r) > max {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// escapeTXT puts raw TXT strings in the escaped presentation form that
// zeroconf hands to miekg/dns to pack. On the wire they are the raw bytes
// again.
func escapeTXT(kv []string) []string {
	out := make([]string, len(kv))
	for i, s := range kv {
		out[i] = escapePresentation(s)
	}
	return out
}

// unescapeTXT turns TXT strings as zeroconf hands them over, in the
// escaped presentation form of miekg/dns, back into the raw bytes that
// were on the wire.
func unescapeTXT(txt []string) []string {
	out := make([]string, len(txt))
	for i, s := range txt {
		out[i] = unescapePresentation(s)
	}
	return out
}

// escapePresentation escapes s for miekg/dns's presentation format, which
// names and TXT strings pass through: a backslash escapes the
// next byte, and in names a dot separates labels.
func escapePresentation(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `.`, `\.`)
	return r.Replace(s)
}

// unescapePresentation undoes miekg/dns's escaping of names and TXT
// strings: "\DDD" is the byte with decimal value DDD and "\X" is X. A
// lone trailing backslash is dropped. The result is raw bytes, not
// necessarily UTF-8.
func unescapePresentation(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		if i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
			v := int(s[i+1]-'0')*100 + int(s[i+2]-'0')*10 + int(s[i+3]-'0')
			if v <= 255 {
				b = append(b, byte(v))
				i += 3
				continue
			}
		}
		if i+1 < len(s) {
			b = append(b, s[i+1])
			i++
		}
	}
	return string(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
