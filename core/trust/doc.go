// Package trust owns the list of trusted devices: the devices a person
// paired with once, through a code, and whose static Noise keys are
// pinned so that later transfers between them need no code.
//
// It is storage and matching only. The handshake that checks a pin lives
// in core/secure (paired mode: Config.PeerKey on the sender,
// Config.Paired on the receiver); front ends decide when to ask a person
// and call Add, Remove, NoteRecent and Classify.
//
// # Why pins and not a stored PSK
//
// Paired mode authenticates the two static keys against the pins, with no
// secret stored beside them. A PSK saved at pairing time would be a
// second secret to protect and to keep in sync on both ends, and it adds
// nothing: Noise already proves possession of each static private key,
// and the pins say which keys are acceptable. Removing trust on either
// end is then just deleting a pin, and the other end learns it from the
// refused handshake.
//
// # The file
//
// One JSON file, trusted.json in the config directory (DefaultPath:
// core/secure's DefaultDir, beside static.key):
//
//	{
//	  "version": 1,
//	  "devices": [
//	    {"name": "desk", "key": "<base64>", "paired_at": "2025-05-01T09:30:00Z"}
//	  ],
//	  "recent": [
//	    {"name": "phone", "key": "<base64>", "paired_at": "2025-05-02T18:00:00Z"}
//	  ]
//	}
//
// The fields:
//
//   - version: the format version, 1. A file with a higher version is
//     ErrUnsupportedVersion (written by a newer ferry; this one leaves it
//     alone rather than dropping what it does not understand).
//   - devices: the trusted devices. name is what the device called itself
//     when it was paired (non-empty, valid UTF-8, no control characters,
//     at most 255 bytes); key is its 32-byte Curve25519 static public key
//     in standard base64 with padding; paired_at is when it was trusted,
//     RFC 3339. Two entries never share a key; two may share a name (two
//     laptops both called "laptop").
//   - recent: the peers most recently authenticated by a code, newest
//     first, at most 16, same fields (paired_at is when the code
//     authenticated them). "ferry trust add" picks from these, so a
//     device can be trusted after the transfer without typing its key.
//
// Unknown fields, a missing field, a key that is not 32 bytes, a bad
// time, duplicate keys or bytes after the object are all ErrCorrupt, with
// the file name and the line (or the entry) that is wrong. A damaged file
// is never reset or rewritten silently: a person must fix or delete it.
// A missing file is an empty store.
//
// # Promises
//
// The file is written private to this user and its directory, when this
// package creates it, with 0700: mode 0600 on Unix, on Windows an access
// list of this user, the system and the Administrators alone (see
// core/platform). A file that others can read or write is refused, like
// core/secure refuses such a key, with the command that fixes it on that
// OS (chmod 600, or icacls). Every change is a read-modify-write under an
// exclusive lock on the sibling file trusted.json.lock (github.com/gofrs/flock:
// flock(2) on Unix, LockFileEx on Windows), and the new content goes to a
// temporary file in the same directory that is synced and moved over
// trusted.json durably (the directory synced on Unix; a write-through
// MoveFileEx on Windows, where a directory cannot be flushed): two
// processes changing the list at once both land, and a crash leaves
// either the old file or the new one, never half of one (nor a temporary
// file, unless the crash falls between create and rename). Readers need
// no lock: they always see a whole file.
//
// # Matching
//
// A device is named by its name (case-insensitive) or by its fingerprint
// (core/secure's Fingerprint) in full or as a unique prefix of at least
// four characters, in any case, dashes and spaces optional: secure.DeviceMatches
// is that rule, and core/discovery's Find uses it too. Classify relates a device
// that discovery found (advertised name and fingerprint) to the pins:
// Trusted when the fingerprint is a pinned key's, Mismatch when the name
// is a pinned device's but the fingerprint is not its key's (an impostor,
// or a device that regenerated its key), Unknown otherwise. Mismatch is
// never trusted; the handshake checks the full key in any case, so a
// fingerprint only selects paired mode, it never grants it.
package trust
