// Package mobile is Ferry for phones: the API that the Android and iOS
// apps, thin Kotlin and Swift shells, bind with gomobile
// (gomobile bind -target=android|ios github.com/ferry-project/ferry/mobile).
// It drives the same core as the CLI and the desktop app
// (core/transfer, core/discovery, core/secure); nothing here speaks the
// protocol.
//
// # What crosses the boundary
//
// Only types gobind binds: int, int64, float64, string, bool, []byte,
// pointers to this package's structs, and the interfaces the app
// implements: Events, and HostFile and HostReader for files it reads
// itself. Go's int becomes long in Java and Int in Swift.
// Lists cross as JSON strings (items to send, the peer list) or are read
// a page at a time (the entries of an offer or a summary), so that a
// folder of a hundred thousand files never crosses at once.
// mobile/check-bind.sh proves that gobind skips nothing.
//
// Commands are methods: Node.Receive, Node.Send, Transfer.Accept,
// Transfer.Decline, Transfer.Cancel, Node.Peers, Node.PeerFound,
// Node.PeerLost, Node.StartBrowse. They return at once; what follows
// reaches the app through Events, on a Go thread, one call at a time and
// in order, ending with exactly one OnFinished or OnFailed per transfer.
// Events calls are made from a queue with no lock held, so the app may
// answer from inside a callback with any command, Close included.
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
// goroutine this package starts recovers and reports through OnFailed
// with KindInternal, the stack in the message. (Goroutines inside core
// are core's to keep safe.)
//
// A failed transfer's Failure has a Kind, one of the Kind constants, for
// the app to branch on, and a Message for people. Errors returned by
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
//     OnPeers give the merged list; SendOptions.Peer takes a peer's key.
//   - Where Ferry's own mDNS works (desktops, Android before 11, tests),
//     Node.StartBrowse and ReceiveOptions.Advertise use it instead.
//   - A typed "host:port" (SendOptions.Addr) always works.
//
// The TXT strings are v=2 (protocol version), name=device name and
// fp=key fingerprint. Their rules, and the instance name's, are
// core/discovery's alone (TXTStrings, InstanceName, NewPeer): what the
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
// and teardown. The build picks a profile by build tag (limits_ios.go,
// limits_android.go; other builds take the iOS one), and the first
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
// The tests measure it: a 1 GiB transfer over loopback, each direction,
// each profile, with the phone end alone in a child process; peak RSS and
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
//	    override fun onPeers(peersJSON: String) { ui.post { showPeers(JSONArray(peersJSON)) } }
//	    override fun onOffer(transferID: Long, offer: Offer) {
//	        ui.post { askUser(transferID, offer.peerName, offer.files, offer.totalBytes) }
//	    }
//	    override fun onProgress(transferID: Long, progress: Progress) {
//	        ui.post { bar.progress = (100 * progress.done / maxOf(1L, progress.total)).toInt() }
//	    }
//	    override fun onFinished(transferID: Long, summary: Summary) { ui.post { done(summary.bytes) } }
//	    override fun onFailed(transferID: Long, failure: Failure) {
//	        ui.post { if (failure.kind == Mobile.KindWrongCode) askCodeAgain() else show(failure.message) }
//	    }
//	    override fun onConnected(transferID: Long, peerName: String, peerFingerprint: String, addr: String) {}
//	    override fun onAccepted(transferID: Long, totalBytes: Long) {}
//	    override fun onEntryDone(transferID: Long, path: String, outcome: String, savedAs: String) {}
//	    override fun onText(transferID: Long, name: String, text: String) {}
//	    override fun onCodeChanged(transferID: Long, code: String) { ui.post { showCode(code) } }
//	    override fun onCodesHeld(transferID: Long, untilUnixMillis: Long, wrongCodes: Long) {
//	        ui.post { showHeld(wrongCodes, untilUnixMillis) }
//	    }
//	    override fun onCodesStopped(transferID: Long, wrongCodes: Long) {
//	        ui.post { showStopped(wrongCodes) } // its "New code" button calls t.newCode()
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
//	    func onPeers(_ peersJSON: String?) { DispatchQueue.main.async { self.showPeers(peersJSON ?? "[]") } }
//	    func onOffer(_ transferID: Int64, offer: MobileOffer?) {
//	        guard let o = offer else { return }
//	        DispatchQueue.main.async { self.askUser(transferID, o.peerName, o.files, o.totalBytes) }
//	    }
//	    func onProgress(_ transferID: Int64, progress: MobileProgress?) {
//	        guard let p = progress else { return }
//	        DispatchQueue.main.async { self.bar.progress = Float(p.done) / Float(max(1, p.total)) }
//	    }
//	    func onFinished(_ transferID: Int64, summary: MobileSummary?) {}
//	    func onFailed(_ transferID: Int64, failure: MobileFailure?) {
//	        if failure?.kind == MobileKindWrongCode { DispatchQueue.main.async { self.askCodeAgain() } }
//	    }
//	    func onConnected(_ transferID: Int64, peerName: String?, peerFingerprint: String?, addr: String?) {}
//	    func onAccepted(_ transferID: Int64, totalBytes: Int64) {}
//	    func onEntryDone(_ transferID: Int64, path: String?, outcome: String?, savedAs: String?) {}
//	    func onText(_ transferID: Int64, name: String?, text: String?) {}
//	    func onCodeChanged(_ transferID: Int64, code: String?) {}
//	    func onCodesHeld(_ transferID: Int64, untilUnixMillis: Int64, wrongCodes: Int) {}
//	    func onCodesStopped(_ transferID: Int64, wrongCodes: Int) {
//	        DispatchQueue.main.async { self.showStopped(wrongCodes) } // "New code" calls try t.newCode()
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
