// Runs ferry.wasm under Node, as a browser page would, for core/web's
// tests: no browser, the same wasm, the same JavaScript bridge.
//
//   node --experimental-websocket node_driver.js WASM WASM_EXEC_JS SPEC_FILE
//
// SPEC_FILE holds JSON: {op: "send"|"send-drop"|"receive", url, origin, code, fp, name,
// files: [{path, data (base64), mtime (ms)}], out (a folder, receive)}.
// Node's WebSocket sends no Origin, so the driver adds the one a browser
// on the page would. Each event is printed as one JSON line; the last
// line is {"result": event} or {"failed": event}.
"use strict";

const fs = require("fs");
const path = require("path");

const [wasmPath, execPath, specFile] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specFile, "utf8"));

globalThis.require = require;
globalThis.fs = fs;
globalThis.path = path;
globalThis.TextEncoder = require("util").TextEncoder;
globalThis.TextDecoder = require("util").TextDecoder;
globalThis.performance ??= require("perf_hooks").performance;
globalThis.crypto ??= require("crypto").webcrypto;

// The last WebSocket opened, so that "drop" can cut it as a lost Wi-Fi
// would.
let lastSocket = null;
const NodeWebSocket = globalThis.WebSocket;
globalThis.WebSocket = class extends NodeWebSocket {
	constructor(url) {
		super(url, { headers: { Origin: spec.origin } });
		lastSocket = this;
	}
};

require(path.resolve(execPath));

function print(o) {
	process.stdout.write(JSON.stringify(o) + "\n");
}

// files makes the picked File objects. slow makes each read of a slice
// wait 400 ms, so that a drop lands mid-transfer (the page reads 4 MiB
// slices: a 12 MiB file is still being read when the first progress
// event comes).
function files(slow) {
	return (spec.files || []).map((f) => {
		const file = new File([Buffer.from(f.data, "base64")], path.basename(f.path), { lastModified: f.mtime });
		if (slow) {
			const slice = file.slice.bind(file);
			file.slice = (...a) => {
				const b = slice(...a);
				const ab = b.arrayBuffer.bind(b);
				b.arrayBuffer = () => new Promise((r) => setTimeout(r, 400)).then(ab);
				return b;
			};
		}
		// A picked folder's files carry their path here, as in a browser.
		Object.defineProperty(file, "webkitRelativePath", { value: f.path.includes("/") ? f.path : "" });
		return file;
	});
}

function sink() {
	let fd = null;
	let name = "";
	return {
		folder: async (e) => fs.mkdirSync(path.join(spec.out, e.path), { recursive: true }),
		start: async (e) => {
			name = path.join(spec.out, e.path + ".part");
			fs.mkdirSync(path.dirname(name), { recursive: true });
			fd = fs.openSync(name, "w");
		},
		write: async (b) => fs.writeSync(fd, b),
		finish: async (ok) => {
			fs.closeSync(fd);
			if (ok) fs.renameSync(name, name.slice(0, -5));
			else fs.unlinkSync(name);
		},
	};
}

const go = new Go();
globalThis.onFerryReady = async () => {
	const opts = { url: spec.url, code: spec.code, fp: spec.fp, name: spec.name, diag: !!spec.diag, onEvent: print };
	try {
		let r;
		if (spec.op === "send") {
			r = await ferry.send({ ...opts, files: files(false) });
		} else if (spec.op === "send-drop") {
			// Cut the connection once 1 MiB is across, then send the
			// same files again from the same page: the receiver resumes.
			let cut = false;
			const onEvent = (e) => {
				print(e);
				if (e.event === "progress" && e.done >= 1 << 20 && !cut) {
					cut = true;
					lastSocket.close(4000, "dropped");
				}
			};
			try {
				await ferry.send({ ...opts, onEvent, files: files(true) });
				throw new Error("the first send was not cut");
			} catch (e) {
				print({ dropped: e });
			}
			r = await ferry.send({ ...opts, files: files(false) });
		} else {
			r = await ferry.receive({ ...opts, sink: sink() });
		}
		print({ result: r });
		process.exit(0);
	} catch (e) {
		print({ failed: e });
		process.exit(2);
	}
};
WebAssembly.instantiate(fs.readFileSync(wasmPath), go.importObject)
	.then((r) => go.run(r.instance))
	.catch((err) => {
		console.error(err);
		process.exit(1);
	});
