// Ferry's browser page: reads the code and fingerprint from the link's
// fragment, loads Ferry's core (ferry.wasm, gui/page/wasm) and drives its
// bridge, the global ferry object, whose contract is gui/page/wasm's package
// doc. Plain JavaScript, no requests beyond this device.
//
// The sections: words (sizes, durations, the words for every failure),
// the other device, the list of files, the transfer, sending, receiving,
// start, and last the loading of the core, kept apart so that how the
// core is loaded can change without touching the rest.
"use strict";

(function () {
	// Under Node, for gui/page's test of the page's wording: the words
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

	// Peer is the other device's name at the start of a sentence.
	function Peer() { return peerName.charAt(0).toUpperCase() + peerName.slice(1); }

	function defaultName() {
		const ua = navigator.userAgent;
		const os = /Android/.test(ua) ? "Android" : /iPhone/.test(ua) ? "iPhone" : /iPad/.test(ua) ? "iPad"
			: /Windows/.test(ua) ? "Windows" : /Mac OS X|Macintosh/.test(ua) ? "Mac"
			: /CrOS/.test(ua) ? "ChromeOS" : /Linux/.test(ua) ? "Linux" : "";
		return os ? "Browser on " + os : "Browser";
	}

	// An error's words are core's, the same in every front end: the error
	// event brings them (title: what happened, hint: what to do; gui/wasm's
	// doc). The page says them as sentences, names the other device where
	// they say "the other device", and adds after them only what this page
	// offers to do about the kind (affordances): a QR code to scan, its
	// buttons. It words no kind itself.
	let cancelledHere = false;
	const again = () => mode === "send" ? "Press Send to try again." : "Press Receive to try again.";
	const affordances = {
		wrong_code: () => "Scan the QR code it shows now.",
		code_retired: () => "Scan its new QR code.",
		codes_stopped: () => "Scan its new QR code when it shows one.",
		not_ferry: () => "Scan the QR code again, or open the link the other device shows.",
		incompatible_version: () => "Open the link again from the other device: it serves its own page.",
		protocol: () => "Open the link again from the other device.",
		cancelled: () => (cancelledHere ? "You pressed Cancel. " : "") + again(),
		connection_lost: () => mode === "send" ? "Press Send again with the same files." : again(),
		source_changed: () => "Pick it again and press Send.",
		busy: again, codes_held: again, timeout: again, verify: again, damaged: again, failure: again,
	};

	// sentence is core's clause s as a sentence, the other device named.
	function sentence(s) {
		s = String(s || "").replace(/\bthe other device\b/g, () => peerName);
		return s ? s.charAt(0).toUpperCase() + s.slice(1) + "." : "";
	}

	// ---- the other device ----------------------------------------------

	function showPeer(fp, match) {
		$("peer-role").textContent = mode === "send" ? "Sending to" : "Receiving from";
		$("peer-name").textContent = peerName;
		$("peer-avatar").textContent = (peerName.match(/[\p{L}\p{N}]/u) || ["?"])[0].toUpperCase();
		$("peer-fp").textContent = fp || "not in the link";
		const badge = $("fp-badge"), explain = $("fp-explain");
		badge.hidden = false;
		explain.hidden = true;
		if (match === true) {
			badge.className = "badge ok";
			badge.textContent = "Matches the QR code";
		} else if (match === false) {
			badge.className = "badge bad";
			badge.textContent = "Does not match the QR code";
			explain.hidden = false;
			explain.textContent = "This is not the device you scanned, though it knew the code. If you did not expect that, cancel, and send it nothing more.";
		} else if (!link.fp) {
			badge.className = "badge warn";
			badge.textContent = "No fingerprint in the link to check";
		} else {
			badge.className = "badge pending";
			badge.textContent = "Checked when it answers";
		}
	}

	// ---- results -------------------------------------------------------

	// say tells a screen reader s: politely, or at once when urgent.
	const saying = {};
	function say(s, urgent) {
		const id = urgent ? "alarm" : "announce";
		// The same words again are a new announcement only as a change:
		// empty, then fill; a newer word replaces one not yet said.
		$(id).textContent = "";
		clearTimeout(saying[id]);
		saying[id] = setTimeout(() => { $(id).textContent = s; }, 50);
	}

	function result(how, title, hint, detail) {
		say(title + (hint ? " " + hint : ""), how === "bad");
		const r = $("result");
		r.className = "result " + how;
		$("result-title").textContent = title;
		$("result-hint").textContent = hint || "";
		$("result-detail").textContent = detail || "";
		$("result-detail").hidden = !detail;
		r.hidden = false;
	}

	function failed(e) {
		const more = affordances[e.kind];
		const hint = [sentence(e.hint), more ? more() : ""].filter(Boolean).join(" ");
		// Without core's words (the core itself failed), the error's own
		// message is all there is to say; with them, the core's own
		// message too for a kind that says little by itself, or one whose
		// cause differs (a sink that refused a file says why).
		const title = e.title ? sentence(e.title).slice(0, -1) : sentence(e.message);
		const detail = e.title && (e.kind === "failure" || e.kind === "refused_path") ? e.message : "";
		result(e.kind === "cancelled" ? "warn" : "bad", title, hint || again(), detail);
	}

	// ---- the list of files ---------------------------------------------

	// The list shows at most maxRows rows (a picked folder may hold
	// thousands of files); the rest are counted below it.
	const maxRows = 300;
	let rows = new Map(); // entry path -> {li, size, state}

	// extOf is what the file icon shows: a file's extension, short.
	function extOf(path) {
		const name = path.split("/").pop();
		const dot = name.lastIndexOf(".");
		return dot > 0 && name.length - dot <= 5 ? name.slice(dot + 1) : "";
	}

	function el(tag, cls, txt) {
		const e = document.createElement(tag);
		if (cls) e.className = cls;
		if (txt !== undefined) e.textContent = txt;
		return e;
	}

	// fillList shows items ({path, size}) as waiting rows; removable
	// gives each a button that takes it off the list.
	function fillList(items, title, removable) {
		const ul = $("list");
		ul.textContent = "";
		rows = new Map();
		for (const it of items.slice(0, maxRows)) {
			const li = el("li");
			li.dataset.state = "waiting";
			const icon = el("span", "file-icon", extOf(it.path) || "·");
			icon.setAttribute("aria-hidden", "true");
			const name = el("span", "file-name", it.path);
			name.title = it.path;
			const m = el("span", "file-meta");
			const state = el("span", "file-state", "");
			m.append(el("span", "", bytes(it.size)), state);
			const bar = el("span", "file-bar");
			bar.append(el("span"));
			bar.hidden = true;
			li.append(icon, name, m, bar);
			if (removable) {
				const x = el("button", "remove", "×");
				x.type = "button";
				x.setAttribute("aria-label", "Remove " + it.path);
				x.onclick = () => removePicked(it.path);
				li.append(x);
			} else {
				const t = el("span", "tick");
				t.setAttribute("aria-hidden", "true");
				li.append(t);
			}
			ul.append(li);
			rows.set(it.path, { li, size: it.size, state, bar, done: false });
		}
		const more = items.length - Math.min(items.length, maxRows);
		$("list-more").hidden = more === 0;
		$("list-more").textContent = more ? `and ${count(more, "more file", "more files")}` : "";
		$("list-title").textContent = title;
		$("list-section").hidden = items.length === 0;
	}

	function setRow(path, state, words, frac) {
		const r = rows.get(path);
		if (!r) return;
		r.li.dataset.state = state;
		r.state.textContent = words ? "· " + words : "";
		if (frac !== undefined) r.frac = frac;
		r.bar.hidden = !(state === "sending" || (state === "stopped" && r.frac > 0 && r.frac < 1));
		r.bar.firstChild.style.width = Math.round(Math.min(1, r.frac || 0) * 100) + "%";
		const t = r.li.querySelector(".tick");
		if (t) t.textContent = state === "done" ? "✓" : "";
	}

	// listWaiting puts every row back to waiting, for a new transfer.
	function listWaiting() {
		for (const [path, r] of rows) { r.done = false; r.frac = 0; setRow(path, "waiting", "Waiting"); }
		for (const b of $("list").querySelectorAll(".remove")) b.hidden = true;
	}

	// ---- keeping the screen on -------------------------------------------
	//
	// Most phones stop a page whose screen locks. navigator.wakeLock keeps
	// the screen on, but only in a secure context (https, or the device's
	// own loopback): a page opened from a LAN address over plain HTTP, as
	// a phone opens the link, has no wakeLock at all. A silent looping
	// video, the old way round, holds Chromium's lock only while it plays
	// aloud or fills a fifth of the view (blink's VideoWakeLock), so it is
	// no way round here. Where the lock cannot be had, the page says so
	// for as long as the transfer runs, and what a lock costs: a send
	// resumes when the same files are picked again (the page keeps its key
	// for the receiver, core.js), a receive starts its cut file over.
	let awake = false; // a transfer runs and wants the screen on
	let lock = null;   // the WakeLockSentinel held, if any

	async function keepAwake(on) {
		awake = on;
		if (!on) {
			$("awake-note").hidden = true;
			const l = lock;
			lock = null;
			if (l) l.release().catch(() => {});
			return;
		}
		if (lock && !lock.released) return;
		try {
			if (!navigator.wakeLock) throw new Error("no wake lock on a plain HTTP page");
			const l = await navigator.wakeLock.request("screen");
			if (!awake) { l.release().catch(() => {}); return; }
			lock = l;
			$("awake-note").hidden = true;
		} catch (e) {
			// Refused (no secure context, a battery saver, a hidden page).
			if (!awake) return;
			$("awake-note").textContent = mode === "send"
				? "Keep this screen on until the files are sent: this page cannot keep it on by itself. If it locks, open the link again and pick the same files: what has arrived is not sent again."
				: "Keep this screen on until the files arrive: this page cannot keep it on by itself. If it locks, what has not arrived has to be sent again.";
			$("awake-note").hidden = false;
		}
	}

	// The browser lets go of the lock when the page is hidden (another app,
	// the screen locked); it is asked for again when the page is back.
	document.addEventListener("visibilitychange", () => {
		if (awake && document.visibilityState === "visible") keepAwake(true);
	});

	// ---- what leaving the page loses -------------------------------------
	//
	// A reload, or a phone's browser that drops the page behind a locked
	// screen, ends the transfer with the page. While one runs, the page
	// notes in sessionStorage (this tab's, kept across a reload, never
	// sent anywhere) what it is moving, so that the page that comes back
	// says what was lost and what to do: a send goes on where it stopped
	// when the same files are picked again (its key is kept, core.js); a
	// receiving page keeps no part of a file that had not arrived whole
	// (holding it for a resume would cost memory a phone does not have),
	// so the sender's side sends everything again to the page that comes
	// back (core/app's Page.Again).
	const leftKey = "ferry-moving";
	function noteMoving(rec) {
		try {
			if (rec) sessionStorage.setItem(leftKey, JSON.stringify(rec));
			else sessionStorage.removeItem(leftKey);
		} catch (e) { /* private mode: nothing to say after a reload */ }
	}

	function sayLeft() {
		let rec = null;
		try { rec = JSON.parse(sessionStorage.getItem(leftKey) || "null"); } catch (e) { /* none */ }
		noteMoving(null);
		if (!rec || rec.mode !== mode || !(rec.files > 0)) return;
		const who = rec.peer || peerName;
		if (mode === "send") {
			result("warn", `The send to ${who} stopped when this page was left.`,
				`Pick the same ${rec.files === 1 ? "file" : "files"} again and press Send: what had arrived is not sent again.`);
			return;
		}
		const lost = rec.files - (rec.saved || 0);
		if (lost <= 0) return;
		const had = rec.saved > 0 ? `${count(rec.saved, "file", "files")} had arrived and ${rec.saved === 1 ? "is" : "are"} in this browser's downloads; ` : "";
		result("warn", `The files from ${who} stopped arriving when this page was left.`,
			`${had}${count(lost, "file", "files")} (${bytes(rec.bytes - (rec.savedBytes || 0))}) did not arrive. Press Receive, and ${who} sends its files again.`);
	}

	// ---- the transfer --------------------------------------------------

	let received = false; // a receive went through
	let moving = null;    // what the running transfer moves, as noteMoving keeps it
	let current = ""; // the entry now moving
	let quarter = 0;  // the last quarter of the whole said aloud

	function working(on) {
		keepAwake(on);
		$("working").hidden = !on;
		$("setup").hidden = on;
		$("name-section").hidden = on;
		$("actions").hidden = on;
		$("clear").hidden = on || mode !== "send" || chosen.length === 0;
		if (!on) for (const b of $("list").querySelectorAll(".remove")) b.hidden = false;
	}

	function stage(s) {
		if ($("stage").textContent === s) return;
		$("stage").textContent = s;
		say(s);
	}

	// pending: nothing moves yet (connecting, or waiting for the other
	// end to accept): no bar, only what is to go, when known.
	function pending(total) {
		$("working").classList.add("pending");
		$("amount").textContent = total > 0 ? `${bytes(total)} to ${mode === "send" ? "send" : "receive"}` : "";
	}

	function whole(done, total, rate, eta) {
		$("working").classList.remove("pending");
		const f = total > 0 ? Math.min(1, done / total) : 0;
		const pct = Math.floor(f * 100);
		$("bar").firstChild.style.width = (f * 100).toFixed(1) + "%";
		$("bar").setAttribute("aria-valuenow", String(pct));
		$("bar").setAttribute("aria-valuetext", `${pct} percent, ${bytes(done)} of ${bytes(total)}`);
		$("percent").textContent = pct + "%";
		// A quarter more is worth a word to a screen reader; every percent
		// is not.
		const q = Math.floor(pct / 25);
		if (q > quarter && q < 4) { quarter = q; say(`${pct} percent, ${bytes(done)} of ${bytes(total)}`); }
		$("amount").textContent = `${bytes(done)} of ${bytes(total)}`;
		const left = seconds(eta);
		$("rate").textContent = (rate > 0 ? `${bytes(rate)}/s` : "") + (rate > 0 && left ? " · " : "") + (left ? `${left} left` : "");
	}

	const verb = () => mode === "send" ? "Sending" : "Receiving";

	function onEvent(e) {
		switch (e.event) {
		case "connected":
			if (e.peer_name) peerName = e.peer_name;
			showPeer(e.peer_fingerprint, link.fp ? e.fp_match : undefined);
			stage(mode === "send" ? `Waiting for ${peerName} to accept…` : "Connected. Waiting for the files…");
			break;
		case "offer":
			if (mode === "receive") {
				const list = (e.entries || []).filter((x) => x.kind !== "folder");
				fillList(list, `${count(e.files, "file", "files")} · ${bytes(e.total_bytes)}`, false);
				listWaiting();
				const more = (e.entries_total || 0) - (e.entries_listed || 0);
				if (more > 0) { $("list-more").hidden = false; $("list-more").textContent = `and ${count(more, "more entry", "more entries")}`; }
				moving = { mode, peer: peerName, files: e.files, bytes: e.total_bytes, saved: 0, savedBytes: 0 };
				noteMoving(moving);
			}
			stage(`${count(e.files, "file", "files")}, ${bytes(e.total_bytes)} coming.`);
			pending(e.total_bytes);
			break;
		case "accepted":
			stage(mode === "send" ? `${Peer()} accepted. Sending…` : "Receiving…");
			whole(0, e.total_bytes, 0, 0);
			break;
		case "progress": {
			whole(e.done, e.total, e.rate, e.eta);
			if (e.current) {
				if (current !== e.current) {
					// The one before has gone out whole; the other end
					// checks it and says so with an "entry" event.
					const prev = rows.get(current);
					if (prev && !prev.done) setRow(current, "checking", mode === "send" ? "Sent, being checked" : "Checking");
					current = e.current;
					// "Sending 2 of 3…": the place of the file in the list
					// (its order is the offer's); past the list's end, its name.
					const at = [...rows.keys()].indexOf(current);
					stage(at >= 0 ? `${verb()} ${at + 1} of ${rows.size}…` : `${verb()} ${current.split("/").pop()}…`);
				}
				const r = rows.get(e.current);
				if (r && !r.done) {
					const f = e.current_size > 0 ? e.current_done / e.current_size : 0;
					if (e.current_size > 0 && f >= 1) setRow(e.current, "checking", mode === "send" ? "Sent, being checked" : "Checking");
					else setRow(e.current, "sending", `${verb()} ${Math.floor(f * 100)}%`, f);
				}
			}
			break;
		}
		case "entry": {
			if (e.kind === "folder") break;
			const r = rows.get(e.path);
			if (r) r.done = true;
			const how = { resumed: "Checked · continued where it stopped", skipped: "Already there" }[e.outcome] || "Checked";
			setRow(e.path, "done", how);
			if (moving && mode === "receive" && e.kind === "file") {
				moving.saved++;
				moving.savedBytes += e.size || 0;
				noteMoving(moving);
			}
			break;
		}
		}
	}

	function finished(d) {
		const took = seconds(d.duration);
		const title = `${mode === "send" ? "Sent" : "Received"} ${count(d.entries, "item", "items")} ${mode === "send" ? "to" : "from"} ${peerName}. Every file was checked.`;
		let how = bytes(d.bytes) + (took ? ` in ${took}` : "");
		if (d.duration > 0 && d.bytes > 0) how += `, ${bytes(d.bytes / d.duration)}/s`;
		const notes = [how + "."];
		if (d.resumed_bytes > 0) notes.push(`${bytes(d.resumed_bytes)} had already arrived before the connection dropped.`);
		if (d.skipped_bytes > 0) notes.push(`${bytes(d.skipped_bytes)} ${d.skipped_bytes === 1 ? "was" : "were"} already there and not sent again.`);
		if (mode === "receive") notes.push("The files are in this browser's downloads.");
		result("ok", title, notes.join(" "));
	}

	async function run(op) {
		$("result").hidden = true;
		cancelledHere = false;
		current = "";
		quarter = 0;
		pending(mode === "send" ? chosen.reduce((a, f) => a + f.size, 0) : 0);
		listWaiting();
		working(true);
		stage("Connecting…");
		const name = $("name").value.trim() || defaultName();
		try { localStorage.setItem("ferry-name", name); } catch (e) { /* private mode */ }
		moving = null;
		if (mode === "send") {
			moving = { mode, peer: peerName, files: chosen.length, bytes: chosen.reduce((a, f) => a + f.size, 0) };
			noteMoving(moving);
		}
		try {
			const d = await op({ code: link.code, fp: link.fp, name, onEvent });
			finished(d);
			if (mode === "send") {
				sent = true;
				$("send").textContent = "Send them again";
				// Nothing is left to resume: the key kept for a reload
				// (core.js) goes, and the next load of the link makes a new
				// one. This page goes on with the one it has.
				try { localStorage.removeItem("ferry-key:" + link.fp); } catch (e) { /* private mode */ }
			}
			else received = true;
		} catch (e) {
			for (const [path, r] of rows) {
				if (!r.done && r.li.dataset.state !== "waiting") setRow(path, "stopped", r.frac > 0 && r.frac < 1 ? `Stopped at ${Math.floor(r.frac * 100)}%` : "Stopped", r.frac);
			}
			failed(e && e.event === "error" ? e : { kind: "failure", message: String(e) });
			if (mode === "send" && chosen.length) $("send").textContent = "Send again";
		} finally {
			// The page says itself how this one ended.
			moving = null;
			noteMoving(null);
			working(false);
			// What the other device sent has arrived: a new send from it
			// comes with a new link.
			if (received) for (const id of ["setup", "name-section", "actions"]) $(id).hidden = true;
			$("result").scrollIntoView({ block: "nearest" });
		}
	}

	// ---- sending -------------------------------------------------------

	// chosen is every file picked or dropped, in order; a file's path is
	// its webkitRelativePath (a picked folder) or its name, as the core
	// names it. Picking again adds; the same path again replaces.
	let chosen = [];
	let sent = false; // the files in the list went through
	const pathOf = (f) => f.webkitRelativePath || f.name;

	function addPicked(files) {
		// After a send that worked, what is picked next is a new set.
		if (sent) { chosen = []; sent = false; }
		const byPath = new Map(chosen.map((f) => [pathOf(f), f]));
		for (const f of files) byPath.set(pathOf(f), f);
		chosen = [...byPath.values()];
		showPicked();
	}

	function removePicked(path) {
		chosen = chosen.filter((f) => pathOf(f) !== path);
		showPicked();
		($("list").querySelector(".remove") || $("files")).focus();
	}

	function showPicked() {
		const total = chosen.reduce((a, f) => a + f.size, 0);
		fillList(chosen.map((f) => ({ path: pathOf(f), size: f.size })),
			chosen.length ? `${count(chosen.length, "file", "files")} · ${bytes(total)}` : "", true);
		$("send").disabled = chosen.length === 0;
		$("send").textContent = chosen.length ? `Send ${count(chosen.length, "file", "files")}` : "Send";
		sent = false;
		$("clear").hidden = chosen.length === 0;
		$("result").hidden = true;
	}

	// Dropping files on the page (a desktop browser) adds them as picking
	// does. A dropped folder cannot be sent as one (the browser gives no
	// path for what is inside it here): the page says to pick it instead.
	function dropping() {
		let depth = 0;
		const files = (e) => e.dataTransfer && [...e.dataTransfer.types].includes("Files");
		const veil = (on) => { $("drop-veil").hidden = !on; document.body.classList.toggle("dragging", on); };
		document.addEventListener("dragenter", (e) => {
			if (!files(e) || $("send-view").hidden || !$("working").hidden) return;
			e.preventDefault(); depth++; veil(true);
		});
		document.addEventListener("dragleave", () => { if (depth > 0 && --depth === 0) veil(false); });
		document.addEventListener("dragover", (e) => {
			if (!files(e)) return;
			e.preventDefault();
			e.dataTransfer.dropEffect = $("send-view").hidden || !$("working").hidden ? "none" : "copy";
		});
		document.addEventListener("drop", (e) => {
			if (!files(e)) return;
			e.preventDefault();
			depth = 0; veil(false);
			if ($("send-view").hidden || !$("working").hidden) return;
			const items = [...(e.dataTransfer.items || [])];
			const folders = items.filter((it) => it.webkitGetAsEntry && (it.webkitGetAsEntry() || {}).isDirectory).length;
			const dropped = [...e.dataTransfer.files].filter((f, i) => !(items[i] && items[i].webkitGetAsEntry && (items[i].webkitGetAsEntry() || {}).isDirectory));
			if (dropped.length) addPicked(dropped);
			if (folders) result("warn", `${count(folders, "folder", "folders")} cannot be dropped here.`, "Use Pick a folder to send a folder with everything in it.");
		});
	}

	// ---- receiving -----------------------------------------------------

	// A sink that keeps each file in memory and hands it to the browser's
	// downloads when it is verified, for a page without save.js.
	// window.ferrySink, which save.js defines, makes a better one.
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

	// ready runs once the core's bridge is there.
	function ready() {
		$("loading").hidden = true;
		// A sending page's key is kept in this browser for the device the
		// link names until a send to it has gone through (core.js), so
		// that a reload resumes a cut send.
		$("own-fp").textContent = (link.fp && mode === "send" ? `This page's key, which this browser keeps for ${peerName} until a send has gone through: ` : "This page's key for this visit: ") + ferry.fingerprint;
		if (!link.code) {
			result("bad", "This link has no code in it.", "Scan the QR code again, or type the whole link the other device shows.");
			return;
		}
		$("setup").hidden = false;
		$("name-section").hidden = false;
		$("actions").hidden = false;
		sayLeft();
		if (mode === "send") {
			$("send-view").hidden = false;
			$("send").onclick = () => run((o) => ferry.send({ ...o, files: chosen }));
		} else {
			$("receive-view").hidden = false;
			$("send").hidden = true;
			$("receive").hidden = false;
			$("receive").onclick = () => run((o) => ferry.receive({ ...o, sink: makeSink() }));
		}
	}

	function init() {
		document.title = mode === "send" ? `Ferry · send to ${peerName}` : `Ferry · receive from ${peerName}`;
		$("title").textContent = mode === "send" ? `Ferry: send files to ${peerName}` : `Ferry: receive files from ${peerName}`;
		showPeer(link.fp);
		let name = "";
		try { name = localStorage.getItem("ferry-name") || ""; } catch (e) { /* private mode */ }
		$("name").value = name || defaultName();
		$("name-note").textContent = `${Peer()} sees this name.`;
		$("files").onchange = () => { addPicked($("files").files); $("files").value = ""; };
		$("folder").onchange = () => { addPicked($("folder").files); $("folder").value = ""; };
		$("clear").onclick = () => { chosen = []; showPicked(); $("files").focus(); };
		if (!("webkitdirectory" in $("folder"))) $("folder-button").hidden = true;
		$("cancel").onclick = () => { cancelledHere = true; stage("Cancelling…"); ferry.cancel(); };
		dropping();
		loadCore(ready, (err) => {
			$("loading").hidden = true;
			result("bad", "This browser could not start Ferry's page.",
				"Try a recent Chrome, Firefox, Safari or Edge, or send with the Ferry app.", String(err));
		});
	}

	// ---- loading the core ------------------------------------------------
	//
	// loadCore waits for the core and calls onReady once the bridge (the
	// global ferry) is installed, or onFail(message). core.js (index.html)
	// runs ferry.wasm in a Web Worker and calls onFerryReady or
	// onFerryFailed; everything about where the core runs lives there.
	function loadCore(onReady, onFail) {
		window.onFerryFailed = onFail;
		if (window.ferry && ferry.ready) onReady();
		else window.onFerryReady = onReady;
	}

	init();
})();
