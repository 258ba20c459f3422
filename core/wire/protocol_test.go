package wire

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProtocolTable checks the protocol table (protocol.go) against
// itself, against the tests that must walk it and against the package
// doc: every row has a decoder in FuzzMessage, a seed in its corpus and
// a line in the doc's list of messages; a message is
// accepted only in states of the end that reads it; every reading state
// takes at least one message besides keepalive and abort, but for
// the two in which nothing is due; parseHeader refuses what
// the table does not know.
func TestProtocolTable(t *testing.T) {
	for _, p := range tableProblems(t) {
		t.Error(p)
	}
	known := 0
	for i := range 256 {
		if _, ok := Type(i).spec(); ok {
			known++
		}
	}
	if known != 14 {
		t.Errorf("the table has %d messages; protocol version %d has 14", known, Version)
	}
}

// tableProblems checks every row of the table against the tests that
// must walk it and against its type's comment, and returns what it
// found wrong.
func tableProblems(t *testing.T) []string {
	t.Helper()
	seeds := seedCorpus()["FuzzMessage"]
	src := sources(t)
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var taken Phase
	for i := range 256 {
		typ := Type(i)
		spec, ok := typ.spec()
		if !ok {
			if _, _, err := parseHeader([]byte{byte(i), 0, 0, 0, 0}); !errors.Is(err, ErrProtocol) {
				errorf("type %d is not in the table but its header passes: %v", i, err)
			}
			continue
		}
		if _, ok := messageDecoders[typ]; !ok {
			errorf("%v has no decoder in FuzzMessage (messageDecoders)", typ)
		}
		seed, ok := seeds[spec.name]
		if !ok {
			errorf("%v has no seed in the FuzzMessage corpus", typ)
		} else if len(seed) < HeaderLen || Type(seed[0]) != typ {
			errorf("the %q seed is not a %v message", spec.name, typ)
		}
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^\t//\t%d +%s +`, i, regexp.QuoteMeta(spec.name))).Match(src) {
			errorf("%v has no line of the package doc's list on its type constant", typ)
		}
		if spec.max < 0 || spec.in == 0 || spec.from == 0 {
			errorf("%v: incomplete row %+v", typ, spec)
		}
		if spec.from&bySender != 0 && spec.in&receiverPhases == 0 ||
			spec.from&byReceiver != 0 && spec.in&senderPhases == 0 {
			errorf("%v: no state of the reading end takes it", typ)
		}
		if spec.from == bySender && spec.in&senderPhases != 0 ||
			spec.from == byReceiver && spec.in&receiverPhases != 0 {
			errorf("%v: a state of the end that sends it takes it", typ)
		}
		if typ != MsgAbort && typ != MsgKeepalive {
			taken |= spec.in
		}
		if typ.String() != spec.name {
			errorf("%v is named %q in the table", typ, spec.name)
		}
	}
	// Only deciding and closed are states in which nothing is due.
	if want := EveryPhase &^ (PhDecide | PhClosed); taken != want {
		errorf("states that take no message: %b", want&^taken)
	}
	// The data limit is the wire's, not a buffer's: 4 × 65,519 bytes.
	if _, n, err := parseHeader([]byte{byte(MsgData), 0, 0x03, 0xFF, 0xBC}); err != nil || n != 262076 {
		errorf("a data chunk of 262,076 bytes: got %d, %v", n, err)
	}
	if _, _, err := parseHeader([]byte{byte(MsgData), 0, 0x03, 0xFF, 0xBD}); !errors.Is(err, ErrProtocol) {
		errorf("a data chunk of 262,077 bytes passed: %v", err)
	}
	return problems
}

// sources is the text of the package's files but its tests: where each
// message's line must be.
func sources(t *testing.T) []byte {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

func TestParseHeaderBoundaries(t *testing.T) {
	hdr := func(typ Type, n int) []byte {
		b := make([]byte, HeaderLen)
		PutHeader(b, typ, n)
		return b
	}
	cases := []struct {
		name string
		b    []byte
		ok   bool
	}{
		{"short", []byte{1, 0, 0}, false},
		{"unknown type", hdr(0, 0), false},
		{"unknown type 15", hdr(15, 0), false},
		{"hashes at the cap", hdr(MsgHashes, maxHashesBytes), true},
		{"hashes over the cap", hdr(MsgHashes, maxHashesBytes+1), false},
		{"matches over the cap", hdr(MsgMatches, maxMatchesBytes+1), false},
		{"empty data", hdr(MsgData, 0), false},
		{"one byte of data", hdr(MsgData, 1), true},
		{"a full chunk", hdr(MsgData, MaxData), true},
		{"a chunk and one", hdr(MsgData, MaxData+1), false},
		{"offer at the cap", hdr(MsgOffer, MaxManifestBytes), true},
		{"offer over the cap", hdr(MsgOffer, MaxManifestBytes+1), false},
		{"keepalive with a body", hdr(MsgKeepalive, 1), false},
		{"finish", hdr(MsgFinish, 0), true},
		{"huge length", []byte{byte(MsgAnswer), 0xff, 0xff, 0xff, 0xff}, false},
	}
	for _, c := range cases {
		_, _, err := parseHeader(c.b)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v", c.name, err)
		}
		if err != nil && !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: %v does not wrap ErrProtocol", c.name, err)
		}
	}
}
