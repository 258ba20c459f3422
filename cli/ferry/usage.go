package main

import "strings"

const topUsage = `Usage:
    ferry receive [--dir DIR] [--code CODE] [--listen ADDR] [--name NAME] [--yes]
                  [--overwrite] [--keep] [--no-mdns] [--iface NAME]... [--trust]
                  [--accept-trusted] [--to-clipboard] [--web [--qr]] [--no-history]
                  [--max-transfers N] [--json] [--diag] [--quiet]
    ferry send    [--to HOST:PORT [--paired NAME] | --peer NAME_OR_FINGERPRINT]
                  [--code CODE] [--text TEXT] [--clipboard] [--name NAME]
                  [--iface NAME]... [--trust] [--no-history] [--json] [--diag]
                  [--quiet] PATH...
    ferry send    --to-browser [--qr] [--listen ADDR] [--text TEXT] PATH...
    ferry peers   [--timeout DURATION] [--iface NAME]... [--json]
    ferry trust   list [--recent] [--json] | add NAME | remove NAME
    ferry history [--limit N] [--json] | clear
    ferry version
    ferry completion bash|zsh|fish

Ferry moves files, folders and text between two devices on the same
network, encrypted end to end. Run "ferry receive" on one device: it shows
a code. Run "ferry send PATH..." on the other, pick the device, type the
code. After that transfer, either end can trust the other (answer yes,
or --trust): between two devices that trust each other, no code is needed.

Run "ferry COMMAND --help" for a command's flags.

Exit codes:
    0  success: every file was received and confirmed
    1  failure (network, disk, protocol, busy port, unreachable address)
    2  usage: bad flags, or a path that is missing or unreadable
    3  authentication failed: wrong code, not paired, device key changed
    4  declined or cancelled, by either end
    5  verification failed (a hash did not match)
    6  the receiver stopped taking codes after too many wrong ones

A phone or computer without ferry can send and receive in its browser:
"ferry receive --web" and "ferry send --to-browser" print a link (and a
QR code with --qr) that opens a page running ferry's own code.

With --json, stdout carries one JSON object per line, each with an "event"
field (listening, page, connected, offer, accepted, progress, entry, text,
code_changed, code_longer, codes_held, codes_stopped, refused, same_name,
trusted, diag, done, error), and nothing else.
`

const receiveUsage = `Usage: ferry receive [flags]

Waits for one transfer, shows the code to type on the sending device, asks
before accepting, and saves what arrives. Text snippets are printed to
stdout. A trusted device that this device trusts too sends without the
code. After 12 wrong codes (someone may be guessing) it stops taking
codes and exits 6: run it again for a new code.

Flags:
    --dir DIR        save into DIR (default: your download folder, created
                     if missing: Downloads, or $XDG_DOWNLOAD_DIR on Linux)
    --code CODE      use CODE instead of a random six-digit code, for scripts
                     and classrooms: it stays fixed and lets in every sender
                     who types it (a random code lets in one: the next is
                     shown as soon as a sender proves it)
    --listen ADDR    listen on ADDR, host:port (default: every interface, any
                     free port)
    --name NAME      the name senders see (default: the hostname)
    --yes            accept every offer without asking; without it and
                     without a terminal, offers are declined
    --overwrite      replace files that already exist instead of saving
                     "name (1).ext"
    --keep           keep receiving after a transfer, until interrupted; a
                     random code is used once: a new one is shown for each
                     transfer
    --max-transfers N
                     take up to N senders at once, 1 to 4 (default 1): each
                     sender's lines name it, its question is asked in turn,
                     and its --json events carry its "transfer" number;
                     beyond N a sender is told busy, with how many are in
                     progress; on a terminal, type a transfer's number and
                     Enter to cancel that one
    --trust          after a transfer with the code, trust the sender without
                     asking (on a terminal, ferry asks); not when wrong codes
                     came first: then only a person who was told can
    --accept-trusted accept offers from trusted devices without asking
    --daemon         run unattended until stopped (SIGTERM): trusted devices
                     only (a sender with a code is refused, its code
                     unchecked), log plain lines, go on after failures
                     (--keep --accept-trusted; the ferry-receive.service
                     user unit runs this)
    --web            also serve the browser page on the same port and print
                     its link (the code travels in the link's #fragment,
                     never over the network): a phone or computer without
                     ferry opens it, picks files and sends; it is an
                     ordinary sender here, asked about as any other
    --qr             with --web: draw the link as a QR code to scan
    --to-clipboard   put received text on the clipboard: at once from a
                     trusted device, after asking (on a terminal) from a
                     sender with the code
    --no-mdns        do not advertise this device on the network
    --iface NAME     advertise and show addresses on NAME only (repeatable)
    --no-history     leave this transfer out of the history ('ferry history';
                     FERRY_NO_HISTORY=1 does it for every transfer)
    --json           print one JSON event per line on stdout, ask nothing
    --diag           print the stage split (socket read, decrypt, hash, disk
                     write) every 5 seconds and at the end
    --quiet          print nothing but errors (and the code, when random)
`

