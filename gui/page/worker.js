// worker.js: the dedicated Web Worker that runs ferry.wasm (gui/page/wasm),
// off the page's main thread. core.js starts it from a Blob made of Go's
// wasm_exec.js followed by this file (both fetched with their
// Subresource Integrity hashes, so the page's hash still covers what
// runs) and talks to it by messages; this file turns those messages
// into calls of the wasm's own ferry object, which Go sets on the
// worker's global, and its events, results and sink calls back into
// messages.
//
// Messages from the page:
//   {type: "init", wasm, integrity, key}     fetch, compile (while it
//                                            streams) and run ferry.wasm,
//                                            with key (32 bytes or null)
//                                            as its device's key
//   {type: "send", id, opts}                 opts.files: File objects
//   {type: "receive", id, opts}              the sink stays on the page
//   {type: "cancel"}
//   {type: "sink-done", id, n, error}        the page's sink answered
// Messages to the page:
//   {type: "ready", fingerprint} | {type: "failed", message}
//   {type: "prims", cipher, hash}            the fast primitives
//                                            (prims.js) are in use from now;
//                                            cipher: whose ChaCha20-Poly1305
//                                            ("simd", "libsodium", or ""
//                                            for Go's), hash: BLAKE3 too
//   {type: "event", id, event}              event: core/app/event's JSON
//                                            form, {event: NAME, ...}
//   {type: "end", id, ok, value}             the operation's promise
//   {type: "sink", id, n, method, arg}       a call of the page's sink
//                                            (method "deliver": a
//                                            gathering sink's whole file,
//                                            arg a Blob)
//
// A picked File is read here (gui/page/wasm) in 4 MiB slices of one
// stream, the next one asked for while this one is hashed and sealed,
// each into the same buffer (ferryFileSlices). The receiving sink is the
// page's: its writes are batched into messages of up to batchBytes, each
// ArrayBuffer transferred, not copied, and the wasm does not wait for
// each one: a write returns at once while fewer than windowBytes are
// unanswered, and an error the page's sink raised ends the transfer at
// the next call. A sink that gathers (opts.gather, set by core.js for
// save.js's memory sink) gets no writes: its file's bytes are made into
// Blobs here, 8 MiB at a time, and the whole file goes to
// the page as one Blob, a reference, in a deliver call before finish.
// The bytes then go from this thread to the browser's Blob storage, and
// the page's thread, which draws the page, never handles them.

/* global self, Go, WebAssembly, fetch, Blob, ReadableStreamBYOBReader */
'use strict';

