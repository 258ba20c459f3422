package secure

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/ferry-project/ferry/core/internal/streamtune"
)

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// seal writes msg through a fresh writer and returns the wire bytes plus a
// reader factory for them.
func seal(t testing.TB, c Cipher, msg []byte, cfg Config) ([]byte, func(b []byte) (*Conn, *memConn)) {
	t.Helper()
	w, out, reader := keyedPair(c, cfg)
	if _, err := w.Write(msg); err != nil {
		t.Fatal(err)
	}
	if err := w.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	return out.w.Bytes(), reader
}

var boundarySizes = []int{0, 1, MaxPlaintext - 1, MaxPlaintext, MaxPlaintext + 1, 2*MaxPlaintext + 500, ChunkSize, ChunkSize + 1}

func TestRoundTripBoundaries(t *testing.T) {
	for _, c := range []Cipher{AESGCM, ChaChaPoly} {
		sizes := append([]int{}, boundarySizes...)
		for range 4 {
			sizes = append(sizes, mrand.IntN(3*ChunkSize))
		}
		for _, n := range sizes {
			msg := randBytes(n)
			wire, reader := seal(t, c, msg, Config{})
			wrappers := map[string]func(io.Reader) io.Reader{
				"plain":   func(r io.Reader) io.Reader { return r },
				"onebyte": iotest.OneByteReader,
				"half":    iotest.HalfReader,
				"dataerr": iotest.DataErrReader,
			}
			for name, wrap := range wrappers {
				for _, rsize := range []int{1, 7, 4096, MaxPlaintext, MaxPlaintext + 1, 1 << 20} {
					if name == "onebyte" && n > 200_000 {
						continue // one byte at a time through 200 KB says nothing new
					}
					t.Run(fmt.Sprintf("%v/%d/%s/%d", c, n, name, rsize), func(t *testing.T) {
						rc, _ := reader(wire)
						got, err := readAllSized(wrap(rc), rsize)
						if err != nil {
							t.Fatalf("read: %v", err)
						}
						if !bytes.Equal(got, msg) {
							t.Fatalf("got %d bytes, want %d (content differs)", len(got), len(msg))
						}
					})
				}
			}
			// The whole-stream checker from testing/iotest.
			rc, _ := reader(wire)
			if err := iotest.TestReader(rc, msg); err != nil {
				t.Errorf("%v/%d: iotest.TestReader: %v", c, n, err)
			}
		}
	}
}

