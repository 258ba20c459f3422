// Package mobile is Ferry for phones: the API that the Android and iOS
// apps, thin Kotlin and Swift shells, bind with gomobile
// (gomobile bind -target=android|ios github.com/ferry-project/ferry/mobile).
// It is a binding of core/app, the application layer under the CLI
// and the desktop app too: a Node here wraps one core/app Node, which
// owns the device's identity, trusted devices, history and its one
// guess budget, and makes every decision about them (what the history
// records, when codes stop, who answers an offer). This package
// converts types for gobind, finds peers through the phone's own
// discovery, keeps the process inside a phone's memory and passes
// core/app's events on as JSON; nothing here speaks the protocol.
//
// # Events
//
// The app implements Events, one method, told each event as JSON: the
// object core/app/event defines once for every front end (the CLI's
// --json lines, field for field; cli/README.md lists them) with the
// transfer's number as "transfer": one sequence per Node, from 1, never
// reused (Transfer.ID). A receive of several senders at once (Android;
// see Receive) is a receiver, not a transfer: its own events (codes,
// refusals, its end) carry "transfer": 0, and each sender's events carry
// that sender's transfer's number, which AcceptTransfer, DeclineTransfer
// and CancelTransfer take. A new kind of event is a new "event"
// name in that stream, never a new method, so it breaks no Kotlin or
// Swift app. The peer list and warnings come in the same stream, as
// "peers" and "warning" (see Events).
//
// # What crosses the boundary
//
// Only types gobind binds: int, int64, float64, string, bool, []byte,
// pointers to this package's structs, and the interfaces the app
// implements: Events, and HostFile and HostReader for files it reads
// itself. Go's int becomes long in Java and Int in Swift.
// Lists cross as JSON strings (items to send, the peer list, events) or
// are read a page at a time (the entries of an offer past the first
// thousand, Transfer.OfferEntriesJSON), so that a folder of a hundred
// thousand files never crosses at once.
// mobile/check-bind.sh proves that gobind skips nothing.
//
// Commands are methods: Node.Receive, Node.Send, Node.SendMany,
// Transfer.Accept, Transfer.Decline, Transfer.Cancel, Transfer.NewCode,
// Node.Peers, Node.PeerFound, Node.PeerLost, Node.StartBrowse. They
// return at once; what follows reaches the app through Events, on a Go
// thread, one call at a time and in order, ending with exactly one
// "done" or "error" event per transfer. Events calls are made from a
// queue with no lock held, so the app may answer from inside a callback
// with any command, Close included. Node.HistoryJSON reads the transfer
// history that core/app keeps in DataDir.
//
// # Trusted devices, history, clipboard
//
// What follows a transfer is core/app's to decide, as in the CLI and the
// desktop app; this package only carries it. Once a transfer has ended,
// Transfer.PinAdvice says whether to offer the person to trust the peer
// (never unasked, and with a warning when wrong codes were tried first),
// Transfer.PinWarning what to say first when the peer gave a trusted
// device's name with another key, and Transfer.Pin does it: from then on a send to that listed peer
// needs no code, and ReceiveOptions.AcceptTrusted takes its offers
// unasked. Transfer.ClipboardAdvice says whether the texts received go
// to the clipboard unasked (a trusted device's) or after asking. Every
// transfer is recorded in the history (Node.HistoryJSON).
//
// # Files the app reads itself
//
// A phone app often has no path for what a person picked: Android hands
// it a content URI, iOS a security-scoped URL. The app wraps each in a
// HostFile (name, size, modification time, and Open, whose HostReader
// returns the bytes front to back) and adds it with SendOptions.AddFile;
// Ferry reads it through core/transfer's io/fs source, with the same
// checks as a file on disk: its size and time are asked again after
// reading (a change fails as source_changed), and a resume reads the
// bytes the receiver kept to check them, so no seek is ever asked (a
// file is opened again only when those bytes differ). In Kotlin:
//
//	class UriFile(val cr: ContentResolver, val uri: Uri, val name: String, val size: Long) : HostFile {
//	    override fun name() = name
//	    override fun size() = size
//	    override fun modTimeUnixMillis() = 0L
//	    override fun open(): HostReader = object : HostReader {
//	        val s = cr.openInputStream(uri)!!
//	        override fun read(max: Long): ByteArray {
//	            val b = ByteArray(max.toInt()); val n = s.read(b)
//	            return if (n <= 0) ByteArray(0) else b.copyOf(n)
//	        }
//	        override fun close() = s.close()
//	    }
//	}
//	so.addFile(UriFile(contentResolver, uri, displayName, size))
//
// # Panics and errors
//
// A Go panic that crosses into Java or Objective-C kills the app. Every
// exported function and method recovers and returns the panic as its
// error (those without an error result return a zero value), and every
// goroutine this package starts recovers and reports with an "error"
// event of KindInternal, the stack in the message. (Goroutines inside
// core are core's to keep safe.)
//
// A failed transfer's "error" event has a "kind", one of the Kind
// constants, for the app to branch on, and for people core's words for
// the kind, "title" and "hint" (the same in every front end; an app adds
// its own buttons), and the error's own "message". Errors returned by
// commands are for people only: bad arguments, too many transfers,
// a closed Node.
//
// # Discovery on phones
//
// Ferry's own mDNS (core/discovery) lists network
// interfaces, which Android 11 and later forbid to apps, and both
// platforms want mDNS to go through their own services: NsdManager on
// Android, NWBrowser and NWListener (Bonjour) on iOS. So:
//
//   - A receiver registers Transfer.Advertisement with the platform: the
//     exact service type (ServiceType, "_ferry._tcp"), instance name,
//     port and TXT record that core/discovery would advertise, so phones
//     and desktops find each other.
//   - A sender browses with the platform, and reports each resolved
//     service with Node.PeerFound (name, addresses, port, TXT as JSON or
//     wire bytes) and each lost one with Node.PeerLost. Node.Peers and
//     the "peers" event give the merged list; SendOptions.Peer takes a peer's key.
//   - Where Ferry's own mDNS works (desktops, Android before 11, tests),
//     Node.StartBrowse and ReceiveOptions.Advertise use it instead.
//   - A typed "host:port" (SendOptions.Addr) always works.
//
// The TXT strings are v=2 (protocol version), name=device name and
// fp=key fingerprint. Their rules, and the instance name's, are
// core/app's alone (Advertisement, NewPeer): what the
// platform reports is read exactly as Ferry's own browse reads it, junk
// skipped, names cleaned of control characters, the first of repeated
// keys kept. This package only converts TXT from and to the forms the
// platforms use, a JSON object of strings and DNS wire bytes.
//
// # Memory
//
// A phone kills an app that passes its memory budget: 32 MiB for the
// iOS profile (what an app extension may keep), 64 MiB for Android,
// counted over the whole life of the process, start-up, traffic, quiet
// and teardown. The build picks a profile by build tag (core/app's
// memprofile: iOS, Android; other builds take the iOS one), and the first
// NewNode applies it to the runtime, process-wide:
//
//	profile  budget   memory limit  GC percent  transfers at once
//	ios      32 MiB   20 MiB        50          1
//	android  64 MiB   40 MiB        100         2
//
// The memory limit is the Go runtime's soft limit (debug.SetMemoryLimit,
// GOMEMLIMIT); it bounds the heap goal, well under the budget, because
// the runtime's code and stacks and the app's own side of the process
// count too. Buffers are core's: each connection holds about 640 KiB
// (core/secure's write batch and read buffer) plus the transfer's chunks
// in flight, whatever the file size. When a transfer ends, freed memory
// is returned to the OS (debug.FreeOSMemory) so that an idle app does not
// sit on its peak.
//
// "Transfers at once" counts sending and receiving together; a receive
// holds as many as it takes senders at once (ReceiveOptions.MaxTransfers,
// the profile's limit by default) for as long as it runs. iOS stays at 1
// until two are measured on a device: here, this package receiving 1 GiB
// from each of two senders at once peaked at about 17 MiB RSS with iOS's
// memory limit, against 15 MiB for one sender (TestMemoryPhoneReceivesTwo),
// within an extension's 32 MiB, but Linux is not iOS.
//
// The tests measure it: a 1 GiB transfer over loopback, each direction,
// each profile, and two 1 GiB senders at once to the phone, with the
// phone end alone in a child process; peak RSS and
// peak Go heap per phase are logged (go test -run Memory -v ./mobile),
// and a phase over budget fails.
//
// # Kotlin
//
// gobind makes Java classes in package mobile (gomobile bind -javapkg
// adds a prefix); struct fields are properties, Go's int is Long, and
// methods with an error result throw.
//
//	class FerryEvents(private val ui: Handler) : Events {
//	    override fun onEvent(eventJSON: String) {
//	        val e = JSONObject(eventJSON)
//	        val id = e.getLong("transfer")
//	        ui.post {
//	            when (e.getString("event")) {
//	                "peers" -> showPeers(e.getJSONArray("peers"))
//	                "offer" -> askUser(id, e.getString("peer_name"), e.getLong("files"), e.getLong("total_bytes"))
//	                "progress" -> bar.progress = (100 * e.getLong("done") / maxOf(1L, e.getLong("total"))).toInt()
//	                "code_changed" -> showCode(e.getString("code"))
//	                "codes_stopped" -> showStopped(e.getLong("wrong")) // its "New code" button calls t.newCode()
//	                "done" -> done(id, e.getLong("bytes"))
//	                "error" -> if (e.getString("kind") == Mobile.KindWrongCode) askCodeAgain() else show(e.getString("message"))
//	                else -> if (e.has("notice")) showNotice(e.getString("notice")) // code_longer, same_name, and any added later
//	            }
//	        }
//	    }
//	}
//
//	val node = Mobile.newNode(Config().apply { name = "Pixel 8"; dataDir = filesDir.path }, FerryEvents(handler))
//
//	// Receive: show the code, register with NsdManager, answer the offer.
//	val t = node.receive(ReceiveOptions().apply { dir = getExternalFilesDir(null)!!.path })
//	showCode(t.code())
//	val adv = t.advertisement()
//	nsd.registerService(NsdServiceInfo().apply {
//	    serviceName = adv.instanceName; serviceType = adv.serviceType; port = adv.port.toInt()
//	    JSONObject(adv.txtJSON).let { o -> o.keys().forEach { k -> setAttribute(k, o.getString(k)) } }
//	}, NsdManager.PROTOCOL_DNS_SD, registrationListener)
//	// ...when the user taps Accept: t.accept()   (or t.decline(), t.cancel())
//
//	// Send: report what NsdManager resolved, then send to a listed peer.
//	node.peerFound(PlatformPeer().apply {
//	    instanceName = info.serviceName; port = info.port.toLong()
//	    addrs = info.hostAddresses.joinToString(",") { it.hostAddress!! }
//	    txtJSON = JSONObject(info.attributes.mapValues { (_, v) -> String(v ?: ByteArray(0)) }).toString()
//	})
//	node.send(SendOptions().apply {
//	    peer = key; code = typedCode
//	    itemsJSON = JSONArray().put(JSONObject().put("path", file.path)).toString()
//	})
//
// # Swift
//
// gobind makes Objective-C classes prefixed Mobile; the Events protocol
// is MobileEventsProtocol in Swift (a proxy class takes the plain name),
// methods with an error result throw, and NewNode is a function that
// fills an NSError.
//
//	final class FerryEvents: NSObject, MobileEventsProtocol {
//	    func onEvent(_ eventJSON: String?) {
//	        guard let data = eventJSON?.data(using: .utf8),
//	              let e = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
//	              let name = e["event"] as? String, let id = e["transfer"] as? Int64 else { return }
//	        DispatchQueue.main.async {
//	            switch name {
//	            case "peers": self.showPeers(e["peers"] as? [[String: Any]] ?? [])
//	            case "offer": self.askUser(id, e["peer_name"] as? String ?? "", e["total_bytes"] as? Int64 ?? 0)
//	            case "progress": self.bar.progress = Float(e["done"] as? Int64 ?? 0) / Float(max(1, e["total"] as? Int64 ?? 1))
//	            case "codes_stopped": self.showStopped(e["wrong"] as? Int ?? 0) // "New code" calls try t.newCode()
//	            case "error": if e["kind"] as? String == MobileKindWrongCode { self.askCodeAgain() }
//	            default: break // an event this app does not know yet
//	            }
//	        }
//	    }
//	}
//
//	let cfg = MobileConfig()!
//	cfg.name = UIDevice.current.name
//	cfg.dataDir = appSupport.path
//	var err: NSError?
//	guard let node = MobileNewNode(cfg, events, &err) else { throw err! }
//
//	let opts = MobileReceiveOptions()!
//	opts.dir = documents.path
//	let t = try node.receive(opts)
//	showCode(t.code())
//	if let adv = t.advertisement() {
//	    listener.service = NWListener.Service(name: adv.instanceName, type: adv.serviceType,
//	                                          domain: nil, txtRecord: adv.txtRecord)
//	}
//	// ...when the user taps Accept: try t.accept()
//
//	let p = MobilePlatformPeer()!
//	p.instanceName = name; p.port = port; p.addrs = addresses.joined(separator: ",")
//	p.txtRecord = txtData
//	try node.peerFound(p)
//	let so = MobileSendOptions()!
//	so.peer = name; so.code = typedCode
//	so.itemsJSON = #"[{"path": "\#(fileURL.path)"}]"#
//	_ = try node.send(so)
package mobile
