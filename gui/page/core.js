// core.js: the page's ferry object (gui/page/wasm's package doc has its
// contract), backed by ferry.wasm running in a dedicated Web Worker
// (worker.js), so that every byte a transfer moves, and Go's runtime,
// stay off the thread that draws the page.
//
// The worker is made from a Blob of wasm_exec.js, aead.js, sodium.js,
// blake3.js, prims.js and worker.js, each fetched with the integrity hash in the
// page's <meta> tags, and it fetches ferry.wasm with its own: the page's
// hash (index.html, which carries them all) covers everything that runs,
// as before. Picked File objects are posted to the worker (they are
// references, not the bytes: the worker reads them itself); a receive's
// sink stays here, and the worker's calls of it arrive as messages and
// are answered (a gathering sink's bytes stay in the worker: op).
//
// window.onFerryReady() is called once the bridge is ready (as the
// wasm did when it ran in the page); window.onFerryFailed(message) when
// the worker or the wasm could not start.

/* global window, document, location, localStorage, crypto, Worker, Blob, URL, fetch */
'use strict';

(function () {
const meta = n => (document.querySelector(`meta[name="${n}"]`) || {}).content || '';

let worker = null;
let nextID = 0;
const ops = new Map(); // id -> {resolve, reject, onEvent, sink}

const ferry = {
  ready: false,
  fingerprint: '',
  prims: false, // prims.js's primitives are in use, not all Go's
  primsCipher: '', // whose ChaCha20-Poly1305: 'simd' (gui/page/simd), 'libsodium' (npm), '' (Go's)
  primsHash: false, // blake3-wasm hashes (not in a browser without WebAssembly SIMD)
  send(opts) { return op('send', opts); },
  receive(opts) { return op('receive', opts); },
  cancel() { if (worker) worker.postMessage({type: 'cancel'}); },
};
window.ferry = ferry;

function wsURL() {
  return 'ws://' + location.host + '/ws?t=' + meta('ferry-token');
}

function op(type, o) {
  o = o || {};
  return new Promise((resolve, reject) => {
    if (!worker || !ferry.ready) {
      reject({event: 'error', kind: 'failure', message: 'the page has not started yet'});
      return;
    }
    const id = ++nextID;
    ops.set(id, {resolve, reject, onEvent: o.onEvent, sink: o.sink});
    const opts = {code: o.code || '', fp: o.fp || '', name: o.name || '', diag: !!o.diag, url: o.url || wsURL()};
    // A sink that gathers (save.js's memory sink) has its files' bytes
    // gathered into Blobs by the worker and gets each whole file in one
    // deliver call: the bytes never cross this thread.
    if (type === 'receive') opts.gather = !!(o.sink && o.sink.gather && typeof o.sink.deliver === 'function');
    if (type === 'send') opts.files = Array.from(o.files || []);
    worker.postMessage({type, id, opts});
  });
}

async function sinkCall(m) {
  const o = ops.get(m.id);
  let error = null;
  try {
    const f = o && o.sink && o.sink[m.method];
    if (typeof f === 'function') await f.call(o.sink, m.arg);
  } catch (e) {
    error = (e && e.message) || String(e);
  }
  worker.postMessage({type: 'sink-done', id: m.id, n: m.n, error});
}

function onMessage(e) {
  const m = e.data;
  switch (m.type) {
  case 'ready':
    ferry.fingerprint = m.fingerprint;
    ferry.ready = true;
    if (typeof window.onFerryReady === 'function') window.onFerryReady();
    break;
  case 'prims':
    ferry.prims = true;
    ferry.primsCipher = m.cipher || '';
    ferry.primsHash = !!m.hash;
    break;
  case 'failed':
    failed(m.message);
    break;
  case 'event': {
    const o = ops.get(m.id);
    if (o && typeof o.onEvent === 'function') {
      try { o.onEvent(m.event); } catch (err) { console.error(err); }
    }
    break;
  }
  case 'sink':
    sinkCall(m);
    break;
  case 'end': {
    const o = ops.get(m.id);
    ops.delete(m.id);
    if (o) (m.ok ? o.resolve : o.reject)(m.value);
    break;
  }
  }
}

function failed(message) {
  if (typeof window.onFerryFailed === 'function') window.onFerryFailed(message);
  else console.error('ferry: ' + message);
}

// pageKey is a sending page's key for the device the link names (fp in
// its fragment): 32 random bytes, kept as hex in this origin's
// localStorage under "ferry-key:" and that fingerprint, so that a page
// reloaded (or brought back by the browser after a locked screen) is the
// same sender to it and a cut send resumes (gui/page/wasm's doc,
// Identity and resume); page.js forgets it once a send has gone through.
// Null, a fresh key kept only while the page is open, for a receiving
// page (it resumes nothing), when the link names no device, or when the
// browser keeps nothing. getRandomValues, unlike crypto.subtle, needs no
// secure context.
function pageKey() {
  const fp = new URLSearchParams(location.hash.slice(1)).get('fp') || '';
  if (!fp || meta('ferry-mode') === 'receive') return null;
  const name = 'ferry-key:' + fp;
  try {
    let hex = localStorage.getItem(name) || '';
    if (!/^[0-9a-f]{64}$/.test(hex)) {
      hex = Array.from(crypto.getRandomValues(new Uint8Array(32)), b => b.toString(16).padStart(2, '0')).join('');
      localStorage.setItem(name, hex);
    }
    return Uint8Array.from(hex.match(/../g), h => parseInt(h, 16));
  } catch (e) {
    return null;
  }
}

async function boot() {
  const text = (name, sri) => fetch(name, {integrity: sri})
    .then(r => { if (!r.ok) throw new Error(name + ': ' + r.status); return r.text(); });
  // aead.js or sodium.js and blake3.js (libsodium's cipher built for
  // WebAssembly SIMD, or npm libsodium's build, and blake3-wasm's, which
  // seal and hash faster than Go's wasm) and prims.js, which hands them
  // to the wasm, go into the worker's Blob before worker.js, each under
  // its hash; a binary built without them leaves their meta tags empty,
  // and the wasm then uses Go's own.
  const lib = (name, m) => meta(m) ? text(name, meta(m)) : Promise.resolve('');
  const parts = await Promise.all([text('wasm_exec.js', meta('ferry-exec')),
    lib('aead.js', 'ferry-aead'), lib('sodium.js', 'ferry-sodium'), lib('blake3.js', 'ferry-blake3'), lib('prims.js', 'ferry-prims'),
    text('worker.js', meta('ferry-worker'))]);
  let url = URL.createObjectURL(new Blob(parts.flatMap(p => [p, '\n;\n']), {type: 'text/javascript'}));
  worker = new Worker(url);
  worker.onmessage = e => {
    if (url && (e.data.type === 'ready' || e.data.type === 'failed')) { URL.revokeObjectURL(url); url = null; }
    onMessage(e);
  };
  worker.onerror = e => failed(e.message || 'the worker failed');
  worker.postMessage({type: 'init', wasm: new URL('ferry.wasm', location.href).href, integrity: meta('ferry-wasm'), key: pageKey()});
}

boot().catch(e => failed(String(e)));
})();
