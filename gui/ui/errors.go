package ui

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"strings"
	"syscall"

	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
)

// problem is an error as a person reads it: what happened, what to do, and
// the engine's own words for anyone filing a bug.
type problem struct {
	Headline string
	Advice   string
	Detail   string
}

// explain turns an error from the core into a problem. Order matters: the
// most specific cause wins (a wrong code also closes the connection).
func explain(err error) problem {
	p := problem{Detail: err.Error()}
	switch {
	case errors.Is(err, secure.ErrWrongCode):
		p.Headline = "Wrong code"
		p.Advice = "The code didn't match the one on the receiving device. Check it and try again."
	case errors.Is(err, secure.ErrCodeRetired):
		p.Headline = "The code has changed"
		p.Advice = "After too many wrong tries the receiving device picked a new code. Type the code it shows now."
	case errors.Is(err, transfer.ErrDeclined):
		p.Headline = "Declined"
		p.Advice = "The other device said no to this transfer."
	case errors.Is(err, transfer.ErrCancelled), errors.Is(err, context.Canceled):
		p.Headline = "Cancelled"
		p.Advice = "The transfer was stopped. Files that arrived completely are kept; sending again resumes the rest."
	case errors.Is(err, transfer.ErrNoSpace), errors.Is(err, syscall.ENOSPC):
		p.Headline = "Not enough space"
		p.Advice = "The receiving device doesn't have room for these files. Free some space or choose another download folder."
	case errors.Is(err, transfer.ErrRefusedPath):
		p.Headline = "A file name was refused"
		p.Advice = "The transfer named a file that can't be saved safely inside the download folder, so it was stopped."
	case errors.Is(err, transfer.ErrVerify), errors.Is(err, secure.ErrAuth):
		p.Headline = "A file arrived damaged"
		p.Advice = "Its checksum didn't match, so it was not saved. Try again; if it keeps happening, the network is corrupting data."
	case errors.Is(err, transfer.ErrSourceChanged):
		p.Headline = "A file changed while it was being sent"
		p.Advice = "Wait until nothing is writing to it, then send again."
	case errors.Is(err, secure.ErrIncompatibleVersion):
		p.Headline = "Incompatible versions"
		p.Advice = "The two devices run versions of Ferry that can't talk to each other. Update both."
	case errors.Is(err, secure.ErrNotFerry):
		p.Headline = "That isn't a Ferry device"
		p.Advice = "Something answered at that address, but not Ferry. Check the address."
	case errors.Is(err, transfer.ErrTimeout), errors.Is(err, secure.ErrHandshakeTimeout), errors.Is(err, context.DeadlineExceeded):
		p.Headline = "The other device stopped responding"
		p.Advice = "It may have gone to sleep or left the network. Files that arrived completely are kept; try again to resume."
	case errors.Is(err, secure.ErrConnectionLost), errors.Is(err, secure.ErrTruncated),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		p.Headline = "Connection lost"
		p.Advice = "The other device went away before the transfer finished. Files that arrived completely are kept; try again to resume."
	case errors.Is(err, syscall.ECONNREFUSED):
		p.Headline = "Couldn't reach the device"
		p.Advice = "Nothing is listening at that address. Make sure Ferry is open on the other device and showing its code."
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		p.Headline = "Couldn't reach the device"
		p.Advice = "There is no route to it. Check that both devices are on the same network."
	case isDNS(err):
		p.Headline = "Unknown device address"
		p.Advice = "That host name couldn't be found. Try the device's IP address."
	case errors.Is(err, fs.ErrPermission):
		p.Headline = "Permission denied"
		p.Advice = "Ferry wasn't allowed to read or write a file. Check the file's permissions or choose another download folder."
	case errors.Is(err, fs.ErrNotExist):
		p.Headline = "A file is missing"
		p.Advice = "A file or folder was moved or deleted after it was chosen. Remove it from the list and try again."
	case errors.Is(err, transfer.ErrProtocol), errors.Is(err, secure.ErrMalformed):
		p.Headline = "The other device sent something unexpected"
		p.Advice = "This is a bug or a version mismatch. Update both devices and try again."
	case isNet(err):
		p.Headline = "Network problem"
		p.Advice = "The connection failed. Check that both devices are on the same network."
	default:
		p.Headline = "Something went wrong"
		p.Advice = "The transfer didn't finish. Try again."
	}
	return p
}

func isDNS(err error) bool {
	var d *net.DNSError
	return errors.As(err, &d)
}

func isNet(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}

// sentence capitalises an engine error for display under the advice.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
