// Ferry's browser page: reads the code and fingerprint from the link's
// fragment, loads ferry.wasm (gui/wasm) and drives its bridge
// (the global ferry object; its contract is gui/wasm's package
// doc). Plain JavaScript, no requests beyond this device.
"use strict";

(function () {
	// Under Node, for core/web's test of the page's wording: the words
	// alone, before anything touches a document.
	if (typeof module === "object" && typeof document === "undefined") {
		module.exports = { bytes, seconds, count };
		return;
	}

	const $ = (id) => document.getElementById(id);
	const meta = (n) => (document.querySelector(`meta[name="${n}"]`) || {}).content || "";

	const frag = new URLSearchParams(location.hash.slice(1));
	const link = { code: frag.get("code") || "", fp: frag.get("fp") || "" };
	const mode = meta("ferry-mode") === "receive" ? "receive" : "send";
	let peerName = meta("ferry-name") || "the other device";

	// ---- words -------------------------------------------------------

	// count(1, "file", "files") is "1 file"; count(2, ...) "2 files".
	function count(n, one, many) {
		return n + " " + (n === 1 ? one : many);
	}

	// bytes(n) is a size or, with "/s" after it, a rate: whole bytes under
	// 1000 ("1 byte", "338 bytes"), then kB, MB... in steps of 1000 (as the
	// app says them) with one decimal under 10. A figure that would round
	// up to 1000 takes the next unit: never "1000 kB".
	function bytes(n) {
		n = Math.max(0, Number(n) || 0);
		if (Math.round(n) < 1000) return count(Math.round(n), "byte", "bytes");
		const u = ["kB", "MB", "GB", "TB", "PB"];
		let i = -1;
		while (i < u.length - 1 && (i < 0 || n >= 999.5)) { n /= 1000; i++; }
		return (n < 9.95 ? n.toFixed(1) : n.toFixed(0)) + " " + u[i];
	}

	// seconds(s) is a duration to read: "3 s", "1 min 5 s", "2 min",
	// "1 h 4 min"; "" when unknown. Whole seconds, rounded up.
	function seconds(s) {
		if (!isFinite(s) || s <= 0) return "";
		const t = Math.ceil(s);
		if (t < 60) return t + " s";
		const m = Math.floor(t / 60), r = t % 60;
		if (m < 60) return m + " min" + (r ? " " + r + " s" : "");
		const h = Math.floor(m / 60), rm = m % 60;
		return h + " h" + (rm ? " " + rm + " min" : "");
	}

	function defaultName() {
		const ua = navigator.userAgent;
		const os = /Android/.test(ua) ? "Android" : /iPhone/.test(ua) ? "iPhone" : /iPad/.test(ua) ? "iPad"
			: /Windows/.test(ua) ? "Windows" : /Mac OS X|Macintosh/.test(ua) ? "Mac"
			: /CrOS/.test(ua) ? "ChromeOS" : /Linux/.test(ua) ? "Linux" : "";
		return os ? "Browser on " + os : "Browser";
	}

	function text(el, s) { el.textContent = s; return el; }

	function showPeer(fp, match) {
		const p = $("peer");
		p.textContent = "";
		p.append((mode === "send" ? "Sending to " : "Receiving from ") );
		const b = document.createElement("strong");
		b.textContent = peerName;
		p.append(b, document.createElement("br"), "Fingerprint ");
		const f = document.createElement("span");
		f.className = "fp";
		f.textContent = fp || "(not in the link)";
		p.append(f);
		if (match === true) {
			p.append(" ", text(Object.assign(document.createElement("span"), { className: "match" }),
				"✓ matches the QR code"));
		} else if (match === false) {
			p.append(" ", text(Object.assign(document.createElement("span"), { className: "mismatch" }),
				"✗ does not match the QR code: this is not the device you scanned"));
		}
	}

	function result(ok, msg, hint) {
		const r = $("result");
		r.hidden = false;
		r.className = ok ? "ok" : "bad";
		r.textContent = msg;
		if (hint) r.append(text(Object.assign(document.createElement("p"), { className: "hint note" }), hint));
	}

	const errorWords = {
		wrong_code: () => [`${peerName} did not accept the code in this link.`,
			"Scan the QR code it shows now and try again. It counts wrong codes and stops taking them after a few."],
		code_retired: () => [`That code is no longer valid: ${peerName} now shows a new one.`, "Scan its new QR code."],
		codes_held: () => [`${peerName} is holding back codes after several wrong ones.`, "Wait a minute, then try again."],
		busy: () => [`${peerName} is busy with another transfer.`, "Try again when it has finished."],
		declined: () => [`${peerName} declined.`, ""],
		cancelled: () => ["Cancelled.", ""],
		connection_lost: () => ["The connection dropped.",
			mode === "send" ? "Press Send again with the same files: it continues where it stopped." : "Press Receive to try again."],
		timeout: () => [`${peerName} stopped answering.`, "Check that both devices are on the same Wi-Fi, then try again."],
		unreachable: () => [`Cannot reach ${peerName}.`, "Check that this device is on the same Wi-Fi and that the other one is still waiting."],
		verify: () => ["A file arrived damaged and was not kept.", "Try again."],
		source_changed: () => ["A file changed while it was being sent.", "Pick it again and send again."],
		no_space: () => [`${peerName} does not have enough free space for these files.`, ""],
	};

	function failed(e) {
		const w = (errorWords[e.kind] || (() => ["It did not work: " + e.message, e.hint || ""]))();
		result(false, w[0], w[1]);
	}

	// ---- progress ------------------------------------------------------

	function working(on, stage) {
		$("working").hidden = !on;
		$("setup").hidden = on;
		if (stage) $("stage").textContent = stage;
	}

	function onEvent(e) {
		switch (e.type) {
		case "connected":
			if (e.peer_name) peerName = e.peer_name;
			showPeer(e.peer_fingerprint, link.fp ? e.fp_match : undefined);
			$("stage").textContent = mode === "send" ? `Waiting for ${peerName} to accept…` : "Connected.";
			break;
		case "offer":
			$("stage").textContent = `${count(e.files, "file", "files")}, ${bytes(e.total_bytes)} coming.`;
			break;
		case "accepted":
			$("stage").textContent = mode === "send" ? `${peerName} accepted. Sending…` : "Receiving…";
			break;
		case "progress": {
			$("bar").value = e.total > 0 ? e.done / e.total : 0;
			const left = seconds(e.eta);
			$("rate").textContent = `${bytes(e.done)} of ${bytes(e.total)}` + (e.rate > 0 ? ` · ${bytes(e.rate)}/s` : "") + (left ? ` · ${left} left` : "");
			if (e.current) $("stage").textContent = (mode === "send" ? "Sending " : "Receiving ") + e.current;
			break;
		}
		case "entry": {
			if (e.kind === "folder") break;
			const li = document.createElement("li");
			const how = { received: "", resumed: " (continued where it stopped)", skipped: " (already there)" }[e.outcome] || "";
			li.textContent = e.path + how;
			$("done-list").append(li);
			break;
		}
		}
	}

	function finished(d) {
		const took = seconds(d.duration);
		let msg = `${mode === "send" ? "Sent" : "Received"} ${count(d.entries, "item", "items")} (${bytes(d.bytes)}) ${mode === "send" ? "to" : "from"} ${peerName}` +
			(took ? ` in ${took}` : "");
		if (d.duration > 0 && d.bytes > 0) msg += `, ${bytes(d.bytes / d.duration)}/s`;
		msg += ". Every file was checked.";
		const notes = [];
		if (d.resumed_bytes > 0) notes.push(`${bytes(d.resumed_bytes)} had already arrived before the connection dropped.`);
		if (d.skipped_bytes > 0) notes.push(`${bytes(d.skipped_bytes)} ${d.skipped_bytes === 1 ? "was" : "were"} already there and not sent again.`);
		result(true, msg, notes.join(" "));
	}

	async function run(op) {
		$("result").hidden = true;
		$("done-list").textContent = "";
		$("bar").value = 0;
		$("rate").textContent = "";
		working(true, "Connecting…");
		const name = $("name").value.trim() || defaultName();
		try { localStorage.setItem("ferry-name", name); } catch (e) { /* private mode */ }
		try {
			const d = await op({ code: link.code, fp: link.fp, name, onEvent });
			finished(d);
		} catch (e) {
			failed(e && e.type === "error" ? e : { kind: "failure", message: String(e) });
		} finally {
			working(false);
		}
	}

	// ---- sending -------------------------------------------------------

	function picked() {
		return [...$("files").files, ...$("folder").files];
	}

	function updatePicked() {
		const fs = picked();
		const total = fs.reduce((a, f) => a + f.size, 0);
		$("picked").textContent = fs.length ? `${count(fs.length, "file", "files")}, ${bytes(total)}` : "Nothing picked yet.";
		$("send").disabled = fs.length === 0;
	}

	// ---- receiving -----------------------------------------------------

	// A sink that keeps each file in memory and hands it to the browser's
	// downloads when it is verified: a first version, for files that fit
	// in memory. window.ferrySink, when a script defines it, makes a
	// streaming one instead.
	function memorySink() {
		let chunks = [];
		let entry = null;
		return {
			start: async (e) => { entry = e; chunks = []; },
			write: async (b) => { chunks.push(b); },
			finish: async (ok) => {
				if (ok) {
					const url = URL.createObjectURL(new Blob(chunks));
					const a = Object.assign(document.createElement("a"), { href: url, download: entry.path.split("/").pop() });
					document.body.append(a);
					a.click();
					a.remove();
					setTimeout(() => URL.revokeObjectURL(url), 60000);
				}
				chunks = [];
			},
		};
	}

	function makeSink() {
		return typeof window.ferrySink === "function" ? window.ferrySink() : memorySink();
	}

	// ---- start -----------------------------------------------------------

	function ready() {
		$("setup").hidden = false;
		$("own-fp").textContent = "This page's key for this visit: " + ferry.fingerprint;
		if (!link.code) {
			result(false, "This link has no code in it.", "Scan the QR code again, or type the whole link the other device shows.");
			return;
		}
		if (mode === "send") {
			$("send-view").hidden = false;
			$("send").onclick = () => run((o) => ferry.send({ ...o, files: picked() }));
		} else {
			$("receive-view").hidden = false;
			$("receive").onclick = () => run((o) => ferry.receive({ ...o, sink: makeSink() }));
		}
	}

	function init() {
		showPeer(link.fp);
		let name = "";
		try { name = localStorage.getItem("ferry-name") || ""; } catch (e) { /* private mode */ }
		$("name").value = name || defaultName();
		$("files").onchange = updatePicked;
		$("folder").onchange = updatePicked;
		if (!("webkitdirectory" in $("folder"))) $("folder-button").hidden = true;
		$("cancel").onclick = () => ferry.cancel();

		// core.js runs ferry.wasm in a worker and calls these.
		window.onFerryFailed = (msg) => result(false, "This browser could not start Ferry's page.", msg);
		if (window.ferry && ferry.ready) ready();
		else window.onFerryReady = ready;
	}

	init();
})();
