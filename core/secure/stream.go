package secure

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/diag"
)

// Record sizes. A record is a Noise transport message: at most 65,535
// bytes of ciphertext, of which 16 are the tag.
const (
	maxRecord    = 65535               // largest ciphertext of one record
	tagSize      = 16                  //
	MaxPlaintext = maxRecord - tagSize // 65519: largest plaintext of one record
	lenSize      = 2                   //
	frameMax     = lenSize + maxRecord // a whole framed record
	overhead     = lenSize + tagSize   // per-record cost on the wire

	// ChunkSize is the plaintext size a caller should use for one data
	// chunk: four full records, about 256 KiB, whose ciphertext fits the
	// read buffer, so Prefetch can pull a whole chunk in one go.
	ChunkSize = 4 * MaxPlaintext

	// defaultBatch is how many bytes of sealed records collect before a
	// socket write: four full records.
	defaultBatch = 4 * frameMax

	// readBufSize holds a whole chunk's ciphertext plus a header record
	// and a partial record left over from the previous fill.
	readBufSize = 6 * frameMax
)

// Conn is an established encrypted channel. One goroutine may write
// (Write, Flush, CloseWrite) while another reads (Read, Prefetch); two
// writers or two readers need their own locking.
type Conn struct {
	nc       net.Conn
	cipher   Cipher
	peerPub  []byte
	paired   bool // authenticated by pins, not by a code
	timers   *diag.Timers
	closeOne sync.Once

	w writer
	r reader

	socketWrites atomic.Int64
	socketReads  atomic.Int64
}

// Stats counts socket calls, for benchmarks and diagnostics.
type Stats struct {
	SocketWrites int64 // write(2)-level calls made
	SocketReads  int64 // read(2)-level calls made
}

// Stats returns the socket call counts so far.
func (c *Conn) Stats() Stats {
	return Stats{SocketWrites: c.socketWrites.Load(), SocketReads: c.socketReads.Load()}
}

// PeerPublic returns the peer's static public key, proven in the handshake.
func (c *Conn) PeerPublic() []byte { return append([]byte{}, c.peerPub...) }

// Paired reports whether this connection was authenticated by pinned
// keys (paired mode) rather than by a code.
func (c *Conn) Paired() bool { return c.paired }

// PeerFingerprint returns the short form of the peer's static key.
func (c *Conn) PeerFingerprint() string { return Fingerprint(c.peerPub) }

// NetConn returns the underlying socket, for deadlines and addresses.
// Reading or writing it directly corrupts the stream.
func (c *Conn) NetConn() net.Conn { return c.nc }

// Close closes the socket. It does not send the end of stream: a peer
// sees ErrTruncated unless CloseWrite came first.
func (c *Conn) Close() error {
	var err error
	c.closeOne.Do(func() { err = c.nc.Close() })
	return err
}

func newConn(nc net.Conn, ciph Cipher, send, recv *recordCipher, peerPub []byte, cfg *Config) *Conn {
	c := &Conn{nc: nc, cipher: ciph, peerPub: peerPub, timers: cfg.Timers}
	if tc, ok := nc.(diag.TimedConn); ok && cfg.Timers != nil {
		tc.UseTimers(cfg.Timers)
	}
	batch := cfg.tune.Batch
	if batch <= 0 {
		batch = defaultBatch
	}
	c.w = writer{c: c, rc: send, batch: batch, buf: make([]byte, max(batch, frameMax)+frameMax)}
	// The handshake reads its messages exactly, so nothing of the stream
	// is left over from it: the reader starts empty.
	c.r = reader{c: c, rc: recv, buf: make([]byte, readBufSize), exact: cfg.tune.Unbuffered, fresh: true}
	return c
}

// wrapNetErr turns a socket error into the stream's vocabulary.
func wrapNetErr(op string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: %w", op, ErrTruncated)
	}
	// Wrapping err too keeps os.ErrDeadlineExceeded visible to callers
	// that set their own deadlines.
	return fmt.Errorf("%s: %w: %w", op, ErrConnectionLost, err)
}

func (c *Conn) timedWrite(b []byte) error {
	start := time.Now()
	n, err := c.nc.Write(b)
	c.timers.Since(diag.SocketWrite, start, n)
	c.socketWrites.Add(1)
	if err != nil {
		return wrapNetErr("writing to socket", err)
	}
	return nil
}

func (c *Conn) timedRead(b []byte, min int) (int, error) {
	// One timer per read(2) call, never around the loop that may also
	// decrypt: the socket is the only thing timed here.
	got := 0
	for got < min {
		start := time.Now()
		n, err := c.nc.Read(b[got:])
		c.timers.Since(diag.SocketRead, start, n)
		c.socketReads.Add(1)
		got += n
		if err != nil {
			if got >= min {
				break
			}
			return got, err
		}
	}
	return got, nil
}
