package secure

import "github.com/ferry-project/ferry/core/errkind"

// Errors a caller may branch on. Returned errors wrap them with context.
var (
	// ErrWrongCode: the two ends used different codes. Both ends see it.
	ErrWrongCode = errkind.New(errkind.WrongCode, "wrong code")
	// ErrCodeRetired: the responder retired the code after too many wrong
	// attempts; the initiator should ask for the new one.
	ErrCodeRetired = errkind.New(errkind.CodeRetired, "code retired after too many wrong attempts")
	// ErrCodesHeld: the responder did not check the code at all: after
	// too many wrong codes it holds guesses back for a while, or takes
	// none until its person asks for a new code. The initiator should wait
	// and try again, or ask for the new code.
	ErrCodesHeld = errkind.New(errkind.CodesHeld, "the receiver is not taking codes after too many wrong ones")
	// ErrBusy: the receiver is in another transfer; try again later.
	ErrBusy = errkind.New(errkind.Busy, "receiver busy")
	// ErrNotPaired: a paired-mode handshake was refused because one end
	// has no pin for the other (never paired, or trust removed), or does
	// not accept paired mode at all. Pairing again with a code fixes it.
	ErrNotPaired = errkind.New(errkind.NotPaired, "not paired")
	// ErrNoCodes: the responder takes paired-mode handshakes only (a
	// receiver that runs unattended, where nobody reads a code) and
	// refused a code-mode one before any guess was checked. Pairing with
	// it where a person runs it fixes it.
	ErrNoCodes = errkind.New(errkind.NotPaired, "codes off: paired devices only")
	// ErrKeyChanged: the responder's static key is not the pinned one (an
	// impostor, or the device regenerated its key).
	ErrKeyChanged = errkind.New(errkind.KeyChanged, "device key changed")
	// ErrIncompatibleVersion: the peer speaks another protocol version.
	ErrIncompatibleVersion = errkind.New(errkind.Incompatible, "incompatible protocol version")
	// ErrNotFerry: the peer did not start with Ferry's preamble.
	ErrNotFerry = errkind.New(errkind.NotFerry, "peer is not speaking the ferry protocol")
	// ErrHandshakeTimeout: the peer stopped answering during the handshake.
	ErrHandshakeTimeout = errkind.New(errkind.Timeout, "handshake timed out")
	// ErrBadPSK: a pre-shared key of the wrong length. Refused rather than
	// letting Noise silently run without one.
	ErrBadPSK = errkind.New(errkind.Internal, "pre-shared key must be 32 bytes")
	// ErrAuth: a record failed authentication (tampered, replayed,
	// reordered or dropped). Deliberately says no more than that.
	ErrAuth = errkind.New(errkind.Damaged, "record failed authentication")
	// ErrMalformed: a record length that no honest peer sends.
	ErrMalformed = errkind.New(errkind.Protocol, "malformed record")
	// ErrTruncated: the stream ended without its authenticated end.
	ErrTruncated = errkind.New(errkind.ConnectionLost, "stream truncated")
	// ErrTrailingData: bytes followed the authenticated end of stream.
	ErrTrailingData = errkind.New(errkind.Protocol, "data after end of stream")
	// ErrConnectionLost: the socket failed (reset, timeout, closed).
	ErrConnectionLost = errkind.New(errkind.ConnectionLost, "connection lost")
	// ErrClosed: the Conn was used after Close or CloseWrite.
	ErrClosed = errkind.New(errkind.Internal, "use of closed channel")
)
