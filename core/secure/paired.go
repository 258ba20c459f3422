package secure

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"

	"github.com/flynn/noise"
)

// Paired mode: two devices that pinned each other's static key (after a
// transfer authenticated by a code) run plain Noise XX, with no code and
// no CPace, and each checks the other's proven static key against its
// pin. The package doc says why this needs no stored secret.

// checkModes refuses a configuration that names no mode or both.
func checkModes(cfg *Config, initiator bool) error {
	if !initiator {
		if len(cfg.PeerKey) > 0 {
			return errors.New("a pinned peer key is for the initiator; the responder checks pins with Paired")
		}
		if cfg.Code == "" && cfg.Paired == nil {
			return errors.New("no code configured and paired mode not accepted")
		}
		return nil
	}
	switch {
	case len(cfg.PeerKey) > 0 && cfg.Code != "":
		return errors.New("both a code and a pinned peer key configured: use one")
	case len(cfg.PeerKey) > 0 && len(cfg.PeerKey) != 32:
		return fmt.Errorf("pinned peer key is %d bytes, want 32", len(cfg.PeerKey))
	case len(cfg.PeerKey) == 0 && cfg.Code == "":
		return errors.New("no code configured")
	}
	return nil
}

func pairedState(ciph Cipher, initiator bool, prologue []byte, id *Identity) (*noise.HandshakeState, error) {
	hs, err := noise.NewHandshakeState(noise.Config{
		CipherSuite:   suite(ciph),
		Pattern:       noise.HandshakeXX,
		Initiator:     initiator,
		Prologue:      prologue,
		StaticKeypair: id.kp,
	})
	if err != nil {
		return nil, fmt.Errorf("starting noise: %w", err)
	}
	return hs, nil
}

// initiatePaired runs XX as the initiator once the preambles are
// exchanged. It checks message 2's static key against the pin before it
// sends message 3, so its own static key goes only to the pinned device.
func initiatePaired(nc net.Conn, cfg *Config, ciph Cipher, prologue []byte) (*Conn, error) {
	hs, err := pairedState(ciph, true, prologue, cfg.Identity)
	if err != nil {
		return nil, err
	}
	if _, _, err := sendMessage(nc, hs, "message 1", nil); err != nil {
		return nil, err
	}
	if _, _, _, err := receiveMessage(nc, hs, "message 2", fromResponder); err != nil {
		return nil, err
	}
	// Message 2 opened, so the responder holds the private half of the
	// key it sent: comparing it with the pin is the authentication.
	got := hs.PeerStatic()
	if subtle.ConstantTimeCompare(got, cfg.PeerKey) != 1 {
		reject(nc, rejectKeyChanged)
		return nil, fmt.Errorf("%w: expected %s, got %s: the other device is not the one paired with, or it made a new key; pair again with a code",
			ErrKeyChanged, Fingerprint(cfg.PeerKey), Fingerprint(got))
	}
	send, recv, err := sendMessage(nc, hs, "message 3", nil)
	if err != nil {
		return nil, err
	}
	c, err := finish(nc, cfg, ciph, hs, send, recv, true)
	if c != nil {
		c.paired = true
	}
	return c, err
}

// respondPaired runs XX as the responder once the preambles are
// exchanged. Nothing here touches a code or its count of guesses.
func respondPaired(nc net.Conn, cfg *Config, ciph Cipher, prologue []byte) (*Conn, error) {
	if cfg.Paired == nil {
		reject(nc, rejectPairedOff)
		return nil, fmt.Errorf("%w: a sender asked for a paired transfer, and this device accepts none", ErrNotPaired)
	}
	hs, err := pairedState(ciph, false, prologue, cfg.Identity)
	if err != nil {
		return nil, err
	}
	m1, err := readFrame(nc, "message 1", nil)
	if err != nil {
		return nil, err
	}
	if payload, _, _, err := hs.ReadMessage(nil, m1); err != nil || len(payload) != 0 {
		return nil, fmt.Errorf("reading message 1: %w: not a paired-mode message", ErrMalformed)
	}
	if _, _, err := sendMessage(nc, hs, "message 2", nil); err != nil {
		return nil, err
	}
	_, recv, send, err := receiveMessage(nc, hs, "message 3", fromInitiator)
	if err != nil {
		return nil, err
	}
	got := hs.PeerStatic()
	if !cfg.Paired(append([]byte(nil), got...)) {
		reject(nc, rejectNotPaired)
		return nil, fmt.Errorf("%w: this device has no pin for the sender %s: pair again with a code", ErrNotPaired, Fingerprint(got))
	}
	c, err := finish(nc, cfg, ciph, hs, send, recv, false)
	if c != nil {
		c.paired = true
	}
	return c, err
}
