package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A platform's own DNS-SD service (a phone's) hands a TXT record over,
// and takes one to advertise, in one of two forms: a JSON object of
// strings (Android's attributes, as the app builds them) or DNS wire
// bytes (iOS). This file converts between those forms and the raw
// key=value strings that TXTStrings makes and parseTXT reads, in record
// order, so that the first of repeated keys wins as it does on the wire.
// What a record says is txt.go's business, not this file's.

// TXTFromJSON reads TXT given as a JSON object of strings (what an app
// builds from NsdServiceInfo.getAttributes or an NWTxtRecord), keeping
// the object's order. A null value is a key without "=" (a TXT boolean
// attribute, which NsdServiceInfo gives as null), a key that no TXT
// string could carry (empty, or holding "=") is skipped, and an empty
// string or null is no TXT. Anything else that is not an object of
// strings is an error.
func TXTFromJSON(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	kv, err := readTXTObject(dec)
	if err != nil {
		return nil, fmt.Errorf("reading txt json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("reading txt json: more after the object")
	}
	return kv, nil
}

// readTXTObject reads one JSON object of strings, or null, from dec.
func readTXTObject(dec *json.Decoder) ([]string, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var kv []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // inside an object the decoder yields keys as strings
		if tok, err = dec.Token(); err != nil {
			return nil, err
		}
		s := key
		switch v := tok.(type) {
		case string:
			s += "=" + v
		case nil:
		default:
			return nil, fmt.Errorf("value of %q is not a string", key)
		}
		if key != "" && !strings.Contains(key, "=") {
			kv = append(kv, s)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	return kv, nil
}

// TXTFromRecord splits TXT in DNS wire form, strings of one length byte
// and that many bytes (what NetService.txtRecordData and NWTxtRecord.data
// give), into its strings, every one kept as it is: parseTXT skips the
// junk. A record whose lengths run past its end is an error.
func TXTFromRecord(b []byte) ([]string, error) {
	var kv []string
	for len(b) > 0 {
		n := int(b[0])
		if 1+n > len(b) {
			return nil, errors.New("reading txt record: string runs past the end")
		}
		kv = append(kv, string(b[1:1+n]))
		b = b[1+n:]
	}
	return kv, nil
}

// TXTRecord encodes strings in DNS wire form. Each must fit a TXT string
// (255 bytes), as TXTStrings's do; a longer one is a caller's bug.
func TXTRecord(strs []string) []byte {
	var b []byte
	for _, s := range strs {
		if len(s) > 255 {
			panic(fmt.Sprintf("discovery: TXT string of %d bytes", len(s)))
		}
		b = append(b, byte(len(s)))
		b = append(b, s...)
	}
	return b
}

// TXTJSON encodes key=value strings as a JSON object of strings, the
// form an Android app hands to NsdServiceInfo.setAttribute; a repeated
// key keeps its last value, and the keys come out sorted.
func TXTJSON(strs []string) string {
	m := make(map[string]string, len(strs))
	for _, s := range strs {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	js, _ := json.Marshal(m) // a map of strings always encodes
	return string(js)
}
