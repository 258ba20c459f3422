package main

// ferry receive --daemon: a receiver for a headless machine, run by a
// service manager (the systemd user unit ferry-receive.service that the
// packages ship, cli/ferry-dist/assets). It is receive with these fixed:
//
//   - it keeps receiving (--keep) until SIGTERM or SIGINT, which end it
//     cleanly with exit 0, a transfer in flight cancelled and its sender
//     told;
//   - it accepts offers from trusted devices only (--accept-trusted), and
//     declines every other offer, whatever the terminal: nobody is there
//     to ask. A sender without a code is a trusted device or is refused
//     by the handshake, as always; a stranger who knows the code gets as
//     far as the offer, which is declined;
//   - it prints plain lines, no progress bar and no code to type, to
//     stderr, which the journal keeps;
//   - a failed transfer is a warning, and it goes on waiting;
//   - wrong codes never stop it: when the guess budget stops taking
//     codes it says so and goes on serving trusted devices, which need
//     none.
//
// --yes is refused with it: it would accept strangers who know the code.

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
	o.keep, o.acceptTrusted = true, true
	return nil
}
