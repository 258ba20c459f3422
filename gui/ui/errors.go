package ui

import (
	"strings"

	"github.com/ferry-project/ferry/core/transfer"
)

// problem is an error as a person reads it: what happened, what to do, and
// the engine's own words for anyone filing a bug.
type problem struct {
	Headline string
	Advice   string
	Detail   string
}

// explain turns an error from the core into a problem: the words for
// its kind (core/transfer's ErrorKindOf), or general ones.
func explain(err error) problem {
	p := problem{Detail: err.Error()}
	w, ok := words[transfer.ErrorKindOf(err)]
	if !ok {
		w = words[transfer.KindFailure]
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
var words = map[transfer.ErrorKind]wording{
	transfer.KindWrongCode: {"Wrong code",
		"The code didn't match the one on the receiving device. Check it and try again."},
	transfer.KindCodeRetired: {"The code has changed",
		"After too many wrong tries the receiving device picked a new code. Type the code it shows now."},
	transfer.KindCodesHeld: {"The other device isn't taking codes for now",
		"After too many wrong codes it waits a while before checking another. Wait a minute and try again, or ask for a new code."},
	transfer.KindCodesStopped: {"Stopped taking codes",
		"Too many wrong codes were tried: someone nearby may be guessing. Start receiving again for a new code when you're ready."},
	transfer.KindKeyChanged: {"Device key changed",
		"The device that answered isn't the one you trusted: its key is different. It may have been reinstalled, or another device may be using its name. If you're sure it's the right one, pair again: send with the code it shows."},
	transfer.KindNotPaired: {"Not paired any more",
		"One of the two devices no longer trusts the other (trust was removed, or they never paired). Pair again: send with the code the receiving device shows, then tick “Trust” on both."},
	transfer.KindBusy: {"The other device is busy",
		"It is in the middle of another transfer. Try again when that one has finished."},
	transfer.KindDeclined: {"Declined",
		"The other device said no to this transfer."},
	transfer.KindCancelled: {"Cancelled",
		"The transfer was stopped. Files that arrived completely are kept; sending again resumes the rest."},
	transfer.KindNoSpace: {"Not enough space",
		"The receiving device doesn't have room for these files. Free some space or choose another download folder."},
	transfer.KindRefusedPath: {"A file name was refused",
		"The transfer named a file that can't be saved safely inside the download folder, so it was stopped."},
	transfer.KindVerify: {"A file arrived damaged",
		"Its checksum didn't match, so it was not saved. Try again; if it keeps happening, the network is corrupting data."},
	transfer.KindDamaged: {"Data arrived damaged",
		"Something on the network damaged or changed the data, so the transfer was stopped and nothing damaged was saved. Try again; if it keeps happening, the network is corrupting data."},
	transfer.KindSourceChanged: {"A file changed while it was being sent",
		"Wait until nothing is writing to it, then send again."},
	transfer.KindIncompatible: {"Incompatible versions",
		"The two devices run versions of Ferry that can't talk to each other. Update both."},
	transfer.KindNotFerry: {"That isn't a Ferry device",
		"Something answered at that address, but not Ferry. Check the address."},
	transfer.KindTimeout: {"The other device stopped responding",
		"It may have gone to sleep or left the network. Files that arrived completely are kept; try again to resume."},
	transfer.KindConnectionLost: {"Connection lost",
		"The other device went away before the transfer finished. Files that arrived completely are kept; try again to resume."},
	transfer.KindUnreachable: {"Couldn't reach the device",
		"Nothing answered at its address. Make sure Ferry is open on the other device and showing its code, and that both devices are on the same network."},
	transfer.KindAddressInUse: {"The port is taken",
		"Another program is using the port Ferry listens on. Close it, or choose another port."},
	transfer.KindPermission: {"Permission denied",
		"Ferry wasn't allowed to read or write a file. Check the file's permissions or choose another download folder."},
	transfer.KindDirNotWritable: {"Can't save into that folder",
		"Ferry isn't allowed to create files there. Choose another download folder."},
	transfer.KindFileMissing: {"A file is missing",
		"A file or folder was moved or deleted after it was chosen. Remove it from the list and try again."},
	transfer.KindProtocol: {"The other device sent something unexpected",
		"This is a bug or a version mismatch. Update both devices and try again."},
	transfer.KindInternal: {"Ferry hit a bug",
		"Something inside Ferry went wrong. Try again; if it keeps happening, report it with the details below."},
	transfer.KindTrustFile: {"The list of trusted devices can't be read",
		"Its file is damaged or was written by a newer Ferry. Ferry won't change it: move it away to start a new list."},
	transfer.KindHistoryFile: {"The history can't be read",
		"Its file is damaged or was written by a newer Ferry. Move it away to start a new history."},
	transfer.KindNoSuchDevice: {"No such device",
		"No device matches that name. Check the list of devices nearby."},
	transfer.KindAmbiguous: {"Several devices match",
		"More than one device has that name. Pick the device by its fingerprint."},
	transfer.KindClipboardTool: {"Can't reach the clipboard",
		"No clipboard program is available in this session."},
	transfer.KindClipboardEmpty: {"The clipboard is empty",
		"Copy something first."},
	transfer.KindBrowse: {"Can't look for devices",
		"Looking for devices on the network failed. Check the network connection, or type the device's address."},
	transfer.KindBadCode: {"That isn't a code",
		"Type the code exactly as the receiving device shows it."},
	transfer.KindUsage: {"That can't be done",
		"Check what was asked and try again."},
	transfer.KindFailure: {"Something went wrong",
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
