package secure

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ferry-project/ferry/core/platform"
	"github.com/flynn/noise"
	"golang.org/x/crypto/curve25519"
)

// Identity is a device's long-term Curve25519 key pair, the Noise static
// key. It is generated once and kept in the user's config directory, so
// that a peer can recognise (and later pin) the device.
type Identity struct {
	kp noise.DHKey
}

// NewIdentity generates a fresh key pair that is not stored anywhere.
func NewIdentity() (*Identity, error) {
	kp, err := noise.DH25519.GenerateKeypair(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating static key: %w", err)
	}
	return &Identity{kp: kp}, nil
}

// IdentityFromPrivate is the key pair of a private key of 32 bytes kept
// elsewhere than a key file: the browser page keeps its key for a
// receiver in its origin's storage, so that a reloaded page is the same
// sender and its cut send resumes. Any 32 bytes are a key (X25519
// clamps them), as noise.DH25519's GenerateKeypair takes them from
// rand; priv is copied.
func IdentityFromPrivate(priv []byte) (*Identity, error) {
	if len(priv) != 32 {
		return nil, errors.New("a private key is 32 bytes")
	}
	pub, err := curve25519.X25519(priv, curve25519.Basepoint)
	if err != nil {
		return nil, fmt.Errorf("deriving the public key: %w", err)
	}
	return &Identity{kp: noise.DHKey{Private: append([]byte{}, priv...), Public: pub}}, nil
}

// DefaultDir is where LoadOrCreateIdentity keeps the key when given "":
// core/platform's ConfigDir, $XDG_CONFIG_HOME/ferry on Linux and
// %LOCALAPPDATA%\ferry on Windows (local, not roaming: two PCs sharing a
// roaming profile must not share one identity).
func DefaultDir() (string, error) { return platform.ConfigDir() }

const keyFile = "static.key"

// LoadOrCreateIdentity reads the key pair kept in dir, creating it (and
// dir, with 0700) on first use. The key file is written private to this
// user (mode 0600; on Windows an access list of this user, the system and
// the Administrators: core/platform's MakePrivate), through a temporary
// file and a link, so a crash never leaves a half-written key. A key file
// that others can read or write is refused rather than trusted, with the
// command that fixes it on this OS (chmod 600, or icacls).
func LoadOrCreateIdentity(dir string) (*Identity, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	path := filepath.Join(dir, keyFile)
	id, err := readKey(path)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading static key: %w", err)
	}
	id, err = NewIdentity()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating config directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".static.key-*")
	if err != nil {
		return nil, fmt.Errorf("writing static key: %w", err)
	}
	defer os.Remove(tmp.Name())
	// Private before the key is in it: mode 0600, or on Windows an access
	// list of this user alone (Chmod there only sets read-only).
	if err := platform.MakePrivate(tmp.Name()); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("writing static key: %w", err)
	}
	if _, err := tmp.Write(append(append([]byte{}, id.kp.Private...), id.kp.Public...)); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("writing static key: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("writing static key: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("writing static key: %w", err)
	}
	// Link rather than rename: if another process created the key in the
	// meantime, keep theirs, so two first runs agree on one identity.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return LoadOrCreateIdentity(dir)
		}
		return nil, fmt.Errorf("writing static key: %w", err)
	}
	return id, nil
}

// readKey reads the key file at path, refusing one that others can read
// or write. The check is on the open file, so the bytes and the access
// rights checked are of the same file.
func readKey(path string) (*Identity, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading static key: %w", err)
	}
	defer f.Close()
	if err := platform.CheckPrivate(f, path); err != nil {
		return nil, fmt.Errorf("static key %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 65))
	if err != nil {
		return nil, fmt.Errorf("reading static key: %w", err)
	}
	return parseKey(b, path)
}

func parseKey(b []byte, path string) (*Identity, error) {
	if len(b) != 64 {
		return nil, fmt.Errorf("static key %s is corrupt (%d bytes, want 64)", path, len(b))
	}
	priv := append([]byte{}, b[:32]...)
	pub := append([]byte{}, b[32:]...)
	// Recompute the public half so a damaged file is caught here rather
	// than as a mysterious handshake failure later.
	check, err := curve25519.X25519(priv, curve25519.Basepoint)
	if err != nil || string(check) != string(pub) {
		return nil, fmt.Errorf("static key %s is corrupt (public half does not match)", path)
	}
	return &Identity{kp: noise.DHKey{Private: priv, Public: pub}}, nil
}

// Public returns the public half of the key.
func (id *Identity) Public() []byte { return append([]byte{}, id.kp.Public...) }

// Fingerprint returns the short, human-comparable form of this identity's
// public key. See Fingerprint.
func (id *Identity) Fingerprint() string { return Fingerprint(id.kp.Public) }

// fpAlphabet is the alphabet of fingerprints: base32 without the
// look-alikes I, O, 0 and 1. fpLen is a fingerprint's length in
// characters, dashes not counted.
const (
	fpAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	fpLen      = 16
)

var fpEncoding = base32.NewEncoding(fpAlphabet).WithPadding(base32.NoPadding)

// Fingerprint returns a short form of a public key for people to compare
// and for discovery records: 16 characters of SHA-256 in an alphabet
// without look-alike letters (no I, O, 0, 1), grouped in fours:
// "K7QX-M2PA-9RTE-WD4C". That is 80 bits, enough that nobody can make a
// key that matches another device's fingerprint.
func Fingerprint(pub []byte) string {
	sum := sha256.Sum256(pub)
	s := fpEncoding.EncodeToString(sum[:10])
	return strings.Join([]string{s[0:4], s[4:8], s[8:12], s[12:16]}, "-")
}
