package transfer

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/filehash"
	"github.com/ferry-project/ferry/core/place"
)

// Hasher is the BLAKE3-256 of a file as it streams (core/filehash).
type Hasher = filehash.Hasher

func NewHasher() *Hasher { return filehash.New() }

// HashPrefix feeds the first n bytes of p, under the destination d, into
// h, reading through buf. Only the hashing is timed (as HashRecv): the
// receiver has no disk read stage, and this runs before the stream, not
// in it.
func HashPrefix(ctx context.Context, d *place.Dest, p string, n int64, h *Hasher, buf []byte, t *diag.Timers) error {
	f, err := d.Open(p)
	if err != nil {
		return fmt.Errorf("opening %q: %w", p, err)
	}
	defer f.Close()
	for n > 0 {
		if err := ctx.Err(); err != nil {
			return CancelError(ctx)
		}
		m := int(min(n, int64(len(buf))))
		if _, err := io.ReadFull(f, buf[:m]); err != nil {
			return fmt.Errorf("reading %q: %w", p, err)
		}
		start := time.Now()
		h.Write(buf[:m])
		t.Since(diag.HashRecv, start, m)
		n -= int64(m)
	}
	return nil
}
