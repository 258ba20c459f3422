package wire

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// seedCorpus is the seed corpus of every fuzz target, by target and
// name, built from the real encoders. It is committed under
// testdata/fuzz, where go test runs each seed through its target;
// TestSeedCorpus keeps the two in step.
func seedCorpus() map[string]map[string][]byte {
	mt := time.Unix(1700000000, 123456789)
	return map[string]map[string][]byte{
		"FuzzOffer": {
			"tree": Offer{Version: Version, Name: "laptop", Total: 1 << 20, Entries: []event.Entry{
				{Path: "photos", Kind: event.KindDir, Mode: 0o755, ModTime: mt},
				{Path: "photos/empty", Kind: event.KindDir, Mode: 0o700, ModTime: mt},
				{Path: "photos/a b ✓.jpg", Kind: event.KindFile, Size: 1 << 20, Mode: 0o644, ModTime: mt},
				{Path: "text.txt", Kind: event.KindText, Size: 0, Mode: 0o644},
			}}.Encode(),
			"small-tree": Offer{Version: Version, Name: "box", Total: 12, Entries: []event.Entry{
				{Path: "a", Kind: event.KindDir, Mode: 0o755, ModTime: time.Unix(1700000000, 5)},
				{Path: "a/b.txt", Kind: event.KindFile, Size: 7, Mode: 0o644, ModTime: time.Unix(1700000001, 0)},
				{Path: "note.txt", Kind: event.KindText, Size: 5, Mode: 0o644},
			}}.Encode(),
			"hostile-dotdot": Offer{Version: Version, Total: 1, Entries: []event.Entry{{Path: "../x", Kind: event.KindFile, Size: 1}}}.Encode(),
			"case-duplicate": Offer{Version: Version, Entries: []event.Entry{{Path: "A", Kind: event.KindFile}, {Path: "a", Kind: event.KindFile}}}.Encode(),
			"empty":          Offer{Version: Version}.Encode(),
			"lying-count":    {Version, 0, 0xc0, 0x84, 0x3d, 0},
			"huge-count":     {Version, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0},
			"version-1":      Offer{Version: 1, Name: "old", Total: 1, Entries: []event.Entry{{Path: "a", Kind: event.KindFile, Size: 1}}}.Encode(),
		},
		// Decoded against FuzzAnswer's entries.
		"FuzzAnswer": {
			"have-and-resume": Answer{Items: []AnswerItem{{Index: 1, Action: ActHave, Offset: 10}, {Index: 4, Action: ActResume, Offset: 1 << 20}}}.Encode(),
			"haves":           Answer{Items: []AnswerItem{{Index: 1, Action: ActHave}, {Index: 2, Action: ActHave}, {Index: 4, Action: ActHave}}}.Encode(),
			"v1-have-hash":    {1, 1, 1, 10, 0xaa, 0xbb},
			"empty":           Answer{}.Encode(),
			"out-of-order":    Answer{Items: []AnswerItem{{Index: 4, Action: ActResume, Offset: 1}, {Index: 1, Action: ActHave, Offset: 10}}}.Encode(),
			"resume-past-end": Answer{Items: []AnswerItem{{Index: 1, Action: ActResume, Offset: 11}}}.Encode(),
			"short":           {5, 0, 1, 0},
		},
		// Decoded against fuzzHaves.
		"FuzzHashes": {
			"all":       Hashes{Items: []HashItem{{Index: 1, Hash: [HashLen]byte{1}}, {Index: 2}, {Index: 4, Hash: [HashLen]byte{31: 9}}}}.Encode(),
			"one-short": Hashes{Items: []HashItem{{Index: 1}, {Index: 2}}}.Encode(),
			"wrong-one": Hashes{Items: []HashItem{{Index: 1}, {Index: 3}, {Index: 4}}}.Encode(),
			"huge":      {0xff, 0xff, 0xff, 0xff, 0x0f},
		},
		"FuzzMatches": {
			"none":         Matches{}.Encode(),
			"two":          Matches{Indexes: []int{1, 4}}.Encode(),
			"all":          Matches{Indexes: []int{1, 2, 4}}.Encode(),
			"not-a-have":   Matches{Indexes: []int{3}}.Encode(),
			"out-of-order": Matches{Indexes: []int{4, 1}}.Encode(),
			"twice":        Matches{Indexes: []int{2, 2}}.Encode(),
		},
		"FuzzMessage": messageSeeds,
	}
}

