package place

import (
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"lukechampine.com/blake3"
)

// streamedPartialName is how partial files were named before: a hasher
// fed each field. A partial file left by that version must keep its name.
func streamedPartialName(fp, path string, size int64, modTime time.Time) string {
	h := blake3.New(16, nil)
	io.WriteString(h, fp)
	h.Write([]byte{0})
	io.WriteString(h, path)
	h.Write([]byte{0})
	io.WriteString(h, strconv.FormatInt(size, 10))
	h.Write([]byte{0})
	if !modTime.IsZero() {
		io.WriteString(h, strconv.FormatInt(modTime.UnixNano(), 10))
	}
	return PartialDir + "/" + hex.EncodeToString(h.Sum(nil)) + ".part"
}

// TestPartialNameStable checks that PartialName names a partial file as
// earlier versions did, across short and long fields (one hash block and
// many), and that it allocates no hasher, only the fields it hashes and
// its result: a receiver names one per offered file.
func TestPartialNameStable(t *testing.T) {
	for _, fp := range []string{"", "SHA256:abcdefabcdef0123456789", strings.Repeat("f", 64)} {
		for _, p := range []string{"a", "file-000001-xxxxxxxxxxxxxxxx.bin", strings.Repeat("d/", 500) + "x", strings.Repeat("é", 1000)} {
			for _, size := range []int64{0, 1, 1 << 40} {
				for _, mt := range []time.Time{{}, time.Unix(0, 0), time.Unix(1700000000, 123456789), time.Unix(-5, 3)} {
					d := &Dest{peerFP: fp}
					if got, want := d.PartialName(p, size, mt), streamedPartialName(fp, p, size, mt); got != want {
						t.Fatalf("%q %q %d %v: %s, want %s", fp, p, size, mt, got, want)
					}
				}
			}
		}
	}
	d := &Dest{peerFP: "SHA256:abcdefabcdef0123456789"}
	if n := testing.AllocsPerRun(100, func() { d.PartialName("file-000001-xxxxxxxxxxxxxxxx.bin", 1, time.Unix(1700000000, 1)) }); n > 2 {
		t.Errorf("PartialName allocates %v times, want 2", n)
	}
}
