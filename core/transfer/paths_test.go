package transfer

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	ok := []string{
		"a", "a/b/c", "naïve café.txt", "with space/x y", ".hidden", "a.b.c", "COM10", "LPT", "console.txt",
		"CONx", "x.CON", strings.Repeat("n", MaxNameBytes), "日本語/ファイル.txt", "a..b", "-dash", "ends.with.dot.txt",
	}
	for _, p := range ok {
		if err := checkPath(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
	bad := []string{
		"", "/", "/a", "a/", "a//b", ".", "..", "../a", "a/..", "a/./b", `a\b`, `C:\x`, "C:", "a:b", "a\x00b", "a\nb",
		"a\x7f", "CON", "con", "Con.txt", "nul.tar.gz", "COM1", "com9.x", "LPT1", "lpt9", "AUX", "PRN", "CONIN$", "COM¹",
		"a.", "a ", "dir./x", "CON /x", strings.Repeat("n", MaxNameBytes+1), partialDir, partialDir + "/x", ".FERRY-PARTIAL",
		strings.Repeat("d/", MaxPathBytes/2+1) + "x", "a\xffb",
	}
	for _, p := range bad {
		if err := checkPath(p); !errors.Is(err, ErrRefusedPath) {
			t.Errorf("%q accepted (%v)", p, err)
		}
	}
}

func TestClashName(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		isDir bool
		want  string
	}{
		{"a.txt", 1, false, "a (1).txt"},
		{"a.txt", 2, false, "a (2).txt"},
		{"archive.tar.gz", 1, false, "archive.tar (1).gz"},
		{".bashrc", 1, false, ".bashrc (1)"},
		{"noext", 3, false, "noext (3)"},
		{"my.folder", 1, true, "my.folder (1)"},
	}
	for _, c := range cases {
		if got := clashName(c.name, c.n, c.isDir); got != c.want {
			t.Errorf("clashName(%q, %d, %v) = %q, want %q", c.name, c.n, c.isDir, got, c.want)
		}
	}
}

func TestParseHeaderBoundaries(t *testing.T) {
	hdr := func(typ msgType, n int) []byte {
		b := make([]byte, headerLen)
		putHeader(b, typ, n)
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
		{"hashes at the cap", hdr(msgHashes, maxHashesBytes), true},
		{"hashes over the cap", hdr(msgHashes, maxHashesBytes+1), false},
		{"matches over the cap", hdr(msgMatches, maxMatchesBytes+1), false},
		{"empty data", hdr(msgData, 0), false},
		{"one byte of data", hdr(msgData, 1), true},
		{"a full chunk", hdr(msgData, maxChunk), true},
		{"a chunk and one", hdr(msgData, maxChunk+1), false},
		{"offer at the cap", hdr(msgOffer, MaxManifestBytes), true},
		{"offer over the cap", hdr(msgOffer, MaxManifestBytes+1), false},
		{"keepalive with a body", hdr(msgKeepalive, 1), false},
		{"finish", hdr(msgFinish, 0), true},
		{"huge length", []byte{byte(msgAnswer), 0xff, 0xff, 0xff, 0xff}, false},
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