(function () {
const batchBytes = 1 << 20;
const windowBytes = 8 << 20;

const post = (m, transfer) => self.postMessage(m, transfer || []);

let ferry = null;

function start(m) {
  const go = new Go();
  self.ferryKey = m.key; // read (and deleted) by the wasm as it starts
  self.onFerryReady = () => {
    ferry = self.ferry;
    post({type: 'ready', fingerprint: ferry.fingerprint});
  };
  const wasm = fetch(m.wasm, {integrity: m.integrity});
  const inst = WebAssembly.instantiateStreaming
    ? WebAssembly.instantiateStreaming(wasm, go.importObject)
    : wasm.then(r => r.arrayBuffer()).then(b => WebAssembly.instantiate(b, go.importObject));
  inst.then(r => go.run(r.instance)).catch(e => post({type: 'failed', message: String(e)}));
  // The primitives are set up while ferry.wasm compiles, but the page
  // does not wait for them: the Go side looks for them when a stream or
  // a file's hash starts, and one that starts before they are ready
  // (a person picks files in less time than they take) uses Go's own,
  // to its end.
  if (typeof self.ferryMakePrims === 'function') {
    const aead = self.ferryAEADWasm ? {wasm: self.ferryAEADWasm, known: self.ferryAEADKnown} : null;
    self.ferryMakePrims({aead, sodium: self.ferrySodium, blake3: self.ferryBLAKE3Wasm}).then(p => {
      if (!p) return;
      self.ferryPrims = p;
      post({type: 'prims', cipher: p.cipher, hash: typeof p.hashNew === 'function'});
    }, () => {});
  }
}

// ferryFileSlices(file, size) is the reader gui/page/wasm reads a picked
// File with: read(off, end) resolves to a Uint8Array of the File's bytes
// from off to end, over one buffer of size bytes that every read reuses,
// so the caller copies each slice out before it asks for the next;
// close() lets go of the File. Blob.arrayBuffer would make a new buffer
// per slice, which the browser maps, touches and unmaps again; a byte
// stream's BYOB reader fills the buffer given. A browser whose Blob
// streams have no BYOB reader gets arrayBuffer's copy.
//
// The reads go through one stream of the File from the first offset
// asked for, which the next read carries on while it asks for the byte
// after the last one read (the wasm reads a File front to back): a
// stream per slice cost the browser about 1.3 ms of CPU per MiB more in
// all (each slice a new Blob, and the browser opening and seeking the
// file again: benches/results/2026-12-06-send33.md). A read anywhere
// else starts a new stream there.
//
// The browser fails the read of a File changed on disk since it was
// picked when a stream of it opens, not while one runs. A new stream
// per slice found such a change at the next slice; here the read that
// reaches the File's end reads its last byte through a slice of its own,
// which opens it again, and fails as that did before the slice goes out
// (core/send then never confirms a file it did not read whole as
// picked). When the stream served that one read only, its own opening
// checked the File, as a slice's did.
self.ferryFileSlices = function (file, size) {
  let buf = null;
  let byob = typeof ReadableStreamBYOBReader === 'function';
  let r = null; // the stream's reader, at pos
  let pos = 0;
  let from = 0; // where the stream began
  const drop = () => {
    if (r) r.cancel().catch(() => {});
    r = null;
  };
  return {
    async read(off, end) {
      if (byob && (!r || pos !== off)) {
        drop();
        try { r = file.slice(off).stream().getReader({mode: 'byob'}); pos = from = off; } catch (e) { byob = false; }
      }
      if (!r) return new Uint8Array(await file.slice(off, end).arrayBuffer());
      const want = end - off;
      if (!buf || buf.byteLength < want || buf.detached) buf = new ArrayBuffer(size);
      let at = 0;
      try {
        while (at < want) {
          const {value, done} = await r.read(new Uint8Array(buf, at, want - at));
          // The read hands the buffer back as value's, detaching the one
          // passed in, also when the stream is done.
          if (value) buf = value.buffer;
          if (done) { r = null; break; }
          at += value.length;
        }
      } catch (e) {
        drop();
        throw e;
      }
      pos = off + at;
      if (pos === file.size && from < off) await file.slice(pos - 1, pos).arrayBuffer();
      return new Uint8Array(buf, 0, at);
    },
    close: drop,
  };
};

// sinks[id] is the proxy of operation id's sink: the answers it waits for.
const sinks = new Map();

function sinkProxy(id, gather) {
  let seq = 0;
  const waiting = new Map(); // n -> {resolve, reject, bytes}
  let unanswered = 0;        // bytes posted and not yet answered
  let failure = null;        // the first error the page's sink raised
  let room = null;           // resolves when unanswered drops below windowBytes
  let batch = [];
  let batched = 0;

  function call(method, arg, bytes, transfer) {
    const n = ++seq;
    unanswered += bytes;
    const p = new Promise((resolve, reject) => waiting.set(n, {resolve, reject, bytes}));
    post({type: 'sink', id, n, method, arg}, transfer);
    return p;
  }

  function flush() {
    if (batched === 0) return null;
    let b;
    if (batch.length === 1) {
      b = batch[0];
    } else {
      b = new Uint8Array(batched);
      let at = 0;
      for (const c of batch) { b.set(c, at); at += c.length; }
    }
    batch = [];
    const n = batched;
    batched = 0;
    // Only a whole buffer can be transferred; the wasm's arrays are
    // its own and exactly their length, so most batches are.
    const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
    const p = call('write', b, n, whole ? [b.buffer] : []);
    p.catch(() => {}); // seen through failure
    return p;
  }

  function check() {
    if (failure) throw failure;
  }

  // A gathering sink's file: the Blobs of its writes so far. Each write
  // becomes a Blob at once, which copies it, so the wasm may use the
  // same array for the next (copies, below): it hands a gathering sink
  // 8 MiB per write (save.js's blobSlice; gui/page/wasm's copyBatch).
  let blobs = null;

  const proxy = {
    copies: gather,
    async start(e) {
      check();
      if (gather) blobs = [];
      return call('start', e, 0);
    },
    async folder(e) { check(); return call('folder', e, 0); },
    async write(b) {
      check();
      if (gather) { blobs.push(new Blob([b])); return; }
      batch.push(b);
      batched += b.length;
      if (batched >= batchBytes) flush();
      while (unanswered >= windowBytes && !failure) {
        await new Promise(r => { room = r; });
      }
      check();
    },
    async finish(ok) {
      if (gather) {
        const whole = ok && blobs ? new Blob(blobs) : null;
        blobs = null;
        // deliver is answered before finish is asked: a sink whose
        // deliver failed gets no finish, and the transfer ends with its
        // error, as after a failed write.
        if (whole) await call('deliver', whole, 0);
      }
      if (ok) flush();
      else { batch = []; batched = 0; }
      if (failure && ok) throw failure;
      return call('finish', ok, 0);
    },
    async end(err) {
      batch = [];
      batched = 0;
      blobs = null;
      return call('end', err, 0);
    },
  };

  return {
    proxy,
    answer(m) {
      const w = waiting.get(m.n);
      if (!w) return;
      waiting.delete(m.n);
      unanswered -= w.bytes;
      if (m.error != null) {
        const e = new Error(m.error);
        if (!failure) failure = e;
        w.reject(e);
      } else {
        w.resolve();
      }
      if (room && (unanswered < windowBytes || failure)) { const r = room; room = null; r(); }
    },
  };
}

function run(m) {
  if (!ferry) {
    post({type: 'end', id: m.id, ok: false, value: {event: 'error', kind: 'failure', message: 'the page has not started yet'}});
    return;
  }
  const opts = Object.assign({}, m.opts, {onEvent: event => post({type: 'event', id: m.id, event})});
  delete opts.gather;
  if (m.type === 'receive') {
    const s = sinkProxy(m.id, !!m.opts.gather);
    sinks.set(m.id, s);
    opts.sink = s.proxy;
  }
  const p = m.type === 'send' ? ferry.send(opts) : ferry.receive(opts);
  p.then(
    value => post({type: 'end', id: m.id, ok: true, value}),
    value => post({type: 'end', id: m.id, ok: false, value}),
  ).finally(() => sinks.delete(m.id));
}

self.onmessage = e => {
  const m = e.data;
  switch (m.type) {
  case 'init': start(m); break;
  case 'send': case 'receive': run(m); break;
  case 'cancel': if (ferry) ferry.cancel(); break;
  case 'sink-done': { const s = sinks.get(m.id); if (s) s.answer(m); break; }
  }
};
})();
