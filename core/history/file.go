package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ferry-project/ferry/core/internal/jsonfile"
)

// formatVersion is the version this package reads and writes.
const formatVersion = 1

// maxDurationMS bounds duration_ms so that it fits a time.Duration.
const maxDurationMS = 1 << 40

// timeFormat is RFC 3339 in UTC with milliseconds, always three digits.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// jsonRecord is one record as it is on disk. Pointers tell a missing
// required field from a zero one.
type jsonRecord struct {
	At         *string   `json:"at"`
	Direction  *string   `json:"direction"`
	Peer       *jsonPeer `json:"peer"`
	Files      int       `json:"files"`
	Folders    int       `json:"folders"`
	Texts      int       `json:"texts"`
	Bytes      int64     `json:"bytes"`
	Names      []string  `json:"names"`
	MoreNames  int       `json:"more_names"`
	Folder     string    `json:"folder"`
	Paths      []string  `json:"paths"`
	Outcome    *string   `json:"outcome"`
	ErrorKind  string    `json:"error_kind,omitempty"`
	Error      string    `json:"error,omitempty"`
	DurationMS *int64    `json:"duration_ms"`
}

type jsonPeer struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	Auth        string `json:"auth"`
	Addr        string `json:"addr"`
}

type jsonFile struct {
	Version *int               `json:"version"`
	Records *[]json.RawMessage `json:"records"`
}

// corruptError is a history file that cannot be read as written.
type corruptError struct {
	path   string
	detail string
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("history file %s is damaged: %s", e.path, e.detail)
}
func (e *corruptError) Unwrap() error { return ErrCorrupt } // its kind is ErrCorrupt's

func corrupt(path, format string, args ...any) error {
	return &corruptError{path: path, detail: fmt.Sprintf(format, args...)}
}

// parse reads a history file's bytes, oldest record first. path only
// names the file in errors.
func parse(path string, b []byte) ([]Record, error) {
	if recs, ok := parseLines(b); ok {
		return recs, nil
	}
	return parseWhole(path, b)
}

// parseLines reads b when it is laid out as encode writes it (the
// head, a record a line, the tail: every file ferry wrote), decoding
// each record once. ok is false for anything else, a damaged file
// included, which parseWhole reads and words the errors of: what it
// accepts, parseWhole accepts as the same records, at about a third of
// the cost (it scans the whole file three times).
func parseLines(b []byte) (recs []Record, ok bool) {
	lines, ok := splitLines(b)
	if !ok {
		return nil, false
	}
	recs = make([]Record, 0, len(lines))
	for _, l := range lines {
		var jr jsonRecord
		d := json.NewDecoder(bytes.NewReader(l))
		d.DisallowUnknownFields()
		// The line must be the one object and nothing more: what
		// follows it would be another record, or damage.
		if err := d.Decode(&jr); err != nil || d.InputOffset() != int64(len(l)) {
			return nil, false
		}
		r, err := jr.record()
		if err != nil {
			return nil, false
		}
		recs = append(recs, r)
	}
	return recs, true
}

// splitLines splits b, laid out as encode writes it, into its records'
// lines: the head, then each record on a line of its own (a record's
// JSON holds no raw newline) with a comma after every one but the last,
// then the tail. ok is false for any other layout; the lines are not
// checked to be records.
func splitLines(b []byte) (lines [][]byte, ok bool) {
	if len(b) < len(fileHead)+len(fileTail) || !bytes.HasPrefix(b, []byte(fileHead)) || !bytes.HasSuffix(b, []byte(fileTail)) {
		return nil, false
	}
	body := b[len(fileHead) : len(b)-len(fileTail)]
	if len(body) == 0 {
		return nil, true
	}
	if len(body) < 2 || body[0] != '\n' || body[len(body)-1] != '\n' {
		return nil, false
	}
	return bytes.Split(body[1:len(body)-1], []byte(",\n")), true
}

