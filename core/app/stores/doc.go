// Package stores is what a device keeps on disk, as a front end sees
// it: the devices it trusts (Trust, with the devices a code authenticated
// lately) and its transfer history (History), each in a file of the
// device's config folder, and the Device both speak of. It names no type
// of core/trust or core/history: a trusted device is a Device, a history
// record the schema's event.History.
//
// Every call reads the file, so a Node's stores (core/app's Node.Trust
// and Node.History) and those a command opens without a Node (OpenTrust,
// OpenHistory) may share it, across goroutines and processes. What goes
// into them is decided in core/app: whom to pin after a code, what a
// transfer's record says. Here are the look-ups and the words every front
// end shows alike: which device a name means (Trust.Find, TrustRecent),
// how a discovered receiver relates to the trusted devices (TrustStatus,
// KeyChangedWarning) and what a failure is recorded as (HistoryOutcome).
//
// The page's js/wasm build, which keeps nothing on disk, has Device
// alone.
package stores
