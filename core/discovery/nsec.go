package discovery

import "github.com/miekg/dns"

// This file is the one place Ferry touches github.com/miekg/dns, the
// packet library under grandcat/zeroconf, and only through its public
// extension point.
//
// miekg/dns refuses a whole message over one record it cannot read, and
// zeroconf drops such a message unseen. python-zeroconf (Debian's 0.47,
// Home Assistant and the many devices built on it) puts in every answer
// an NSEC record for its host whose type bitmap starts with an empty
// block, which RFC 4034 forbids and miekg/dns rejects ("empty NSEC
// block", in every version served). So zeroconf's Resolver never saw a
// receiver python-zeroconf advertises, only its start-up announcements,
// which carry no NSEC. zeroconf reads no NSEC record, so Ferry registers
// NSEC with miekg/dns as an opaque record that keeps its bytes unread:
// the rest of the answer then reaches zeroconf (guard_test.go shows the
// answer lost without it; the python interop test in mdns_test.go that
// it is found with it).
//
// The registration changes miekg/dns's type table for the whole process,
// once, in init, before any goroutine can read it. Nothing else in Ferry
// uses miekg/dns.
func init() {
	dns.PrivateHandle("NSEC", dns.TypeNSEC, func() dns.PrivateRdata { return new(opaqueRdata) })
}

// opaqueRdata is record data kept as bytes, never interpreted.
type opaqueRdata struct{ b []byte }

func (o *opaqueRdata) String() string { return "\\# opaque" }

func (o *opaqueRdata) Parse([]string) error { return nil }

func (o *opaqueRdata) Pack(buf []byte) (int, error) {
	if len(buf) < len(o.b) {
		return 0, dns.ErrBuf
	}
	return copy(buf, o.b), nil
}

// Unpack is handed exactly the record's data: miekg/dns cuts the message
// at the end its header gives before it calls a private type.
func (o *opaqueRdata) Unpack(b []byte) (int, error) {
	o.b = append([]byte(nil), b...)
	return len(b), nil
}

func (o *opaqueRdata) Copy(dst dns.PrivateRdata) error {
	if d, ok := dst.(*opaqueRdata); ok {
		d.b = append([]byte(nil), o.b...)
	}
	return nil
}

func (o *opaqueRdata) Len() int { return len(o.b) }