// parseWhole reads any history file's bytes. The version is read first,
// so that a newer format is ErrUnsupportedVersion rather than a field
// error.
func parseWhole(path string, b []byte) ([]Record, error) {
	var head struct {
		Version *json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, jsonError(path, b, err)
	}
	if head.Version == nil {
		return nil, corrupt(path, "no \"version\" field")
	}
	var v int64
	if err := json.Unmarshal(*head.Version, &v); err != nil {
		return nil, corrupt(path, "\"version\" is %s, not a whole number", *head.Version)
	}
	switch {
	case v > formatVersion:
		return nil, fmt.Errorf("%w: history file %s has format version %d; this ferry reads version %d: update ferry (the file is left as it is)",
			ErrUnsupportedVersion, path, v, formatVersion)
	case v < formatVersion:
		return nil, corrupt(path, "format version %d does not exist (this ferry reads version %d)", v, formatVersion)
	}

	var f jsonFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(path, b, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, corrupt(path, "data after the end of the object")
	}
	if f.Records == nil {
		return nil, corrupt(path, "no \"records\" list")
	}
	recs := make([]Record, 0, len(*f.Records))
	for i, raw := range *f.Records {
		var jr jsonRecord
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&jr); err != nil {
			return nil, corrupt(path, "record %d: %s", i, jsonfile.Message(err))
		}
		r, err := jr.record()
		if err != nil {
			return nil, corrupt(path, "record %d: %v", i, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// record checks one record and converts it. What it accepts, clean
// leaves as it is, so a read and a write change nothing.
func (jr jsonRecord) record() (Record, error) {
	if err := jr.checkPresent(); err != nil {
		return Record{}, err
	}
	at, err := parseAt(*jr.At)
	if err != nil {
		return Record{}, err
	}
	r := Record{
		At:        at,
		Direction: Direction(*jr.Direction),
		Peer:      Peer{Name: jr.Peer.Name, Fingerprint: jr.Peer.Fingerprint, Auth: Auth(jr.Peer.Auth), Addr: jr.Peer.Addr},
		Files:     jr.Files, Folders: jr.Folders, Texts: jr.Texts, Bytes: jr.Bytes,
		Names: jr.Names, MoreNames: jr.MoreNames,
		Folder: jr.Folder, Paths: jr.Paths,
		Outcome: Outcome(*jr.Outcome), ErrorKind: jr.ErrorKind, Error: jr.Error,
		Duration: time.Duration(*jr.DurationMS) * time.Millisecond,
	}
	if err := checkKinds(r); err != nil {
		return Record{}, err
	}
	if err := checkSizes(r, *jr.DurationMS); err != nil {
		return Record{}, err
	}
	if len(r.Names) == 0 {
		r.Names = nil
	}
	if len(r.Paths) == 0 {
		r.Paths = nil
	}
	return r, nil
}

// checkPresent says which required field, if any, the record lacks.
func (jr jsonRecord) checkPresent() error {
	switch {
	case jr.At == nil:
		return errors.New("no \"at\"")
	case jr.Direction == nil:
		return errors.New("no \"direction\"")
	case jr.Peer == nil:
		return errors.New("no \"peer\"")
	case jr.Outcome == nil:
		return errors.New("no \"outcome\"")
	case jr.DurationMS == nil:
		return errors.New("no \"duration_ms\"")
	}
	return nil
}

// parseAt reads "at": an RFC 3339 time in the years 1970 to 9999, kept
// in UTC to the millisecond as encodeRecord writes it.
func parseAt(s string) (time.Time, error) {
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("\"at\" %q is not an RFC 3339 time", s)
	}
	if y := at.UTC().Year(); y < 1970 || y > 9999 {
		return time.Time{}, fmt.Errorf("\"at\" %q is outside the years 1970 to 9999", s)
	}
	return at.UTC().Truncate(time.Millisecond), nil
}

// checkKinds checks the fields that name one of a fixed set of values:
// the direction, the outcome (and whether it carries an error kind) and
// how the peer was authenticated.
func checkKinds(r Record) error {
	switch r.Direction {
	case Sent, Received:
	default:
		return fmt.Errorf("\"direction\" is %q, want \"sent\" or \"received\"", r.Direction)
	}
	switch r.Outcome {
	case Verified, Declined, Cancelled:
		if r.ErrorKind != "" {
			return fmt.Errorf("\"error_kind\" on a %s transfer", r.Outcome)
		}
	case Failed:
		if r.ErrorKind == "" {
			return errors.New("a failed transfer without \"error_kind\"")
		}
	default:
		return fmt.Errorf("\"outcome\" is %q, want verified, failed, declined or cancelled", r.Outcome)
	}
	switch r.Peer.Auth {
	case ByTrust, ByCode, Unknown:
	default:
		return fmt.Errorf("\"auth\" is %q, want \"trusted\", \"code\" or \"\"", r.Peer.Auth)
	}
	return nil
}

// checkSizes checks every count, length and the duration against the
// limits in record.go. durationMS is the duration as written, before it
// became a time.Duration.
func checkSizes(r Record, durationMS int64) error {
	switch {
	case r.Files < 0 || r.Folders < 0 || r.Texts < 0 || r.Bytes < 0 || r.MoreNames < 0:
		return errors.New("a negative count")
	case durationMS < 0 || durationMS > maxDurationMS:
		return fmt.Errorf("\"duration_ms\" %d is out of range", durationMS)
	case len(r.Names) > maxNames || len(r.Paths) > maxNames:
		return fmt.Errorf("more than %d names or paths", maxNames)
	case len(r.Peer.Name) > maxPeerBytes || len(r.Peer.Addr) > maxPeerBytes || len(r.ErrorKind) > maxPeerBytes:
		return errors.New("a peer name, address or error kind is too long")
	case len(r.Peer.Fingerprint) > maxFPBytes:
		return errors.New("the fingerprint is too long")
	case len(r.Error) > maxErrorBytes:
		return errors.New("\"error\" is too long")
	case len(r.Folder) > maxPathBytes:
		return errors.New("\"folder\" is too long")
	}
	for _, n := range r.Names {
		if len(n) > maxNameBytes {
			return errors.New("a name is too long")
		}
	}
	for _, p := range r.Paths {
		if len(p) > maxPathBytes {
			return errors.New("a path is too long")
		}
	}
	return nil
}

// encode renders records (oldest first) in the documented format, one
// record per line, ending in a newline.
func encode(recs []Record) []byte { return joinLines(encodeLines(recs)) }

// The file's head and tail around its records.
const (
	fileHead = `{"version":1,"records":[`
	fileTail = "]}\n"
)

// encodeLines encodes each record as encodeRecord does.
func encodeLines(recs []Record) [][]byte {
	lines := make([][]byte, len(recs))
	for i, r := range recs {
		lines[i] = encodeRecord(r)
	}
	return lines
}

// joinLines renders encoded records (oldest first) as encode does.
func joinLines(lines [][]byte) []byte {
	n := len(fileHead) + len(fileTail)
	for _, l := range lines {
		n += len(l) + 2
	}
	b := make([]byte, 0, n)
	b = append(b, fileHead...)
	for i, l := range lines {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = append(b, l...)
	}
	if len(lines) > 0 {
		b = append(b, '\n')
	}
	return append(b, fileTail...)
}

func encodeRecord(r Record) []byte {
	at := r.At.UTC().Format(timeFormat)
	dir, outcome := string(r.Direction), string(r.Outcome)
	ms := r.Duration.Milliseconds()
	names, paths := r.Names, r.Paths
	if names == nil {
		names = []string{}
	}
	if paths == nil {
		paths = []string{}
	}
	jr := jsonRecord{
		At: &at, Direction: &dir,
		Peer:  &jsonPeer{Name: r.Peer.Name, Fingerprint: r.Peer.Fingerprint, Auth: string(r.Peer.Auth), Addr: r.Peer.Addr},
		Files: r.Files, Folders: r.Folders, Texts: r.Texts, Bytes: r.Bytes,
		Names: names, MoreNames: r.MoreNames, Folder: r.Folder, Paths: paths,
		Outcome: &outcome, ErrorKind: r.ErrorKind, Error: r.Error, DurationMS: &ms,
	}
	b, err := json.Marshal(jr)
	if err != nil {
		// Only strings and numbers: failing is a bug here.
		panic(fmt.Sprintf("encoding a history record: %v", err))
	}
	return b
}

// jsonError turns a decoding error into ErrCorrupt naming the line and
// column where the decoder knows them.
func jsonError(path string, b []byte, err error) error {
	return corrupt(path, "%s", jsonfile.Describe(b, err))
}
