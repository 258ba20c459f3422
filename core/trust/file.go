package trust

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/internal/jsonfile"
)

// formatVersion is the version this package reads and writes.
const formatVersion = 1

// maxRecent bounds the recent list; older entries fall off.
const maxRecent = 16

// maxNameBytes bounds a device name, as discovery bounds it in TXT.
const maxNameBytes = 255

// keySize is the length of a Curve25519 public key.
const keySize = 32

// contents is what one trust file holds.
type contents struct {
	devices []Device
	recent  []Device
}

// jsonDevice is one entry as it is on disk. Pointers tell a missing field
// from an empty one.
type jsonDevice struct {
	Name     *string `json:"name"`
	Key      *string `json:"key"`
	PairedAt *string `json:"paired_at"`
}

type jsonFile struct {
	Version int          `json:"version"`
	Devices []jsonDevice `json:"devices"`
	Recent  []jsonDevice `json:"recent"`
}

// corruptError is a trust file that cannot be read as written, with what
// is wrong and where.
type corruptError struct {
	path   string
	detail string
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("trust file %s is corrupt: %s", e.path, e.detail)
}
func (e *corruptError) Unwrap() error { return ErrCorrupt } // its kind is ErrCorrupt's

func corrupt(path, format string, args ...any) error {
	return &corruptError{path: path, detail: fmt.Sprintf(format, args...)}
}

// parse reads a trust file's bytes. path only names the file in errors.
//
// It reads twice: first only the version, so that a newer format (whose
// shape this package cannot know) is ErrUnsupportedVersion rather than a
// confusing field error; then the whole file with a token walk, which
// knows where each entry starts and so can say on which line it is wrong.
func parse(path string, b []byte) (contents, error) {
	var head struct {
		Version *json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return contents{}, jsonError(path, b, err)
	}
	if head.Version == nil {
		return contents{}, corrupt(path, "no \"version\" field")
	}
	var v int64
	if err := json.Unmarshal(*head.Version, &v); err != nil {
		return contents{}, corrupt(path, "\"version\" is %s, not a whole number", *head.Version)
	}
	switch {
	case v > formatVersion:
		return contents{}, fmt.Errorf("%w: trust file %s has format version %d; this ferry reads version %d: update ferry",
			ErrUnsupportedVersion, path, v, formatVersion)
	case v < formatVersion:
		return contents{}, corrupt(path, "format version %d does not exist (this ferry reads version %d)", v, formatVersion)
	}

	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if _, err := dec.Token(); err != nil { // '{', checked by Unmarshal above
		return contents{}, jsonError(path, b, err)
	}
	var c contents
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return contents{}, jsonError(path, b, err)
		}
		key, _ := tok.(string)
		line := jsonfile.Line(b, dec.InputOffset())
		if seen[key] {
			return contents{}, corrupt(path, "line %d: field %q appears twice", line, key)
		}
		seen[key] = true
		switch key {
		case "version":
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return contents{}, jsonError(path, b, err)
			}
		case "devices", "recent":
			list, err := parseList(path, b, dec, key)
			if err != nil {
				return contents{}, err
			}
			if key == "devices" {
				c.devices = list
			} else {
				c.recent = list
			}
		default:
			return contents{}, corrupt(path, "line %d: unknown field %q", line, key)
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return contents{}, jsonError(path, b, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return contents{}, corrupt(path, "line %d: data after the end of the object", jsonfile.Line(b, dec.InputOffset()))
	}
	return c, nil
}

// parseList reads the array under field, entry by entry, checking each.
func parseList(path string, b []byte, dec *json.Decoder, field string) ([]Device, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(path, b, err)
	}
	if tok == nil { // "devices": null is an empty list
		return nil, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, corrupt(path, "line %d: %q is not a list", jsonfile.Line(b, dec.InputOffset()), field)
	}
	var list []Device
	byKey := map[string]int{}
	for i := 0; dec.More(); i++ {
		line := jsonfile.Line(b, jsonfile.NextValue(b, dec.InputOffset()))
		where := fmt.Sprintf("line %d: %s[%d]", line, field, i)
		var jd jsonDevice
		if err := dec.Decode(&jd); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, jsonError(path, b, err)
			}
			return nil, corrupt(path, "%s: %s", where, jsonfile.Message(err))
		}
		d, err := jd.device()
		if err != nil {
			return nil, corrupt(path, "%s: %v", where, err)
		}
		k := string(d.Key)
		if j, dup := byKey[k]; dup {
			return nil, corrupt(path, "%s: same key as %s[%d] (%s)", where, field, j, d.Fingerprint())
		}
		byKey[k] = i
		list = append(list, d)
	}
	if _, err := dec.Token(); err != nil { // ']'
		return nil, jsonError(path, b, err)
	}
	return list, nil
}

// device checks one entry and converts it.
func (jd jsonDevice) device() (Device, error) {
	switch {
	case jd.Name == nil:
		return Device{}, errors.New("no \"name\"")
	case jd.Key == nil:
		return Device{}, errors.New("no \"key\"")
	case jd.PairedAt == nil:
		return Device{}, errors.New("no \"paired_at\"")
	}
	if err := checkName(*jd.Name); err != nil {
		return Device{}, err
	}
	key, err := base64.StdEncoding.Strict().DecodeString(*jd.Key)
	if err != nil {
		return Device{}, fmt.Errorf("\"key\" is not standard base64: %v", err)
	}
	if len(key) != keySize {
		return Device{}, fmt.Errorf("\"key\" is %d bytes, want %d", len(key), keySize)
	}
	t, err := time.Parse(time.RFC3339, *jd.PairedAt)
	if err != nil {
		return Device{}, fmt.Errorf("\"paired_at\" %q is not an RFC 3339 time", *jd.PairedAt)
	}
	// Stored in UTC: an offset can move a time at the edge of RFC 3339's
	// years 0000-9999 outside them, where it could not be written back.
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return Device{}, fmt.Errorf("\"paired_at\" %q is outside the years 0001 to 9999", *jd.PairedAt)
	}
	return Device{Name: *jd.Name, Key: key, PairedAt: t}, nil
}

// checkName says what is wrong with a device name, if anything.
func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("\"name\" is empty")
	case len(name) > maxNameBytes:
		return fmt.Errorf("\"name\" is %d bytes, at most %d", len(name), maxNameBytes)
	case !utf8.ValidString(name):
		return errors.New("\"name\" is not valid UTF-8")
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("\"name\" holds the control character %U", r)
		}
	}
	return nil
}

// encode renders c in the documented format, indented for people who
// read it, ending in a newline.
func encode(c contents) []byte {
	f := jsonFile{Version: formatVersion, Devices: []jsonDevice{}, Recent: []jsonDevice{}}
	for _, d := range c.devices {
		f.Devices = append(f.Devices, toJSON(d))
	}
	for _, d := range c.recent {
		f.Recent = append(f.Recent, toJSON(d))
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		// Only strings and an int: failing is a bug here.
		panic(fmt.Sprintf("encoding trust file: %v", err))
	}
	return append(b, '\n')
}

func toJSON(d Device) jsonDevice {
	name := d.Name
	key := base64.StdEncoding.EncodeToString(d.Key)
	t := d.PairedAt.UTC().Format(time.RFC3339)
	return jsonDevice{Name: &name, Key: &key, PairedAt: &t}
}

// jsonError turns a decoding error into ErrCorrupt naming the line and
// column where the decoder knows them.
func jsonError(path string, b []byte, err error) error {
	return corrupt(path, "%s", jsonfile.Describe(b, err))
}
