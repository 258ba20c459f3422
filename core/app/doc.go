// Package app is a device running Ferry: the one layer every front end
// (the CLI, the desktop app, the mobile binding) stands on. A front end
// presents what it is told and passes on what a person chose; every
// decision about a device's life is made here, once.
//
// # The Node
//
// New makes a Node from a Config: it loads (or creates) the device's key
// and opens its trust store and history, all kept in one config folder.
// A Node lives as long as the program: it holds the identity, the trust
// store (Trust), the history (History), the receiver with the device's
// one guess budget (Listen), and it starts transfers (Send, Receiver's
// Receive). Problems that cost a convenience, never a transfer (a trust
// file that cannot be read, a history that cannot be written, an
// advertisement that failed) go to Config.OnWarning.
//
// # A Node with nothing on disk
//
// NewInMemory makes a Node that keeps nothing on disk, the browser
// page's: a key made at start (or Config.Key, the one the page kept in
// the browser, so that a reloaded page resumes its cut send), no trust
// store, no history, no guess file. It sends (Send, with
// SendConfig.Dialer for a connection it opens itself) and receives one
// transfer over a connection it opens into a Sink (ReceiveFrom), with
// the same events as any Node. A front end whose connection crosses a
// boundary inside its own calls (the page's WebSocket, between
// JavaScript and Go) makes it a CrossingConn, and records that time
// into the transfer's diagnostics through Crossings. The page's js/wasm
// build has only these: the files that hold the stores, Listen,
// discovery and the page's server are built !js (nodisk_js.go names
// what the shared files need of them), so ferry.wasm links none of
// them.
//
// # Its own types
//
// The API names no type of the packages below it (core/trust,
// core/history, core/discovery, core/secure), and two doors of its own
// live in packages beneath it, which a front end may import as it
// imports this one:
//
//   - core/app/nearby: a discovered receiver as a nearby.Peer (Browse,
//     FindPeer, ListPeers, NewPeer for a platform's own DNS-SD browser,
//     Advertisement; Node.Browse browses on the Node's interfaces), and
//     the receiver's link (PageLink, ParseLink, LinkCode).
//   - core/app/stores: what a device keeps on disk. A trusted or recent
//     device is a stores.Device (Node.Trust's stores.Trust, or
//     stores.OpenTrust for a command that needs no key), how a receiver
//     relates to the trusted devices a stores.TrustStatus (Node.TrustOf),
//     a history record the schema's event.History (Node.History's
//     stores.History, or stores.OpenHistory).
//
// The errors a front end adds an affordance to are exported here and in
// stores (ErrKeyChanged, stores.ErrNoSuchDevice, ...), the same values
// the engine returns, so errors.Is finds them. Which receiver a name
// means (nearby.FindPeer, stores.Trust's Find), which recent device
// "trust add" means (TrustRecent) and what a failure is recorded as
// (stores.HistoryOutcome) are decided once, beneath the front ends.
//
// # Receiving
//
// Listen binds a port, picks a code, advertises the device (core/discovery)
// and serves the browser page on the same port (core/web; the page's
// files come from the front end as Config.PageFiles), and returns a
// Receiver at once. Its Code and Port can be shown before any sender
// comes. Receiver.Receive waits for one transfer and returns its handle
// at once; a front end that keeps receiving calls it again when the
// transfer is Done. Receive is ReceiveMany (below) with a limit of one
// sender, ended by its first transfer: one way of making transfers
// from the engine's sessions, concluding and recording them. The port, the code (until a transfer used it or
// wrong guesses retired it) and the guess budget are kept across those
// transfers: an honest transfer never hands a guesser a fresh budget.
// NewCode, a person asking for a new code, lifts a stop (and resets
// nothing: core/guess).
// Once the budget is spent (event.CodesStopped) the wait for a sender
// ends with an error wrapping ErrCodesStopped, unless
// ReceiveConfig.PairedOnly took no code to begin with (a daemon).
//
// # Transfers and events
//
// Send and Receive return a *Transfer. Its events go to the Handler it
// was started with, in order, one at a time, and end with exactly one
// event.Done or event.Error; Wait then returns its Result. Each event is
// a type of package event, which is also its one JSON form (event.Marshal):
// the CLI's --json, the mobile binding and the page carry the same
// objects. Transfer.ID names a transfer within its Node.
//
// An offer (event.Offer) is answered with Transfer.Accept or Decline,
// unless the receiver answers it unasked: every offer with AcceptAll, a
// trusted device's with AcceptTrusted, none with Unattended (nobody can
// be asked: the offer is declined with that reason).
//
// # Several senders
//
// With ReceiveConfig.MaxConcurrent above 1 (at most 4) a Receiver takes
// that many senders at once: ReceiveMany runs the engine's ServeMany
// until its context ends or Close, and each engine session becomes a
// *Transfer of its own, handed to the front end through the Handler it
// already has: a Transfer first seen with its event.Connected is a new
// sender. Its events carry it (event.MarshalFor adds its ID for a front
// end that writes JSON), its Accept and Decline answer its own offer
// whichever others are open (the engine's AcceptSession and
// DeclineSession), and it has its own Result and history record. A
// sender beyond the limit is refused as busy and told how many
// transfers are in progress. The guess budget stays the Node's one.
//
// The Handler rather than a callback or a channel of new transfers:
// every front end already routes events by their Transfer (SendMany's
// transfers arrive the same way, and Send is SendMany with one
// receiver), the first event says who the sender
// is, which is all a row or a card needs to appear, and a channel
// would be a second stream to order against the events. Transfer.Cancel
// on a received transfer declines it while its offer is open, and
// otherwise cancels its session alone (the engine's CancelSession).
//
// # Decisions made here
//
//   - The history: a receiver records every transfer where a sender
//     connected, a sender every attempt; the record is built from the
//     events and written once, when the transfer ends (its outcome from
//     Result; a transfer cancelled by this end is "cancelled"). Texts are
//     recorded by name and size, never their content. Config.NoHistory
//     turns recording off.
//   - Pinning after a code: AfterCode says whether to pin the peer's key
//     now, ask a person, or not; it never pins silently when wrong codes
//     were tried before the right one (event.Connected.WrongCodes).
//   - The clipboard: Result.Clipboard says whether the texts received go
//     there: a trusted device's unasked, another's only if a person
//     agrees. The clipboard itself is the front end's.
//   - What a trusted device may do unasked: its offers are accepted with
//     ReceiveConfig.AcceptTrusted; it needs no code while its key is
//     pinned (the trust file is read at each handshake).
//   - Defaults: the device name (DefaultName, the host name) and the
//     download folder (DefaultDir).
package app
