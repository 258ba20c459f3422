// Package guess owns a device's guess budget: how many wrong codes its
// receivers check, and how fast, across every Receiver, every restart
// and every process on the device (Budget), how long the codes it shows
// are (Digits), and the file that keeps the count (File). A front end
// (through core/app) makes one Budget for as long as the device
// receives; core/transfer's receivers check every guess through it and
// pick codes of its length.
//
// # The budget
//
// The budget counts how many wrong codes a device checks, and how
// fast, whatever codes they were aimed at. A receiver retires a code
// after three wrong guesses (core/transfer's maxAttempts), but retiring
// codes alone bounds nothing: a fresh code follows without end. The
// budget bounds the whole device.
//
//   - Wrong codes add up, and nothing resets the count: not a start (by a
//     person, at login, by a service manager or a script), not a
//     successful transfer, not a new code. Only 90 days (FallBack)
//     without a wrong code start it over.
//   - The count runs in blocks of 12 (StopAt). In each, the first 6
//     (Free) are checked at once: a person who mistypes, even across two
//     codes, is never kept waiting. Each next one is checked only a wait
//     after the last wrong code, doubling: 0.5 s, 1 s ... 16 s in the
//     first block (Wait), 16 s, 32 s ... 512 s in every later one
//     (LongWait). A guess that arrives sooner is refused unchecked
//     (secure.ErrCodesHeld). The wait is read from the kept count, so no
//     restart shortens it.
//   - At the end of each block (12, 24, 36 ...) no code is checked until
//     a person acts: asks for a new code (Receiver.NewCode) or starts the
//     receiver by hand (Config.ByPerson). The act lifts the stop and
//     nothing more. A start that no person made (at login, by a service
//     manager, a tray's restart) leaves it stopped. Paired senders, who
//     need no code, are still served.
//   - The codes the receiver picks are 6 digits, 8 from the 12th wrong
//     code, 10 from the 24th (Digits); the receiver says why
//     (core/app/event's CodeLonger).
//
// # The arithmetic
//
// A guesser's chance is at most the sum, over the wrong codes checked,
// of 1/(the number of codes then): 10⁻⁶ for each of the first 12, 10⁻⁸
// for each of the next 12, 10⁻¹⁰ after. A front end cannot tell a
// person's start from a script's (the CLI counts every start as a
// person's), so the bound does not rest on who starts it: with the stop
// lifted at once every time, the waits alone allow 12 checks in 31.5 s,
// then 12 in each 1,008 s. TestOdds runs each case on a simulated
// clock, against a guesser who sends a wrong code whenever one would be
// checked:
//
//	                                   before (refill on    after
//	                                   every start by hand) (checks)
//	daily CLI user, 30 days            3.6e-4  (360)        1.22e-5 (360)
//	daily CLI user, a year             4.4e-3  (4,380)      1.26e-5 (4,380)
//	app left running, 30 days / year  1.2e-5  (12)         1.2e-5 (12, then stopped)
//	  the same, 11 at a time between
//	  fall backs, a year               1.2e-5               5.5e-5 (55)
//	restart loop, 30 days              0.99 (987,000; 63%)  1.52e-5 (30,874)
//	restart loop, a year               12 (certain)         4.97e-5 (375,443)
//	worst pacing, a year (12 at 6
//	digits after each fall back,
//	then a restart loop)               12 (certain)         6.06e-5
//	four starts by hand, each fed
//	until it stops                     4.8e-5               1.212e-5
//
// All stay at or under 10⁻⁴, and four starts by hand under 2·10⁻⁵.
// Starting again after a stop gains a guesser no check sooner than the
// waits allow and no shorter code. A successful transfer does not reset
// the budget either: it would hand an attacker who keeps guessing a new
// allowance with every honest transfer. Garbage in place of message 3
// cannot be told from a wrong code and counts as one, so a flood of it
// retires codes no faster than the budget allows either.
//
// # One count per device
//
// Every process on the device (the CLI, the app, the daemon) opens the
// same File, and each guess reads the count, counts the guess and writes
// it in one step of the Store's (Update), under the file's lock: two
// processes guessed at once count on from each other's count.
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
// wrong counts the wrong codes checked since the count last fell back
// (in every process), last is when the last of them was checked (null
// when none), stopped says that no code is checked until a person acts.
// A missing file is a fresh budget.
//
// # Writes
//
// It is written as the trust store is (core/internal/jsonfile): under an
// exclusive lock file (held from the read to the write, in Update), through a temporary file that is made private
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
