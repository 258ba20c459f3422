package errkind

// Words is what a person is told about a kind: what happened and what to
// do, in plain words that hold for every front end. They name no flag,
// no button and no command: a front end adds its own way of doing it
// (an affordance: the CLI's --dir, the app's button) after them.
//
// Both are clauses in the form of the CLI's --json hints: lowercase at
// the start (but for a name), no period at the end, parts joined by ": "
// or "; ". A front end that writes sentences capitalises the first letter
// and ends them with a period; one that writes lines uses them as they
// are.
type Words struct {
	Message string // what happened, short enough for a headline: "wrong code"
	Hint    string // what to do about it, and why where that helps
}

// WordsOf is k's words; a kind with none of its own (an unknown one,
// say, read from a newer history file) has Failure's.
func WordsOf(k Kind) Words {
	if w, ok := words[k]; ok {
		return w
	}
	return words[Failure]
}

// words has every kind of All (a test holds it to that). "The other
// device" is the peer, whichever end it is; "the receiving device" the
// end that saves the files.
var words = map[Kind]Words{
	WrongCode: {"wrong code",
		"the other device did not accept the code, which didn't match the one it shows: check it and try again"},
	CodeRetired: {"the code has changed",
		"after too many wrong codes the other device picked a new one: use the code it shows now"},
	CodesHeld: {"the other device isn't taking codes for now",
		"the other device is holding back codes after too many wrong ones, and checks none for a while: wait a minute and try again, or ask for a new code"},
	CodesStopped: {"stopped taking codes",
		"someone on the network may be guessing the code, since too many wrong ones were tried: start receiving again for a new code when you are ready; trusted devices need no code"},
	NotPaired: {"not paired any more",
		"pair again: send once with the code, then answer yes to trust; one of the two devices no longer trusts the other (its trust was removed, or they never paired)"},
	KeyChanged: {"device key changed",
		"the device that answered is not the one that was trusted: its key is different (it was reinstalled, or another device is using its name); if it is the right one, remove it from the trusted devices and pair again with the code it shows"},
	Busy: {"the other device is busy",
		"try again when it has finished: it is in the middle of another transfer"},
	Declined: {"declined",
		"the other device said no to this transfer"},
	Cancelled: {"cancelled",
		"the transfer was stopped: files that arrived whole are kept, and sending again resumes the rest"},
	Verify: {"a file arrived damaged",
		"its checksum did not match, so it was not kept: send again; if it keeps happening, the network is corrupting data"},
	Damaged: {"data arrived damaged",
		"something on the network damaged or changed the data, so the transfer stopped and nothing damaged was kept: send again; if it keeps happening, something on the way is changing it"},
	Incompatible: {"incompatible versions",
		"the two devices run versions of Ferry that cannot talk to each other: update both to the same version"},
	NoSpace: {"not enough space",
		"the receiving device has no room for these files: free some space there, or choose another folder to save into"},
	Timeout: {"the other device stopped responding",
		"it may have gone to sleep or left the network: check that both devices are awake and on the same network, then try again to resume"},
	SourceChanged: {"a file changed while it was being sent",
		"wait until nothing is writing to it, then send again"},
	RefusedPath: {"a file name was refused",
		"the transfer named a file that cannot be saved safely inside the receiving folder, so it was stopped: rename the file, or send it inside a folder"},
	Protocol: {"the other device sent something unexpected",
		"this is a bug or a version mismatch: update Ferry on both devices; if both are up to date, report it"},
	ConnectionLost: {"connection lost",
		"the connection dropped before the transfer finished: files that arrived whole are kept, and sending the same files again resumes where it stopped"},
	NotFerry: {"that isn't a Ferry device",
		"something answered at that address, but not Ferry: check the address"},
	Unreachable: {"couldn't reach the device",
		"nothing answered at its address: check that the other device is still waiting and that both devices are on the same network"},
	AddressInUse: {"the port is taken",
		"another program is using the port to listen on: close it, or choose another port"},
	Permission: {"permission denied",
		"Ferry was not allowed to read or write a file: check its permissions, or choose another folder to save into"},
	FileMissing: {"a file is missing",
		"a file or folder was moved or deleted after it was chosen: send again without it"},
	Internal: {"Ferry hit a bug",
		"something inside Ferry went wrong: try again; if it keeps happening, report it with the message"},
	TrustFile: {"the list of trusted devices can't be read",
		"fix the file or move it away to start a new list: Ferry never rewrites a trust file it cannot read"},
	HistoryFile: {"the history can't be read",
		"its file is damaged or was written by a newer Ferry: move it away to start a new history"},
	NoSuchDevice: {"no such device",
		"no device matches that name: check the trusted devices and the ones on the network"},
	Ambiguous: {"several devices match",
		"more than one device matches that name: give more of its fingerprint"},
	ClipboardTool: {"can't reach the clipboard",
		"no clipboard program is available in this session"},
	ClipboardEmpty: {"the clipboard is empty",
		"copy something first"},
	Browse: {"can't look for devices",
		"looking for devices on the network failed: check the network connection, or give the other device's address"},
	Usage: {"that can't be done",
		"check what was asked and try again"},
	BadCode: {"that isn't a code",
		"type the code exactly as the receiving device shows it"},
	DirNotWritable: {"can't save into that folder",
		"Ferry is not allowed to create files there: choose another folder"},
	Failure: {"something went wrong",
		"the transfer did not finish: try again"},
}
