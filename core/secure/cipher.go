package secure

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/flynn/noise"
	"golang.org/x/sys/cpu"
)

// Cipher is an AEAD for the record stream.
type Cipher uint8

const (
	// Auto chooses AES-256-GCM when both ends have AES hardware, else
	// ChaCha20-Poly1305.
	Auto Cipher = iota
	AESGCM
	ChaChaPoly
)

func (c Cipher) String() string {
	switch c {
	case AESGCM:
		return "AES-256-GCM"
	case ChaChaPoly:
		return "ChaCha20-Poly1305"
	}
	return "auto"
}

func (c Cipher) noise() noise.CipherFunc {
	if c == AESGCM {
		return noise.CipherAESGCM
	}
	return noise.CipherChaChaPoly
}

// hasAESHardware reports whether this machine seals AES-GCM in hardware.
// It is a fixed fact of the machine: the negotiation (offerFor, choose)
// takes it as an argument, so tests try every combination without
// changing it.
func hasAESHardware() bool {
	return (cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ) ||
		(cpu.ARM64.HasAES && cpu.ARM64.HasPMULL) ||
		(cpu.S390X.HasAES && cpu.S390X.HasAESGCM)
}

// recordCipher seals or opens one direction's records. It keeps its own
// nonce buffer, so sealing and opening allocate nothing (flynn/noise's
// CipherState builds a fresh nonce slice per call).
type recordCipher struct {
	aead   cipher.AEAD
	n      uint64
	little bool // ChaChaPoly encodes the counter little-endian, AESGCM big-endian
	nonce  [12]byte
	// afterSeal, set only by core's tests (core/internal/testhooks),
	// slows sealing inside the call the encrypt timer wraps.
	afterSeal func(n int)
}

var errNonceExhausted = errors.New("nonce space exhausted")

func newRecordCipher(c Cipher, cs *noise.CipherState) (*recordCipher, error) {
	rc, err := newRecordCipherKey(c, cs.UnsafeKey())
	if err != nil {
		return nil, err
	}
	rc.n = cs.Nonce()
	return rc, nil
}

func newRecordCipherKey(c Cipher, k [32]byte) (*recordCipher, error) {
	var (
		a   cipher.AEAD
		err error
	)
	switch c {
	case AESGCM:
		var b cipher.Block
		if b, err = aes.NewCipher(k[:]); err == nil {
			a, err = cipher.NewGCM(b)
		}
	case ChaChaPoly:
		a, err = newChaChaPoly(k[:])
	default:
		err = fmt.Errorf("no cipher %d", c)
	}
	if err != nil {
		return nil, fmt.Errorf("setting up %v: %w", c, err)
	}
	return &recordCipher{aead: a, little: c == ChaChaPoly}, nil
}

func (rc *recordCipher) next() ([]byte, error) {
	// Noise reserves 2^64-1; a stream would need 2^64 records to get here,
	// but the invariant is cheap to keep.
	if rc.n == math.MaxUint64 {
		return nil, errNonceExhausted
	}
	if rc.little {
		binary.LittleEndian.PutUint64(rc.nonce[4:], rc.n)
	} else {
		binary.BigEndian.PutUint64(rc.nonce[4:], rc.n)
	}
	rc.n++
	return rc.nonce[:], nil
}

// seal encrypts buf[:n] in place and appends the tag; buf must have room
// for it. It returns the ciphertext length.
func (rc *recordCipher) seal(buf []byte, n int) (int, error) {
	nonce, err := rc.next()
	if err != nil {
		return 0, err
	}
	out := rc.aead.Seal(buf[:0], nonce, buf[:n], nil)
	if rc.afterSeal != nil {
		rc.afterSeal(n)
	}
	return len(out), nil
}

// open decrypts buf in place and returns the plaintext length.
func (rc *recordCipher) open(buf []byte) (int, error) {
	nonce, err := rc.next()
	if err != nil {
		return 0, err
	}
	out, err := rc.aead.Open(buf[:0], nonce, buf, nil)
	if err != nil {
		return 0, ErrAuth
	}
	return len(out), nil
}