// messageSeeds is FuzzMessage's corpus: a message of every type of the
// protocol table, framed, by its name in the table, and the framings
// that must fail. Keyed by every row: TestProtocolTable fails when a
// row has no seed here.
var messageSeeds = map[string][]byte{
	"hashes":    Frame(MsgHashes, Hashes{Items: []HashItem{{Index: 1}, {Index: 2}, {Index: 4}}}.Encode()),
	"matches":   Frame(MsgMatches, Matches{Indexes: []int{2}}.Encode()),
	"hello":     Frame(MsgHello, Hello{Version: Version, Name: "phone"}.Encode()),
	"begin":     Frame(MsgBegin, Begin{Index: 3, Offset: 1 << 33}.Encode()),
	"end":       Frame(MsgEnd, End{Index: 3}.Encode()),
	"skip":      Frame(MsgSkip, Skip{Index: 9}.Encode()),
	"confirm":   Frame(MsgConfirm, Confirm{Index: 1, Outcome: event.Resumed, SavedAs: "a (1).txt"}.Encode()),
	"done":      Frame(MsgDone, Done{Wall: time.Second}.Encode()),
	"abort":     Frame(MsgAbort, Abort{Code: CodeCancelled, Reason: "stop"}.Encode()),
	"keepalive": Frame(MsgKeepalive, nil),
	"data":      Frame(MsgData, []byte("chunk")),
	"offer":     Frame(MsgOffer, Offer{Version: Version, Name: "box", Total: 3, Entries: []event.Entry{{Path: "a", Kind: event.KindFile, Size: 3}}}.Encode()),
	"answer":    Frame(MsgAnswer, Answer{Items: []AnswerItem{{Index: 1, Action: ActHave, Offset: 3}}}.Encode()),
	"finish":    Frame(MsgFinish, nil),
	"too-big":   {byte(MsgData), 0xff, 0xff, 0xff, 0xff},
}

// messageDecoders decodes the body of each message type of the protocol
// table (protocol.go), for FuzzMessage, as the end that reads it would; nil for a type
// with no body to decode (a data chunk is bytes of a file). Keyed by
// every row: TestProtocolTable fails when a row has no entry here.
var messageDecoders = map[Type]func(body []byte) error{
	MsgHello: func(b []byte) error { _, err := DecodeHello(b); return err },
	MsgOffer: func(b []byte) error { _, err := DecodeOffer(b); return err },
	MsgAnswer: func(b []byte) error {
		_, err := DecodeAnswer(b, []event.Entry{{Path: "a", Kind: event.KindFile, Size: 10}, {Path: "b", Kind: event.KindFile, Size: 3}})
		return err
	},
	MsgBegin:     func(b []byte) error { _, err := DecodeBegin(b); return err },
	MsgData:      nil,
	MsgEnd:       func(b []byte) error { _, err := DecodeEnd(b); return err },
	MsgSkip:      func(b []byte) error { _, err := DecodeSkip(b); return err },
	MsgConfirm:   func(b []byte) error { _, err := DecodeConfirm(b, 10); return err },
	MsgFinish:    nil,
	MsgDone:      func(b []byte) error { _, err := DecodeDone(b); return err },
	MsgAbort:     func(b []byte) error { _, err := DecodeAbort(b); return err },
	MsgKeepalive: nil,
	MsgHashes:    func(b []byte) error { _, err := DecodeHashes(b, fuzzHaves); return err },
	MsgMatches:   func(b []byte) error { _, err := DecodeMatches(b, fuzzHaves); return err },
}

// TestSeedCorpus fails when the committed corpus lacks a seed, or holds
// an old encoding of one: a change to an encoder must come with new
// seeds. Files the table does not name (inputs a fuzzing run found) are
// left alone. To rewrite the seeds:
//
//	FERRY_WRITE_CORPUS=1 go test -run TestSeedCorpus ./core/wire
func TestSeedCorpus(t *testing.T) {
	write := os.Getenv("FERRY_WRITE_CORPUS") == "1"
	for target, seeds := range seedCorpus() {
		dir := filepath.Join("testdata", "fuzz", target)
		if write {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for name, b := range seeds {
			want := fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b)
			path := filepath.Join(dir, name)
			if write {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("seed %s is missing (FERRY_WRITE_CORPUS=1 writes it): %v", path, err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("seed %s is out of date (FERRY_WRITE_CORPUS=1 rewrites it):\n got: %q\nwant: %q", path, got, want)
			}
		}
	}
}