func readAllSized(r io.Reader, size int) ([]byte, error) {
	var out []byte
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// records splits wire bytes into framed records.
func records(t *testing.T, wire []byte) [][]byte {
	t.Helper()
	var rs [][]byte
	for len(wire) > 0 {
		l := int(binary.BigEndian.Uint16(wire))
		rs = append(rs, wire[:lenSize+l])
		wire = wire[lenSize+l:]
	}
	return rs
}

func TestRecordsNeverExceedLimit(t *testing.T) {
	wire, _ := seal(t, AESGCM, randBytes(5*MaxPlaintext+3), Config{})
	rs := records(t, wire)
	if len(rs) != 7 { // 5 full, 1 of 3 bytes, end of stream
		t.Fatalf("got %d records, want 7", len(rs))
	}
	for i, r := range rs {
		if len(r)-lenSize > maxRecord {
			t.Errorf("record %d has %d bytes of ciphertext", i, len(r)-lenSize)
		}
	}
	if l := len(rs[0]) - lenSize; l != maxRecord {
		t.Errorf("full record carries %d bytes, want %d", l, maxRecord)
	}
}

func readErr(t *testing.T, reader func([]byte) (*Conn, *memConn), wire []byte) error {
	t.Helper()
	rc, _ := reader(wire)
	_, err := io.ReadAll(rc)
	// Sticky: asking again gives the same answer.
	if _, err2 := rc.Read(make([]byte, 10)); err != nil && !errors.Is(err2, errorsRoot(err)) {
		t.Errorf("error not sticky: first %v, then %v", err, err2)
	}
	return err
}

// errorsRoot returns the first sentinel err wraps, for the sticky check.
func errorsRoot(err error) error {
	for _, s := range []error{ErrAuth, ErrTruncated, ErrMalformed, ErrTrailingData, ErrWrongCode, ErrCodeRetired, ErrCodesHeld} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

func TestTruncatedAtEveryBoundary(t *testing.T) {
	msg := randBytes(2*MaxPlaintext + 500)
	wire, reader := seal(t, ChaChaPoly, msg, Config{})
	rs := records(t, wire)
	// Interesting cuts: inside each length, inside each body, between
	// records, and just before the end record; then every 997th byte.
	cuts := map[int]string{}
	off := 0
	for i, r := range rs {
		cuts[off] = fmt.Sprintf("before record %d", i)
		cuts[off+1] = fmt.Sprintf("inside length of record %d", i)
		cuts[off+lenSize] = fmt.Sprintf("after length of record %d", i)
		cuts[off+lenSize+len(r)/2] = fmt.Sprintf("inside body of record %d", i)
		cuts[off+len(r)-1] = fmt.Sprintf("last byte of record %d missing", i)
		off += len(r)
	}
	for c := 0; c < len(wire); c += 997 {
		if _, ok := cuts[c]; !ok {
			cuts[c] = fmt.Sprintf("at byte %d", c)
		}
	}
	for c, why := range cuts {
		if c >= len(wire) {
			continue
		}
		err := readErr(t, reader, wire[:c])
		if !errors.Is(err, ErrTruncated) {
			t.Errorf("cut %s (%d of %d): got %v, want ErrTruncated", why, c, len(wire), err)
		}
	}
	if err := readErr(t, reader, wire); err != nil {
		t.Errorf("whole stream: %v", err)
	}
}

func TestDamagedStreams(t *testing.T) {
	msg := randBytes(3 * MaxPlaintext)
	wire, reader := seal(t, AESGCM, msg, Config{})
	rs := records(t, wire)
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	flipped := append([]byte{}, wire...)
	flipped[lenSize+100] ^= 1
	flippedTag := append([]byte{}, wire...)
	flippedTag[len(rs[0])-1] ^= 0x80
	zero := join(rs[0], []byte{0, 0}, rs[1])
	short := join(rs[0], []byte{0, 5, 1, 2, 3, 4, 5}, rs[1])
	cases := []struct {
		name string
		wire []byte
		want error
	}{
		{"flipped ciphertext bit", flipped, ErrAuth},
		{"flipped tag bit", flippedTag, ErrAuth},
		{"replayed record", join(rs[0], rs[0], rs[1], rs[2], rs[3]), ErrAuth},
		{"reordered records", join(rs[1], rs[0], rs[2], rs[3]), ErrAuth},
		{"dropped record", join(rs[0], rs[2], rs[3]), ErrAuth},
		{"zero-length record", zero, ErrMalformed},
		{"length shorter than a tag", short, ErrMalformed},
		{"trailing bytes after end", join(wire, []byte{1, 2, 3}), ErrTrailingData},
		{"a second end", join(wire, rs[3]), ErrTrailingData},
		{"rejection after a record", join(rs[0], []byte{0, 0, rejectWrongCode}), ErrMalformed},
		{"end of stream missing", join(rs[0], rs[1], rs[2]), ErrTruncated},
		{"empty stream", nil, ErrTruncated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := readErr(t, reader, tc.wire)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestRejectionBeforeFirstRecord(t *testing.T) {
	_, _, reader := keyedPair(AESGCM, Config{})
	for reason, want := range map[byte]error{rejectWrongCode: ErrWrongCode, rejectCodeRetired: ErrCodeRetired, rejectCodesHeld: ErrCodesHeld, 77: ErrMalformed} {
		err := readErr(t, reader, []byte{0, 0, reason})
		if !errors.Is(err, want) {
			t.Errorf("reason %d: got %v, want %v", reason, err, want)
		}
	}
}

func TestBatchingAndBuffering(t *testing.T) {
	const payload = 8 << 20
	msg := randBytes(payload)
	for _, tc := range []struct {
		name        string
		cfg         Config
		wantWrites  int64 // at most
		wantReadsLE int
	}{
		{"batched+buffered", Config{}, payload/defaultBatch + 3, payload/(readBufSize-frameMax) + 8},
		{"unbatched+unbuffered", Config{tune: streamtune.Knobs{Batch: 1, Unbuffered: true}}, payload/MaxPlaintext + 3, 2*(payload/MaxPlaintext) + 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, out, reader := keyedPair(AESGCM, tc.cfg)
			for off := 0; off < len(msg); off += 10000 {
				w.Write(msg[off:min(off+10000, len(msg))])
			}
			w.CloseWrite()
			if got := w.Stats().SocketWrites; got > tc.wantWrites {
				t.Errorf("%d socket writes for 8 MiB, want at most %d", got, tc.wantWrites)
			}
			rc, in := reader(out.w.Bytes())
			got, err := io.ReadAll(rc)
			if err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("read back: %v", err)
			}
			if in.reads > tc.wantReadsLE {
				t.Errorf("%d socket reads for 8 MiB, want at most %d", in.reads, tc.wantReadsLE)
			}
			t.Logf("%s: %.1f writes/MiB, %.1f reads/MiB", tc.name, float64(w.Stats().SocketWrites)/8, float64(in.reads)/8)
		})
	}
}

// A chunk whose length the reader knows comes in with one socket read
// when the peer sends it in one go (loopback delivers in segments, so
// this uses the memory conn, which returns all it has).
func TestPrefetchPullsWholeChunk(t *testing.T) {
	w, out, reader := keyedPair(AESGCM, Config{})
	w.Write([]byte("hdr"))
	chunk := randBytes(ChunkSize)
	w.Write(chunk)
	w.CloseWrite()
	rc, in := reader(out.w.Bytes())
	hdr := make([]byte, 3)
	if _, err := io.ReadFull(rc, hdr); err != nil {
		t.Fatal(err)
	}
	before := in.reads
	if err := rc.Prefetch(ChunkSize); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, ChunkSize)
	if _, err := io.ReadFull(rc, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, chunk) {
		t.Fatal("chunk differs")
	}
	if n := in.reads - before; n > 1 {
		t.Errorf("chunk took %d socket reads after prefetch, want at most 1", n)
	}
}

func TestNoAllocationPerRecord(t *testing.T) {
	for _, c := range []Cipher{AESGCM, ChaChaPoly} {
		w, out, _ := keyedPair(c, Config{})
		buf := randBytes(MaxPlaintext)
		allocs := testing.AllocsPerRun(200, func() {
			w.Write(buf)
			out.w.Reset()
		})
		if allocs != 0 {
			t.Errorf("%v: %.1f allocations per record written", c, allocs)
		}
		// Reading: a stream of many records, one read loop.
		msg := randBytes(64 * MaxPlaintext)
		wire, reader := seal(t, c, msg, Config{})
		rc, _ := reader(wire)
		p := make([]byte, MaxPlaintext)
		allocs = testing.AllocsPerRun(60, func() {
			if _, err := io.ReadFull(rc, p); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%v: %.1f allocations per record read", c, allocs)
		}
	}
}

func TestWriteAfterCloseWrite(t *testing.T) {
	w, _, _ := keyedPair(AESGCM, Config{})
	w.CloseWrite()
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}
