package wire

import (
	"fmt"
	"io/fs"
	"math"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
)

// The messages of this file: each one's type, its row of the protocol
// table (register) and, on its constant, its body as the package doc
// words the others.
const (
	// MsgOffer: S→R, first: the manifest.
	//
	//	2  offer      S→R  version u8 (=2), device name string (≤128),
	//	                   count uvarint (≤100,000), total uvarint,
	//	                   count × entry{kind u8 (1 file, 2 folder, 3 text),
	//	                   path string (≤4096), size uvarint, mode uvarint
	//	                   (permission bits only, ≤0o777), mtime seconds
	//	                   varint, mtime nanoseconds uvarint (<1e9); 0,0 means
	//	                   unknown}; ≤4 MiB
	MsgOffer Type = 2
)

var (
	offerRow = msgSpec{"offer", MaxManifestBytes, bySender, PhOffer}
	_        = register(MsgOffer, &offerRow)
)

// Offer is the manifest: every entry the sender proposes, in the order
// its bytes will follow, plus the declared total.
type Offer struct {
	Version uint8
	Name    string // sender's device name
	Total   int64  // sum of all sizes; checked against the entries
	Entries []event.Entry
}

// minEntryBytes is the smallest encoding of one entry (kind, path length,
// size, mode, seconds, nanoseconds: one byte each).
const minEntryBytes = 6

func (m Offer) Encode() []byte {
	var e enc
	e.u8(m.Version)
	e.str(cutUTF8(m.Name, maxDeviceName))
	e.uvarint(uint64(len(m.Entries)))
	e.int64(m.Total)
	for _, en := range m.Entries {
		e.u8(uint8(en.Kind))
		e.str(en.Path)
		e.int64(en.Size)
		e.uvarint(uint64(en.Mode.Perm()))
		sec, nsec := int64(0), int64(0)
		if !en.ModTime.IsZero() {
			sec, nsec = en.ModTime.Unix(), int64(en.ModTime.Nanosecond())
		}
		e.varint(sec)
		e.uvarint(uint64(nsec))
	}
	return e.bytes()
}

// DecodeOffer checks the manifest's structure: counts, sizes, kinds,
// totals. Whether its paths are safe to write is the receiving
// session's (core/transfer's ValidateEntries).
func DecodeOffer(b []byte) (Offer, error) {
	d := dec{b: b}
	m := Offer{Version: d.u8(), Name: d.str(maxDeviceName)}
	if d.err == nil && m.Version != Version {
		return Offer{}, fmt.Errorf("peer speaks transfer protocol %d, this end %d: %w: %w", m.Version, Version, secure.ErrIncompatibleVersion, ErrProtocol)
	}
	n := d.count(MaxEntries, minEntryBytes)
	m.Total = d.int64()
	if d.err != nil {
		return Offer{}, d.done("offer")
	}
	m.Entries = make([]event.Entry, 0, n)
	var sum int64
	for i := 0; i < n && d.err == nil; i++ {
		var en event.Entry
		en.Kind = event.Kind(d.u8())
		en.Path = d.str(MaxPathBytes)
		en.Size = d.int64()
		mode := d.uvarint()
		sec := d.varint()
		nsec := d.uvarint()
		if d.err != nil {
			break
		}
		switch en.Kind {
		case event.KindFile:
		case event.KindDir:
			if en.Size != 0 {
				d.fail(fmt.Errorf("entry %d: folder with a size", i))
			}
		case event.KindText:
			if en.Size > MaxTextBytes {
				d.fail(fmt.Errorf("entry %d: text of %d bytes over the limit of %d", i, en.Size, MaxTextBytes))
			}
		default:
			d.fail(fmt.Errorf("entry %d: unknown kind %d", i, en.Kind))
		}
		if mode > 0o777 {
			d.fail(fmt.Errorf("entry %d: mode %#o has more than permission bits", i, mode))
		}
		if nsec >= 1e9 {
			d.fail(fmt.Errorf("entry %d: bad nanoseconds", i))
		}
		if en.Size > math.MaxInt64-sum {
			d.fail(fmt.Errorf("entry %d: total size overflows", i))
		}
		sum += en.Size
		en.Mode = fs.FileMode(mode)
		if sec != 0 || nsec != 0 {
			en.ModTime = time.Unix(sec, int64(nsec))
		}
		m.Entries = append(m.Entries, en)
	}
	if err := d.done("offer"); err != nil {
		return Offer{}, err
	}
	if sum != m.Total {
		return Offer{}, fmt.Errorf("offer declares %d bytes but its entries add up to %d: %w", m.Total, sum, ErrProtocol)
	}
	return m, nil
}
