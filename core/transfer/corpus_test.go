package transfer

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWriteSeedCorpus regenerates the committed seed corpus under
// testdata/fuzz from real encodings. It runs only when asked:
//
//	FERRY_WRITE_CORPUS=1 go test -run TestWriteSeedCorpus ./core/transfer
func TestWriteSeedCorpus(t *testing.T) {
	if os.Getenv("FERRY_WRITE_CORPUS") == "" {
		t.Skip("set FERRY_WRITE_CORPUS=1 to regenerate testdata/fuzz")
	}
	write := func(target, name string, b []byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mt := time.Unix(1700000000, 123456789)
	write("FuzzOffer", "tree", offerMsg{Version: protoVersion, Name: "laptop", Total: 1 << 20, Entries: []Entry{
		{Path: "photos", Kind: KindDir, Mode: 0o755, ModTime: mt},
		{Path: "photos/empty", Kind: KindDir, Mode: 0o700, ModTime: mt},
		{Path: "photos/a b ✓.jpg", Kind: KindFile, Size: 1 << 20, Mode: 0o644, ModTime: mt},
		{Path: "text.txt", Kind: KindText, Size: 0, Mode: 0o644},
	}}.encode())
	write("FuzzOffer", "hostile-dotdot", offerMsg{Version: protoVersion, Total: 1, Entries: []Entry{{Path: "../x", Kind: KindFile, Size: 1}}}.encode())
	write("FuzzOffer", "case-duplicate", offerMsg{Version: protoVersion, Entries: []Entry{{Path: "A", Kind: KindFile}, {Path: "a", Kind: KindFile}}}.encode())
	write("FuzzOffer", "empty", offerMsg{Version: protoVersion}.encode())
	write("FuzzOffer", "lying-count", []byte{1, 0, 0xc0, 0x84, 0x3d, 0})
	write("FuzzAnswer", "have-and-resume", answerMsg{Items: []answerItem{{Index: 1, Action: actHave, Offset: 10}, {Index: 4, Action: actResume, Offset: 1 << 20}}}.encode())
	write("FuzzAnswer", "empty", answerMsg{}.encode())
	write("FuzzAnswer", "out-of-order", answerMsg{Items: []answerItem{{Index: 4, Action: actResume, Offset: 1}, {Index: 1, Action: actHave, Offset: 10}}}.encode())
	write("FuzzAnswer", "resume-past-end", answerMsg{Items: []answerItem{{Index: 1, Action: actResume, Offset: 11}}}.encode())
	msgs := map[string][]byte{
		"hello":     frame(msgHello, helloMsg{Version: protoVersion, Name: "phone"}.encode()),
		"begin":     frame(msgBegin, beginMsg{Index: 3, Offset: 1 << 33}.encode()),
		"end":       frame(msgEnd, endMsg{Index: 3}.encode()),
		"skip":      frame(msgSkip, skipMsg{Index: 9}.encode()),
		"confirm":   frame(msgConfirm, confirmMsg{Index: 1, Outcome: Resumed, SavedAs: "a (1).txt"}.encode()),
		"done":      frame(msgDone, doneMsg{Wall: time.Second}.encode()),
		"abort":     frame(msgAbort, abortMsg{Code: codeCancelled, Reason: "stop"}.encode()),
		"keepalive": frame(msgKeepalive, nil),
		"data":      frame(msgData, []byte("chunk")),
		"too-big":   {byte(msgData), 0xff, 0xff, 0xff, 0xff},
	}
	for name, b := range msgs {
		write("FuzzMessage", name, b)
	}
}
