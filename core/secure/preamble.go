package secure

import (
	"fmt"
)

// ProtocolVersion is the version of the whole wire protocol: preamble,
// handshake, records and the transfer messages carried in them.
const ProtocolVersion = 2

const (
	magic        = "FERRY"
	preambleSize = len(magic) + 2

	offerAESHardware = 1 << 0
	offerChaCha      = 1 << 1
	offerAES         = 1 << 2
	offerPaired      = 1 << 3 // paired mode: pinned keys, no code
	offerKnown       = offerAESHardware | offerChaCha | offerAES | offerPaired
)

type preamble [preambleSize]byte

func makePreamble(version, last byte) preamble {
	var p preamble
	copy(p[:], magic)
	p[len(magic)] = version
	p[len(magic)+1] = last
	return p
}

func (p preamble) version() byte { return p[len(magic)] }
func (p preamble) last() byte    { return p[len(magic)+1] }

// parsePreamble checks the magic and the version. It is the first thing
// that reads peer input, so it trusts nothing.
func parsePreamble(b []byte) (preamble, error) {
	var p preamble
	if len(b) != preambleSize {
		return p, fmt.Errorf("reading preamble: %w: %d bytes", ErrNotFerry, len(b))
	}
	copy(p[:], b)
	if string(p[:len(magic)]) != magic {
		return p, fmt.Errorf("reading preamble: %w", ErrNotFerry)
	}
	if p.version() != ProtocolVersion {
		return p, fmt.Errorf("%w: the peer speaks version %d, this build speaks version %d",
			ErrIncompatibleVersion, p.version(), ProtocolVersion)
	}
	return p, nil
}

// offerFor is the initiator's last preamble byte; hw says whether this
// machine has AES hardware.
func offerFor(want Cipher, paired, hw bool) byte {
	var o byte
	if paired {
		o |= offerPaired
	}
	if hw {
		o |= offerAESHardware
	}
	switch want {
	case ChaChaPoly:
		o |= offerChaCha
	case AESGCM:
		o |= offerAES
	}
	return o
}

// choose is the responder's decision on the initiator's offer; hw says
// whether the responder's machine has AES hardware.
func choose(offer byte, want Cipher, hw bool) (Cipher, error) {
	if offer&^offerKnown != 0 || offer&offerChaCha != 0 && offer&offerAES != 0 {
		return 0, fmt.Errorf("reading preamble: %w: bad cipher offer %#x", ErrNotFerry, offer)
	}
	switch {
	case offer&offerChaCha != 0:
		return ChaChaPoly, nil
	case offer&offerAES != 0:
		return AESGCM, nil
	case want != Auto:
		return want, nil
	case offer&offerAESHardware != 0 && hw:
		return AESGCM, nil
	}
	return ChaChaPoly, nil
}