const sendUsage = `Usage: ferry send [flags] PATH...
       ferry send --to-browser [--qr] [--listen ADDR] PATH...

Sends files and folders (folders whole, under their own names) and text
snippets to a receiver. Exits 0 only when the receiver confirmed every
file. A PATH of - sends standard input as a file named "stdin" (copied to
a temporary file first: the receiver needs its size before it starts).

With --to-browser the receiver is a browser: ferry serves a page, prints
its link (with a new code in its #fragment), and sends to the page that
opens it and presses Receive; the page saves each file through the
browser's downloads. After three pages with a wrong code it stops.

Flags:
    --to HOST:PORT   send to the receiver at this address
                     (--to and --peer more than once: to several receivers
                     at once, --code once per receiver that needs one, in
                     order; exits 0 only if all got everything, else with
                     the worst of their codes)
    --peer NAME      send to the receiver with this name or fingerprint,
                     found over mDNS; a trusted one needs no code
                     (with neither: pick from the devices found, on a terminal)
    --paired NAME    with --to: the receiver there is the trusted device
                     NAME (or fingerprint); send without a code
    --code CODE      the code the receiver shows (asked for when missing, on
                     a terminal, unless the receiver is trusted)
    --trust          after a transfer with the code, trust the receiver
                     without asking (on a terminal, ferry asks)
    --text TEXT      send TEXT as a snippet (with or without paths);
                     --text - reads it from standard input (at most 1 MiB)
    --as NAME        the name of the file read from standard input
                     (PATH -; default: stdin)
    --clipboard      send what the clipboard holds: its text as a snippet,
                     or its image as a PNG file (Linux: wl-clipboard, xclip
                     or xsel must be installed)
    --to-browser     send to a browser that opens the printed link
    --qr             with --to-browser: draw the link as a QR code
    --listen ADDR    with --to-browser: serve the page on ADDR, host:port
                     (default: every interface, any free port)
    --name NAME      the name the receiver sees (default: the hostname)
    --iface NAME     look for receivers on NAME only (repeatable)
    --no-history     leave this transfer out of the history ('ferry history';
                     FERRY_NO_HISTORY=1 does it for every transfer)
    --json           print one JSON event per line on stdout, ask nothing
    --diag           print the stage split (disk read, hash, encrypt, socket
                     write) every 5 seconds, and at the end both ends' splits
                     and CPU use and a verdict naming what limited the
                     transfer (a stage, an end's CPU, or the network)
    --quiet          print nothing but errors
`

const peersUsage = `Usage: ferry peers [flags]

Lists the receivers that mDNS finds on the network: name, fingerprint,
addresses, and "trusted" or, for a trusted device's name with another
key (an impostor, or a device that made a new key), "NOT the trusted
device" with both keys; --json calls it "key_changed".

Flags:
    --timeout DURATION  how long to listen (default 3s)
    --iface NAME        look on NAME only (repeatable)
    --json              print one JSON object per peer per line
`

const trustUsage = `Usage:
    ferry trust list [--recent] [--json]
    ferry trust add NAME_OR_FINGERPRINT
    ferry trust remove NAME_OR_FINGERPRINT

Trusted devices send to each other without a code: each end pinned the
other's key after a transfer that a code authenticated. Both ends must
trust each other.

    list             the trusted devices: name, fingerprint, when paired
                     (--recent: the devices a code authenticated lately,
                     which add can trust)
    add NAME         trust a device that a code authenticated recently
    remove NAME      stop trusting a device; the next transfer without a
                     code fails on both ends until they pair again

A device is named by its name or by its fingerprint (in full, or its
first characters, dashes optional). The list is kept in trusted.json in
ferry's config folder.
`

const historyUsage = `Usage:
    ferry history [--limit N] [--json]
    ferry history clear [--json]

Lists the recent transfers, sent and received, newest first: when, to or
from which device, what, and whether every file arrived verified (or why
not). Every send and receive adds one at its end, unless run with
--no-history or with FERRY_NO_HISTORY=1 in the environment. The history
keeps the last 500 transfers (at most 1 MiB) in history.json in ferry's
config folder, beside trusted.json.

    --limit N        show the newest N transfers (default 20; 0: all)
    --json           one JSON object per transfer per line (event
                     "history"), with the folders and paths they went to
    clear            forget every transfer in the history
`

const versionUsage = `Usage: ferry version

Prints ferry's version, the protocol version and the Go version it was
built with.
`

func cmdHelp(p *printer, args []string) error {
	text := topUsage
	if len(args) > 0 {
		switch args[0] {
		case "receive", "recv":
			text = receiveUsage
		case "send":
			text = sendUsage
		case "peers":
			text = peersUsage
		case "version":
			text = versionUsage
		case "trust":
			text = trustUsage
		case "history":
			text = historyUsage
		case "completion":
			text = completionUsage
		default:
			return usagef("run 'ferry help' for the list of commands", "unknown command %q", args[0])
		}
	}
	p.stdoutText(strings.TrimLeft(text, "\n"))
	return errHelp
}
