package transfer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// seedCorpus is the seed corpus of every fuzz target, by target and
// name, built from the real encoders. It is committed under
// testdata/fuzz, where go test runs each seed through its target;
// TestSeedCorpus keeps the two in step.
func seedCorpus() map[string]map[string][]byte {
	mt := time.Unix(1700000000, 123456789)
	return map[string]map[string][]byte{
		"FuzzOffer": {
			"tree": offerMsg{Version: protoVersion, Name: "laptop", Total: 1 << 20, Entries: []Entry{
				{Path: "photos", Kind: KindDir, Mode: 0o755, ModTime: mt},
				{Path: "photos/empty", Kind: KindDir, Mode: 0o700, ModTime: mt},
				{Path: "photos/a b ✓.jpg", Kind: KindFile, Size: 1 << 20, Mode: 0o644, ModTime: mt},
				{Path: "text.txt", Kind: KindText, Size: 0, Mode: 0o644},
			}}.encode(),
			"small-tree": offerMsg{Version: protoVersion, Name: "box", Total: 12, Entries: []Entry{
				{Path: "a", Kind: KindDir, Mode: 0o755, ModTime: time.Unix(1700000000, 5)},
				{Path: "a/b.txt", Kind: KindFile, Size: 7, Mode: 0o644, ModTime: time.Unix(1700000001, 0)},
				{Path: "note.txt", Kind: KindText, Size: 5, Mode: 0o644},
			}}.encode(),
			"hostile-dotdot": offerMsg{Version: protoVersion, Total: 1, Entries: []Entry{{Path: "../x", Kind: KindFile, Size: 1}}}.encode(),
			"case-duplicate": offerMsg{Version: protoVersion, Entries: []Entry{{Path: "A", Kind: KindFile}, {Path: "a", Kind: KindFile}}}.encode(),
			"empty":          offerMsg{Version: protoVersion}.encode(),
			"lying-count":    {protoVersion, 0, 0xc0, 0x84, 0x3d, 0},
			"huge-count":     {protoVersion, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0},
			"version-1":      offerMsg{Version: 1, Name: "old", Total: 1, Entries: []Entry{{Path: "a", Kind: KindFile, Size: 1}}}.encode(),
		},
		// Decoded against FuzzAnswer's entries.
		"FuzzAnswer": {
			"have-and-resume": answerMsg{Items: []answerItem{{Index: 1, Action: actHave, Offset: 10}, {Index: 4, Action: actResume, Offset: 1 << 20}}}.encode(),
			"haves":           answerMsg{Items: []answerItem{{Index: 1, Action: actHave}, {Index: 2, Action: actHave}, {Index: 4, Action: actHave}}}.encode(),
			"v1-have-hash":    {1, 1, 1, 10, 0xaa, 0xbb},
			"empty":           answerMsg{}.encode(),
			"out-of-order":    answerMsg{Items: []answerItem{{Index: 4, Action: actResume, Offset: 1}, {Index: 1, Action: actHave, Offset: 10}}}.encode(),
			"resume-past-end": answerMsg{Items: []answerItem{{Index: 1, Action: actResume, Offset: 11}}}.encode(),
			"short":           {5, 0, 1, 0},
		},
		// Decoded against fuzzHaves.
		"FuzzHashes": {
			"all":       hashesMsg{Items: []hashItem{{Index: 1, Hash: [hashLen]byte{1}}, {Index: 2}, {Index: 4, Hash: [hashLen]byte{31: 9}}}}.encode(),
			"one-short": hashesMsg{Items: []hashItem{{Index: 1}, {Index: 2}}}.encode(),
			"wrong-one": hashesMsg{Items: []hashItem{{Index: 1}, {Index: 3}, {Index: 4}}}.encode(),
			"huge":      {0xff, 0xff, 0xff, 0xff, 0x0f},
		},
		"FuzzMatches": {
			"none":         matchesMsg{}.encode(),
			"two":          matchesMsg{Indexes: []int{1, 4}}.encode(),
			"all":          matchesMsg{Indexes: []int{1, 2, 4}}.encode(),
			"not-a-have":   matchesMsg{Indexes: []int{3}}.encode(),
			"out-of-order": matchesMsg{Indexes: []int{4, 1}}.encode(),
			"twice":        matchesMsg{Indexes: []int{2, 2}}.encode(),
		},
		"FuzzMessage": {
			"hashes":    frame(msgHashes, hashesMsg{Items: []hashItem{{Index: 1}, {Index: 2}, {Index: 4}}}.encode()),
			"matches":   frame(msgMatches, matchesMsg{Indexes: []int{2}}.encode()),
			"hello":     frame(msgHello, helloMsg{Version: protoVersion, Name: "phone"}.encode()),
			"begin":     frame(msgBegin, beginMsg{Index: 3, Offset: 1 << 33}.encode()),
			"end":       frame(msgEnd, endMsg{Index: 3}.encode()),
			"skip":      frame(msgSkip, skipMsg{Index: 9}.encode()),
			"confirm":   frame(msgConfirm, confirmMsg{Index: 1, Outcome: Resumed, SavedAs: "a (1).txt"}.encode()),
			"done":      frame(msgDone, doneMsg{Wall: time.Second}.encode()),
			"abort":     frame(msgAbort, abortMsg{Code: codeCancelled, Reason: "stop"}.encode()),
			"keepalive": frame(msgKeepalive, nil),
			"data":      frame(msgData, []byte("chunk")),
			"offer":     frame(msgOffer, offerMsg{Version: protoVersion, Name: "box", Total: 3, Entries: []Entry{{Path: "a", Kind: KindFile, Size: 3}}}.encode()),
			"answer":    frame(msgAnswer, answerMsg{Items: []answerItem{{Index: 1, Action: actHave, Offset: 3}}}.encode()),
			"finish":    frame(msgFinish, nil),
			"too-big":   {byte(msgData), 0xff, 0xff, 0xff, 0xff},
		},
	}
}

// TestSeedCorpus fails when the committed corpus lacks a seed, or holds
// an old encoding of one: a change to an encoder must come with new
// seeds. Files the table does not name (inputs a fuzzing run found) are
// left alone. To rewrite the seeds:
//
//	FERRY_WRITE_CORPUS=1 go test -run TestSeedCorpus ./core/transfer
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
