// Package secure owns Ferry's encrypted channel: the pairing handshake and
// the record stream that every transfer rides on.
//
// # Handshake
//
// The dialing side (the sender) is the Noise initiator, the listening side
// (the receiver) the responder. Before Noise starts, each side sends a
// seven-byte cleartext preamble:
//
//	initiator: "FERRY" version offer    (offer: bit 0 = has AES hardware,
//	                                      bit 1 = insists on ChaCha20-Poly1305,
//	                                      bit 2 = insists on AES-256-GCM,
//	                                      bit 3 = paired mode)
//	responder: "FERRY" version cipher   (cipher: 1 = AESGCM, 2 = ChaChaPoly)
//
// The responder chooses AES-256-GCM when both ends have AES hardware and
// ChaCha20-Poly1305 otherwise (an insistence, used by tests and
// benchmarks, overrides). Both preambles, initiator's first, are the Noise
// prologue, so a tampered choice fails the handshake. A peer that does not
// start with the magic is ErrNotFerry; one that speaks another version is
// ErrIncompatibleVersion on both ends (the responder answers with its own
// version before closing, so the initiator can say which).
//
// In code mode (bit 3 clear) Noise_XXpsk3_25519_{AESGCM|ChaChaPoly}_BLAKE2s
// runs, with a CPace
// (filippo.io/cpace) exchange in the payloads of messages 1 and 2. The
// CPace key, expanded with HKDF-SHA256, becomes the PSK that both sides
// set before message 3. The short code therefore only ever meets an
// attacker through CPace: a recorded handshake gives nothing to guess
// offline against, and an active attacker gets one guess per connection.
// The responder allows the transfer layer to count those guesses.
//
// A wrong code fails message 3 on the responder. It then answers with a
// three-byte cleartext rejection (a zero record length and a reason) and
// closes; the initiator, whose handshake already returned, sees
// ErrWrongCode from its first Read instead of a bare closed socket. A
// forged rejection gains an attacker nothing that closing the socket would
// not. Config.Guess lets the responder's caller check message 3 under its
// own lock, so that concurrent handshakes never check more guesses
// against one code than it allows: a guess for a code retired meanwhile
// is refused unchecked, as ErrCodeRetired, and a guess that the caller's
// budget holds back (too many wrong codes lately) is refused unchecked
// as ErrCodesHeld.
//
// A responder that is in another transfer refuses new connections with
// RefuseBusy: it answers the preamble, then sends the busy rejection in
// place of message 2, and the initiator's handshake fails with ErrBusy. A
// handshake that completed as the responder became busy is refused with
// (*Conn).RefuseBusy instead, and the initiator's first Read says ErrBusy.
// RefuseBusyWith (and (*Conn).RefuseBusyWith) also say how many transfers
// the responder runs: one byte (1 to 255) after the busy reason, which
// the initiator reads into a *BusyError (wrapping ErrBusy); an initiator
// of before it stops at the reason and never reads the byte, and one
// that finds no byte (the responder closed its direction after the
// reason) reports plain ErrBusy.
//
// Rejection reasons (the byte after the zero length):
//
//	1 wrong code      responder, after message 3       ErrWrongCode
//	2 code retired    responder, after message 3       ErrCodeRetired
//	3 busy            responder, for message 2 or after ErrBusy
//	4 not paired      responder, after message 3       ErrNotPaired
//	5 no paired mode  responder, for message 2         ErrNotPaired
//	6 key changed     initiator, for message 3         ErrNotPaired (at the responder)
//	7 codes held      responder, after message 3       ErrCodesHeld
//	8 no codes        responder, for message 2         ErrNoCodes
//
// Reasons 1 to 6 and the offer bits were added before version 1
// shipped; reasons 7 (the guess budget of core/transfer) and 8 (a
// receiver that takes paired senders only, where nobody reads a code)
// come with version 2. An unknown offer bit or reason is refused as ErrNotFerry or
// ErrMalformed, never ignored. ProtocolVersion is 2 since the transfer
// messages changed too (core/transfer's package doc says how): version 1
// receivers answered a "have" with their own file's hash.
//
// # Paired mode
//
// Two devices that pinned each other's static key (after a transfer that
// a code authenticated; core/trust keeps the pins) need no code. The
// initiator sets Config.PeerKey, the pinned key of the responder, and
// sets bit 3 of its offer; Noise_XX_25519_{AESGCM|ChaChaPoly}_BLAKE2s then
// runs with empty payloads and no CPace. Message 2 proves that the
// responder holds the private half of the static key it sends; the
// initiator compares that key with its pin before it sends message 3, and
// on a mismatch sends rejection 6 instead and fails with ErrKeyChanged,
// naming the expected and the actual fingerprint (an impostor, or a
// device that made a new key). Message 3 proves the initiator's key; the
// responder asks Config.Paired about it and, without a pin, sends
// rejection 4 and fails with ErrNotPaired, and the initiator's first Read
// returns ErrNotPaired ("the other device does not trust this one"). A
// responder whose Config.Paired is nil refuses paired mode outright
// (rejection 5). Conn.Paired reports which mode authenticated a
// connection. Paired mode never reaches Config.Guess: its failures are
// not wrong codes and never retire one. The mode bit is in the prologue,
// so a middlebox that turns one mode into the other breaks the handshake.
//
// Why XX with pins and no stored pre-shared key: the pin is the
// authentication. Each end proves possession of its static private key
// in the handshake and the other compares the proven public key with its
// pin, which is exactly what a trusted device is. A PSK stored after
// pairing would sit in the same config directory as the static key and
// fall with it, so it protects nothing more; it would be a second secret
// per pair to keep in sync on both devices (one side losing it would
// break the pairing in a way no one can see); and revoking trust would
// mean erasing it on a device one may no longer hold, whereas here
// revocation is deleting a pin, on either end, alone. XX also hides
// identities from passive observers (both static keys travel encrypted),
// and the initiator sends its own static key only after it has checked
// the responder's against the pin, so it reveals itself to no one but the
// device it trusts.
//
// Every handshake message is framed like a record (two-byte length). The
// whole handshake runs under one deadline (Config.Timeout, default 10s,
// or the context's, whichever is sooner); a peer that stops answering
// gives ErrHandshakeTimeout and leaves no goroutine behind.
//
// # Record stream
//
// After the handshake a Conn carries two independent byte streams. Each
// direction is a sequence of records:
//
//	length  uint16 big-endian, 16..65535
//	body    AEAD ciphertext of 0..65519 plaintext bytes plus a 16-byte tag
//
// The nonce is the record's index in its direction (as Noise specifies),
// so a replayed, reordered, dropped or altered record fails to open:
// ErrAuth. A record with an empty plaintext is the authenticated end of
// stream; a data record is never empty. After it, Read returns io.EOF, and
// bytes already received behind it are ErrTrailingData. A stream whose
// socket ends without it is ErrTruncated, wherever it was cut. Any error
// poisons its direction: every later call returns it again.
//
// Writes are batched: plaintext is sealed in place into a buffer of about
// 256 KiB, which goes to the socket in one write when full or on Flush.
// Reads are buffered: ciphertext is pulled in blocks of up to the buffer
// size and records are opened in place. Prefetch(n) tells the reader that
// n plaintext bytes are coming; it then blocks for at least the smallest
// ciphertext that can carry them, n + 18·⌈n/65519⌉ bytes, which is never
// more than the peer owes, so it cannot deadlock a protocol that waits for
// a reply. Neither side allocates per record.
//
// Stage timers (core/diag) time sealing, socket writes, socket reads and
// opening separately; no timer wraps a call that does two of those.
package secure
