// Package ui is Ferry's desktop interface: the Send, Receive and Settings
// views, the progress and result panels, and the dialogs that sit on top of
// them. It builds without cgo and imports no Fyne driver: the ferry-gui
// command hands it a window made by fyne.io/fyne/v2/app, and the tests hand
// it one made by fyne.io/fyne/v2/test.
//
// # What it owns
//
// The package turns what a person does (drop files, pick a device, type a
// code, press Send, Accept or Cancel) into calls on core/transfer, and the
// engine's events back into widgets. It holds no protocol logic: a code, a
// manifest or a hash is the engine's business.
//
// # Threads
//
// Widgets are touched only on Fyne's UI goroutine. Events from the engine,
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
//     the person is. After a transfer the result stays on screen; "Receive
//     more" listens again under a fresh code.
//   - Sizes are shown in decimal units (kB, MB, GB), as file managers do.
//   - "Choose files" picks one file per dialog (Fyne's dialog has no
//     multiple selection); dropping adds any number at once.
//   - A ferry:// link (what the QR code holds) pasted into the address
//     field fills in the address and the code.
//   - Errors are shown as a short headline, one sentence saying what to do,
//     and the engine's own wording underneath for a bug report.
package ui
