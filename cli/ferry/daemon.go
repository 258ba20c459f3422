package main

// ferry receive --daemon: a receiver for a headless machine, run by a
// service manager (the systemd user unit ferry-receive.service that the
// packages ship, cli/ferry-dist/assets). It is receive with these fixed:
//
//   - it keeps receiving (--keep) until SIGTERM or SIGINT, which end it
//     cleanly with exit 0, a transfer in flight cancelled and its sender
//     told;
//   - it takes trusted devices only, and accepts their offers
//     (--accept-trusted): a sender with a code is refused in the
//     handshake before any guess is checked (ReceiverConfig.PairedOnly:
//     nobody reads a code from a log), and a sender without one is a
//     trusted device or is refused by the handshake, as always. Any
//     other offer would be declined: nobody is there to ask;
//   - it prints plain lines, no progress bar and no code to type, to
//     stderr, which the journal keeps;
//   - a failed transfer is a warning, and it goes on waiting;
//   - it checks no code, so it neither spends the device's guess budget
//     nor starts it over (a start by a service manager is no person
//     acting): it does not open the budget's file at all.
//
// --yes and --code are refused with it: it takes no code. With
// --max-transfers N it takes up to N trusted devices at once, each
// logged with its sender (TestE2EDaemonSeveral).

// daemonNoAsk is why a daemon declines offers from devices it does not
// trust, in its log and in what the sender is told.
const daemonNoAsk = "this receiver runs as a daemon and accepts trusted devices only"

// applyDaemon sets what --daemon implies, or refuses a flag that
// contradicts it.
func (o *receiveOpts) applyDaemon() error {
	if !o.daemon {
		return nil
	}
	if o.yes {
		return usagef("pair the sender with 'ferry receive' and trust it, then run the daemon", "--daemon accepts trusted devices only: --yes would accept anyone who knows the code")
	}
	if o.json {
		return usagef("leave out --json: the daemon logs plain lines", "--daemon with --json")
	}
	if o.code != "" {
		return usagef("pair the sender with 'ferry receive' and trust it, then run the daemon", "--daemon takes trusted devices only and checks no code: leave out --code")
	}
	o.keep, o.acceptTrusted = true, true
	return nil
}
