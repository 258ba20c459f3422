package ui

import (
	"strings"

	"github.com/ferry-project/ferry/core/errkind"
)

// problem is an error as a person reads it: what happened, what to do, and
// the engine's own words for anyone filing a bug.
type problem struct {
	Headline string
	Advice   string
	Detail   string
}

// explain turns an error from the core into a problem: the words for
// its kind (core/errkind's Of), or general ones.
func explain(err error) problem {
	p := problem{Detail: err.Error()}
	w, ok := words[errkind.Of(err)]
	if !ok {
		w = words[errkind.Failure]
	}
	p.Headline, p.Advice = w.headline, w.advice
	return p
}

// wording is what a person reads for an error of one kind.
type wording struct {
	headline string
	advice   string
}

// words are the GUI's sentences, one per kind: this file only words
// kinds, it never tells errors apart itself.
var words = map[errkind.Kind]wording{
	errkind.WrongCode: {"Wrong code",
		"The code didn't match the one on the receiving device. Check it and try again."},
	errkind.CodeRetired: {"The code has changed",
		"After too many wrong tries the receiving device picked a new code. Type the code it shows now."},
	errkind.CodesHeld: {"The other device isn't taking codes for now",
		"After too many wrong codes it waits a while before checking another. Wait a minute and try again, or ask for a new code."},
	errkind.CodesStopped: {"Stopped taking codes",
		"Too many wrong codes were tried: someone nearby may be guessing. Start receiving again for a new code when you're ready."},
	errkind.KeyChanged: {"Device key changed",
		"The device that answered isn't the one you trusted: its key is different. It may have been reinstalled, or another device may be using its name. If you're sure it's the right one, pair again: send with the code it shows."},
	errkind.NotPaired: {"Not paired any more",
		"One of the two devices no longer trusts the other (trust was removed, or they never paired). Pair again: send with the code the receiving device shows, then tick “Trust” on both."},
	errkind.Busy: {"The other device is busy",
		"It is in the middle of another transfer. Try again when that one has finished."},
	errkind.Declined: {"Declined",
		"The other device said no to this transfer."},
	errkind.Cancelled: {"Cancelled",
		"The transfer was stopped. Files that arrived completely are kept; sending again resumes the rest."},
	errkind.NoSpace: {"Not enough space",
		"The receiving device doesn't have room for these files. Free some space or choose another download folder."},
	errkind.RefusedPath: {"A file name was refused",
		"The transfer named a file that can't be saved safely inside the download folder, so it was stopped."},
	errkind.Verify: {"A file arrived damaged",
		"Its checksum didn't match, so it was not saved. Try again; if it keeps happening, the network is corrupting data."},
	errkind.Damaged: {"Data arrived damaged",
		"Something on the network damaged or changed the data, so the transfer was stopped and nothing damaged was saved. Try again; if it keeps happening, the network is corrupting data."},
	errkind.SourceChanged: {"A file changed while it was being sent",
		"Wait until nothing is writing to it, then send again."},
	errkind.Incompatible: {"Incompatible versions",
		"The two devices run versions of Ferry that can't talk to each other. Update both."},
	errkind.NotFerry: {"That isn't a Ferry device",
		"Something answered at that address, but not Ferry. Check the address."},
	errkind.Timeout: {"The other device stopped responding",
		"It may have gone to sleep or left the network. Files that arrived completely are kept; try again to resume."},
	errkind.ConnectionLost: {"Connection lost",
		"The other device went away before the transfer finished. Files that arrived completely are kept; try again to resume."},
	errkind.Unreachable: {"Couldn't reach the device",
		"Nothing answered at its address. Make sure Ferry is open on the other device and showing its code, and that both devices are on the same network."},
	errkind.AddressInUse: {"The port is taken",
		"Another program is using the port Ferry listens on. Close it, or choose another port."},
	errkind.Permission: {"Permission denied",
		"Ferry wasn't allowed to read or write a file. Check the file's permissions or choose another download folder."},
	errkind.DirNotWritable: {"Can't save into that folder",
		"Ferry isn't allowed to create files there. Choose another download folder."},
	errkind.FileMissing: {"A file is missing",
		"A file or folder was moved or deleted after it was chosen. Remove it from the list and try again."},
	errkind.Protocol: {"The other device sent something unexpected",
		"This is a bug or a version mismatch. Update both devices and try again."},
	errkind.Internal: {"Ferry hit a bug",
		"Something inside Ferry went wrong. Try again; if it keeps happening, report it with the details below."},
	errkind.TrustFile: {"The list of trusted devices can't be read",
		"Its file is damaged or was written by a newer Ferry. Ferry won't change it: move it away to start a new list."},
	errkind.HistoryFile: {"The history can't be read",
		"Its file is damaged or was written by a newer Ferry. Move it away to start a new history."},
	errkind.NoSuchDevice: {"No such device",
		"No device matches that name. Check the list of devices nearby."},
	errkind.Ambiguous: {"Several devices match",
		"More than one device has that name. Pick the device by its fingerprint."},
	errkind.ClipboardTool: {"Can't reach the clipboard",
		"No clipboard program is available in this session."},
	errkind.ClipboardEmpty: {"The clipboard is empty",
		"Copy something first."},
	errkind.Browse: {"Can't look for devices",
		"Looking for devices on the network failed. Check the network connection, or type the device's address."},
	errkind.BadCode: {"That isn't a code",
		"Type the code exactly as the receiving device shows it."},
	errkind.Usage: {"That can't be done",
		"Check what was asked and try again."},
	errkind.Failure: {"Something went wrong",
		"The transfer didn't finish. Try again."},
}

// sentence capitalises an engine error for display under the advice.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
