// Package guess owns a device's guess budget: how many wrong codes its
// receivers check, and how fast, across every Receiver and every
// restart (Budget), and the file that keeps the count (File), so that
// the count of wrong codes survives a restart that no person made: a
// start at login, a service manager's restart, the tray's. A front end
// (through core/app) makes one Budget for as long as the device
// receives; core/transfer's receivers check every guess through it.
//
// # The budget
//
// The budget counts how many wrong codes a device checks, and how
// fast, whatever codes they were aimed at. A receiver retires a code
// after three wrong guesses (core/transfer's maxAttempts), but retiring
// codes alone bounds nothing: a fresh code follows without end. The
// budget bounds the whole device.
//
//   - Wrong codes add up from the last time a person acted: asked for a
//     new code (Receiver.NewCode), or started the receiver by hand
//     (Config.ByPerson). They never expire: a guesser who paces the
//     guesses, a few a day for a year, spends the same budget as one
//     who guesses at full speed.
//   - The first Free are checked at once: a person who mistypes, even
//     across two codes, is never kept waiting.
//   - After that, each next guess is checked only Wait·2^k after the
//     last wrong one (k = 0, 1, ...: 0.5 s, 1 s, 2 s, ... 16 s); a guess
//     that arrives sooner is refused unchecked (secure.ErrCodesHeld).
//   - At StopAt wrong codes the budget stops: no code is checked at
//     all until a person acts; paired senders, who need no code, are
//     still served.
//
// A successful transfer does not reset the budget: it would hand an
// attacker who keeps guessing a new allowance with every honest
// transfer. Nor does a start that no person made (at login, by a service
// manager, a restart from a tray menu): the count is kept in a Store
// (File) beside the trust store and survives it. So at most StopAt
// wrong codes are checked between two acts of a person, over a
// minute or a year: 12 guesses against codes of one in a million
// (SECURITY.md has the arithmetic). Garbage in place of message 3 cannot
// be told from a wrong code and counts as one, so a flood of it retires
// codes no faster than the budget allows either.
//
// # The file
//
// File keeps the count in guesses.json, in the config folder that holds the static key and
// trusted.json (core/secure's DefaultDir):
//
//	{
//	  "version": 1,
//	  "wrong": 3,
//	  "last": "2026-12-04T03:00:00.123456789Z",
//	  "stopped": false
//	}
//
// wrong counts the wrong codes checked since a person last acted, last
// is when the last of them was checked (null when none), stopped says
// that no code is checked until a person acts. A missing file is a
// fresh budget.
//
// # Writes
//
// It is written as the trust store is (core/internal/jsonfile): under an
// exclusive lock file, through a temporary file that is made private
// (0600), synced and renamed over the old one, so a reader sees the old
// count or the new one whole and a crash loses neither.
//
// # Damage
//
// A file that cannot be read as written (a crash on a file system that
// does not honour fsync, a hand edit, a newer ferry's format) is set
// aside as guesses.json.damaged, replacing an older one there, and Load
// returns errDamaged saying what was wrong and where it went. A file
// others may write is not trusted either (errDamaged too, left in
// place: the next write replaces it with a private one). The budget then
// starts stopped, not fresh (NewBudget says why).
package guess
