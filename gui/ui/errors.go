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

// explain turns an error from the core into a problem: the first of
// explanations that fits, or a general one.
func explain(err error) problem {
	p := problem{Detail: err.Error()}
	for _, e := range explanations {
		if e.fits(err) {
			p.Headline, p.Advice = e.headline, e.advice
			return p
		}
	}
	p.Headline = "Something went wrong"
	p.Advice = "The transfer didn't finish. Try again."
	return p
}

// explanation is what a person reads for the errors that fit it.
type explanation struct {
	fits     func(error) bool
	headline string
	advice   string
}

// explanations are tried in order, so the most specific cause comes first
// (a wrong code also closes the connection).
var explanations = []explanation{
	{isAny(secure.ErrWrongCode), "Wrong code",
		"The code didn't match the one on the receiving device. Check it and try again."},
	{isAny(secure.ErrCodeRetired), "The code has changed",
		"After too many wrong tries the receiving device picked a new code. Type the code it shows now."},
	{isAny(secure.ErrKeyChanged), "Device key changed",
		"The device that answered isn't the one you trusted: its key is different. It may have been reinstalled, or another device may be using its name. If you're sure it's the right one, pair again: send with the code it shows."},
	{isAny(secure.ErrNotPaired), "Not paired any more",
		"One of the two devices no longer trusts the other (trust was removed, or they never paired). Pair again: send with the code the receiving device shows, then tick “Trust” on both."},
	{isAny(secure.ErrBusy), "The other device is busy",
		"It is in the middle of another transfer. Try again when that one has finished."},
	{isAny(transfer.ErrDeclined), "Declined",
		"The other device said no to this transfer."},
	{isAny(transfer.ErrCancelled, context.Canceled), "Cancelled",
		"The transfer was stopped. Files that arrived completely are kept; sending again resumes the rest."},
	{isAny(transfer.ErrNoSpace, syscall.ENOSPC), "Not enough space",
		"The receiving device doesn't have room for these files. Free some space or choose another download folder."},
	{isAny(transfer.ErrRefusedPath), "A file name was refused",
		"The transfer named a file that can't be saved safely inside the download folder, so it was stopped."},
	{isAny(transfer.ErrVerify, secure.ErrAuth), "A file arrived damaged",
		"Its checksum didn't match, so it was not saved. Try again; if it keeps happening, the network is corrupting data."},
	{isAny(transfer.ErrSourceChanged), "A file changed while it was being sent",
		"Wait until nothing is writing to it, then send again."},
	{isAny(secure.ErrIncompatibleVersion), "Incompatible versions",
		"The two devices run versions of Ferry that can't talk to each other. Update both."},
	{isAny(secure.ErrNotFerry), "That isn't a Ferry device",
		"Something answered at that address, but not Ferry. Check the address."},
	{isAny(transfer.ErrTimeout, secure.ErrHandshakeTimeout, context.DeadlineExceeded), "The other device stopped responding",
		"It may have gone to sleep or left the network. Files that arrived completely are kept; try again to resume."},
	{isAny(secure.ErrConnectionLost, secure.ErrTruncated, syscall.ECONNRESET, syscall.EPIPE), "Connection lost",
		"The other device went away before the transfer finished. Files that arrived completely are kept; try again to resume."},
	{isAny(syscall.ECONNREFUSED), "Couldn't reach the device",
		"Nothing is listening at that address. Make sure Ferry is open on the other device and showing its code."},
	{isAny(syscall.EHOSTUNREACH, syscall.ENETUNREACH), "Couldn't reach the device",
		"There is no route to it. Check that both devices are on the same network."},
	{isDNS, "Unknown device address",
		"That host name couldn't be found. Try the device's IP address."},
	{isAny(fs.ErrPermission), "Permission denied",
		"Ferry wasn't allowed to read or write a file. Check the file's permissions or choose another download folder."},
	{isAny(fs.ErrNotExist), "A file is missing",
		"A file or folder was moved or deleted after it was chosen. Remove it from the list and try again."},
	{isAny(transfer.ErrProtocol, secure.ErrMalformed), "The other device sent something unexpected",
		"This is a bug or a version mismatch. Update both devices and try again."},
	{isNet, "Network problem",
		"The connection failed. Check that both devices are on the same network."},
}

// isAny fits an error that is any of targets, by errors.Is.
func isAny(targets ...error) func(error) bool {
	return func(err error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
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
