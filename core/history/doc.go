// Package history keeps the list of recent transfers, sent and received,
// that the front ends show: `ferry history` and the desktop app's History
// view. Every front end adds one record at the end of each transfer,
// whatever its outcome; the record says when, with whom, what, where it
// went, and whether every file was verified.
//
// It is storage only, like core/trust beside it: it never touches the
// network, and a front end decides what goes into a record (see Record
// and FromOffer).
//
// # The file
//
// One JSON file, history.json in the config folder (DefaultPath:
// core/platform's ConfigDir, beside static.key and trusted.json), with one
// record per line so that a person can read it:
//
//	{"version":1,"records":[
//	{"at":"2026-12-03T10:37:55.123Z","direction":"received","peer":{"name":"desk","fingerprint":"…","auth":"code","addr":"192.168.1.20:50112"},"files":2,"folders":1,"texts":0,"bytes":1200000,"names":["photos","a.txt"],"more_names":0,"folder":"/home/me/Downloads","paths":["/home/me/Downloads/photos","/home/me/Downloads/a.txt"],"outcome":"verified","duration_ms":812}
//	]}
//
// Records are oldest first; List returns them newest first. The fields:
//
//   - at: when the transfer started, RFC 3339 in UTC, milliseconds.
//   - direction: "sent" or "received".
//   - peer: name (what the peer called itself, or the name its key was
//     pinned under when the transfer was paired), fingerprint (core/secure's
//     Fingerprint of its proven key), auth ("trusted": pinned keys, no
//     code; "code"; "" when the transfer failed before the handshake said
//     who it was) and addr (the address dialled, or connected from). Name,
//     fingerprint and addr may be empty when the peer never answered.
//   - files, folders, texts, bytes: what was offered (bytes: the total
//     size, including what was skipped or resumed). Zero when the
//     transfer failed before the offer.
//   - names: the top-level names of what was offered (a folder's name,
//     not its contents), in the offer's order, at most maxNames, each at
//     most 1,024 bytes; more_names counts the top-level names left out.
//     They are the peer's strings on a receiver: a front end escapes them
//     before it prints them.
//   - folder: where it went on a receiver (the destination folder), where
//     it came from on a sender (the folder of the first path sent); ""
//     for text alone. paths: the absolute paths, at most maxNames (the
//     receiver's saved top-level entries, under their final names after a
//     clash; the sender's source paths). A path longer than 4,096 bytes
//     is left out rather than cut: a cut path names another file.
//   - outcome: "verified" (every file arrived and its hash matched),
//     "failed", "declined" or "cancelled". error_kind (failed only) is the
//     stable kind that `ferry --json` error events use ("wrong_code",
//     "connection_lost", ...: ErrorKind); error is the message, at most
//     512 bytes (both omitted when empty).
//   - duration_ms: from the start of the transfer to its end.
//
// # Bounds
//
// At most maxRecords (500) records and maxFileBytes (1 MiB) of file: a new
// record drops the oldest until both hold. One record is at most about
// 45 KiB (eight 4 KiB paths and eight 1 KiB names), so the byte cap keeps
// at least the last 20 of even the largest records, and typically all 500
// (a typical record is 300 to 600 bytes). A file read back is not held
// to the bounds (they apply when it is next written) but one over 8 MiB
// is damaged: ferry never writes one.
//
// # Damage, versions and privacy
//
// A file that cannot be read as written (bad JSON, a missing required
// field (at, direction, peer, outcome, duration_ms) or an unknown one, a
// bad value, over 8 MiB) is damaged. It is never a crash and
// never silently dropped: the operation that finds it moves it aside,
// under the lock, to history.json.damaged-YYYYMMDDTHHMMSSZ beside it, and
// starts a fresh file; the Aside it returns says what was wrong and where
// the old file went, for the front end to show. The history is a
// convenience, unlike the trust store, whose damaged file stops pairing
// until a person fixes it: losing it must not stop a transfer, and
// keeping the old bytes lets a person look at them.
//
// A file with a higher version than this package writes is
// ErrUnsupportedVersion: written by a newer ferry, it is neither read nor
// overwritten nor set aside (an older ferry run once must not lose a newer
// one's history); Add fails and a front end says so.
//
// The file may name people's devices and folders: it is written private
// to this user (0600, in a 0700 folder when this package creates it; on
// Windows core/platform's access list), and one that others can read is
// refused with the command that fixes it, as core/trust does.
//
// # Concurrency and atomicity
//
// Every change is a read-modify-write under an exclusive lock on the
// sibling file history.json.lock (github.com/gofrs/flock), and the new
// content goes to a temporary file in the same folder that is synced and
// moved over history.json durably (core/platform's ReplaceFile). So the
// CLI and the app, or two CLIs, adding at once both land, and a crash
// leaves the old file or the new one, never half of one. Readers take no
// lock: they always see a whole file.
//
// A change reads the whole file under the lock, but decodes it only when
// it is not the file this Store last checked whole in the form it writes
// (Warm) or last wrote: the same bytes (length and a keyed hash) are
// split into their records' lines and the new record appended, so that
// adding to a history of 500 records costs about what adding to one of
// a few does. A Node warms its store while it waits for its peer.
//
// # Turning it off
//
// The store itself is always on; the front ends decide whether to add:
// `ferry send` and `ferry receive` take --no-history, and FERRY_NO_HISTORY=1
// in the environment turns it off for every ferry command; the app has a
// setting. Clear empties the file (`ferry history clear`, the app's Clear).
package history
