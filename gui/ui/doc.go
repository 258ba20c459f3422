// Package ui is Ferry's desktop interface: the Send, Receive and Settings
// views, the progress and result panels, and the dialogs that sit on top of
// them. It builds without cgo and imports no Fyne driver: the ferry-gui
// command hands it a window made by fyne.io/fyne/v2/app, and the tests hand
// it one made by fyne.io/fyne/v2/test.
//
// # What it owns
//
// The package turns what a person does (drop files, pick a device, type a
// code, press Send, Accept or Cancel) into calls on the device's
// core/app Node (Config.Node: Send, SendMany, Listen and Receive, Pin,
// ServePage), and the Node's events (core/app/event, the one schema the
// CLI and the phone binding show too) back into widgets. It holds no
// protocol logic and makes none of a device's decisions: what the history
// records, when to pin a key after a code, whether a text goes to the
// clipboard and what a trusted device may do unasked are core/app's.
//
// # Threads
//
// Widgets are touched only on Fyne's UI goroutine. Events from the Node,
// discovery and folder walks arrive on other goroutines and reach the
// widgets through Config.Do, which is fyne.Do in the application. Button
// handlers already run on the UI goroutine and change widgets directly.
//
// Every goroutine the package starts (the receive loop, discovery, a send,
// a folder size count) belongs to the UI value: Close cancels them all and
// waits for them to return.
//
// # Choices the design brief left open
//
//   - The app receives whenever it is open, not only while the Receive view
//     is showing, the way LocalSend does: an offer raises a dialog wherever
//     the person is. After a transfer the result stays on screen while the
//     receiver already waits for the next sender (one receiver, the
//     Node's, kept across transfers); "Receive more" shows the code again,
//     a new one after a transfer by code, and the next sender replaces the
//     result with its own transfer.
//   - "Receive from up to N devices at once" (Settings, 1 to 4) is 1 by
//     default: one sender at a time, as before the setting, a second
//     told the device is busy. Either way the receiver is the Node's
//     ReceiveMany, with that limit (receiving.go): one sender's transfer
//     takes the whole view, as before; above 1 (receive_cards.go) the
//     code shrinks to one line and each
//     sender that gets through is a card under it, with its own question
//     (several open at once), progress, Cancel and result; a finished
//     card stays until its Dismiss is pressed, so that a result is never
//     missed while others run. New settings wait until no card runs.
//   - Sizes are shown in decimal units (kB, MB, GB), as file managers do.
//   - "Choose files" picks one file per dialog (Fyne's dialog has no
//     multiple selection); dropping adds any number at once.
//   - The Receive view's QR code and link are the receiver's browser page,
//     http://HOST:PORT/#code=...&fp=... (core/web, served on the
//     receiver's own port by the Node): a phone that scans it sends
//     from its browser, no app needed. The same link (or a legacy
//     ferry:// one) pasted into the address field fills in the address
//     and the code.
//   - Errors are shown as a short headline, one sentence saying what to do,
//     and the engine's own wording underneath for a bug report.
//
// # History
//
// The History tab lists core/history's file (the Node's, the one
// `ferry history` reads): the Node records every send and receive of the
// app when it ends (a receiver only when a sender connected), named by
// the pin for a paired peer, unless "Record new transfers" is off
// (UI.KeepHistory, which the Node asks). The choices (Show in folder, Clear, "Record new
// transfers") are written at the top of history.go.
//
// # Trusted devices
//
// The pins are core/trust's store (the Node's: the file the CLI uses),
// checked by core/secure's handshake; the UI decides when to offer trust
// and shows what the store says.
//
//   - A transfer that a code authenticated ends, on both devices, with a
//     box "Trust NAME: next time, no code needed", checked when the peer
//     is already trusted. Ticking it pins the key the handshake proved
//     (Connected.PeerKey); unticking removes the pin. Whether to offer it
//     is the Node's AfterCode, which also notes every peer a code
//     authenticates as recent, for `ferry trust add`.
//   - The device list marks a device Trusted when its advertised
//     fingerprint is a pinned key's. That only selects paired mode: the
//     send carries the full pinned key, and the handshake refuses any
//     other (ErrKeyChanged). A device with a trusted device's name and
//     another fingerprint is marked "NOT the trusted device", with both
//     fingerprints, in core/app's words (TrustStatus.Label,
//     KeyChangedKeys), and is sent to only with a code; its hint warns
//     (KeyChangedWarning) before it speaks of pairing again.
//   - For a trusted device the code is optional: empty, the send uses the
//     pin; typed, the code wins, so a person told to pair again can. After
//     a refused pin (not paired any more, key changed) the device needs a
//     code until one succeeds.
//   - The receiver accepts paired senders whose key is pinned at the time
//     of the handshake, so trusting or removing counts at once, without a
//     restart. "Accept files from trusted devices without asking" is off
//     by default; with "Ask before accepting" off it has nothing to decide.
//   - A sender it refuses (event.Refused: not trusted here, a
//     stale pin for this device, or trust off) is told so by its own
//     send, and the Receive view says so too, in one notice that the next
//     refusal replaces, with the fix (pair again with the code). It is
//     never a dialog, and the receiver keeps waiting with the same code:
//     anyone on the network can provoke a refusal.
//   - Settings lists the pins with a Remove button each; a removal applies
//     at once (it is not a preference waiting for Save). A store that
//     can't be read is reported with its file and never reset; until it
//     is fixed nobody is trusted.
//   - Store writes (which lock and sync a file) run off the UI goroutine;
//     reads, which take no lock, run where they are needed.
//   - Wrong codes (core/transfer's guess budget): the Receive view says
//     how many were tried and until when codes are held back, in a notice
//     of its own; when the receiver stops taking codes it greys the code
//     out, says someone may be guessing, and offers New code, whose click
//     takes codes again with a new one. Meanwhile the receiver keeps
//     waiting for trusted devices (ReceiveConfig.KeepWaiting). One
//     receiver serves every transfer until the settings change, and every
//     receiver spends the device's one guess budget (the Node's, kept
//     beside the trust file): no transfer, restart or tray is a new
//     allowance for a guesser.
//   - The Trust box after a transfer by code says when wrong codes came
//     before the right one ("N wrong codes were tried on this device
//     before this sender's code was right"), and then reads "Trust NAME
//     anyway"; it is never ticked for the person.
//   - A paired sender is named by the name its key was pinned under; the
//     name it claims is added only when it differs ("Work laptop, calling
//     itself ‘Laptop’").
//
// # In the background (tray.go)
//
//   - "Keep receiving in the tray when the window is closed" is off by
//     default. On, and when the app has a tray (fyne's desktop.App), the
//     window's close button hides it (WindowCloseRequested, the window's
//     close intercept) and the receiver goes on; off, or without a tray,
//     closing quits. The tray's icon and menu are installed when the
//     setting is on at start or saved on; Fyne cannot remove a tray icon,
//     so turning it off changes what closing does at once and the icon
//     goes with the next start.
//   - The tray menu: the receiver's state ("Code 482913", "Receiving from
//     desk", "Receiving from 3 devices", "Not receiving"), the last five transfers, sent or received,
//     from the history (earlier runs' and the CLI's too: "✓ notes.txt ·
//     35 B · from desk (trusted) · Today 14:02", ✗ for anything but
//     verified), or this run's when no history is kept, Open Ferry (the
//     window, on the Receive view) and Quit. Informative lines are
//     disabled items.
//   - An offer the settings accept without asking (a trusted device with
//     "Accept files from trusted devices without asking", or "Ask" off)
//     is a desktop notification when it starts and when it ends, with
//     where the files went; nothing raises the window. An offer that
//     needs the person shows the window, if it hides in the tray, with
//     the dialog.
//   - With the window in the tray, nobody can press "Receive more": the
//     receiver listens again after each transfer, and closing the window
//     on a result listens again too.
//   - "Start at login" is not a preference but whether the login item
//     (Config.Autostart: core/platform's LoginItem for this binary with
//     --hidden) exists; Save writes or removes it. Started with --hidden,
//     the window stays closed if the tray setting is on, and shows
//     otherwise, since the app could not be reached.
//   - The icon is Ferry's packaged SVG rendered to a 64-pixel PNG: a
//     StatusNotifierItem host takes pixels, not SVG.
//
// # Files from outside, and the clipboard
//
//   - `ferry-gui FILE...` (ParseArgs, OpenFiles) selects the files on the
//     Send view, after what was selected; paths that do not exist are
//     named in one dialog and the rest are kept. A second ferry-gui hands
//     its files to the running app over a Unix socket in the person's
//     runtime folder and exits (instance.go): one window, one receiver,
//     one code. Package gui/fmactions puts "Send with Ferry" in file
//     managers.
//   - Send clipboard (and Ctrl+Shift+V) adds the clipboard's text as a
//     text entry, or its image as a PNG file (clipboard.go).
//   - "Put texts from trusted devices on the clipboard" (off by default)
//     copies a trusted device's text as its transfer ends; a text from a
//     sender with the code is only ever copied by the person's Copy.
//   - Config.StateFile (FERRY_GUI_STATE) is a JSON dump of the Send list
//     for tests of the real app.
package ui
