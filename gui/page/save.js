// save.js: where the page puts the files it receives (issue 14, item 3).
//
// ferry.receive hands every file to a sink, one at a time and in order
// (gui/page/wasm's package doc has the contract): start(entry) with
// entry.path (slash-separated, already checked by the wasm core) and
// entry.size, then write(bytes) for each piece, then finish(ok), where
// ok is true only once the core has checked the file's BLAKE3 hash;
// folder(entry) before anything inside a folder (only the folder method
// keeps folders; the others flatten). A sink never holds a whole file unless the method
// says so, and a file that fails (ok false, or the page closes) never
// appears under its final name where the browser lets us promise that.
//
// Three methods:
//
//  1. "stream": a service worker (sw.js) answers a download request with a
//     stream that the page feeds, so the browser's own download manager
//     writes the file to the downloads folder as it arrives; nothing is
//     held whole. Every current browser has service workers, but only in
//     a secure context: https, or http://localhost and 127.0.0.1. A
//     failed file is an interrupted download, never a finished one.
//     Folders are flattened: each file is a download named after its last
//     path element (the browser adds " (1)" on a clash).
//  2. "memory": the file is gathered in a Blob and handed to the browser
//     as one download once it is complete and verified. This is what
//     every phone gets on http://192.168.x.y:PORT/, the address a Ferry
//     QR code carries: a page there is not a secure context, so it has
//     neither service workers nor the File System Access API, in any
//     browser. The Blob gets its bytes in slices of blobSlice bytes (the
//     worker that runs the core gathers them: memorySink), so the page
//     itself holds at most one slice; where the Blob's
//     bytes then live is the browser's business. Chromium (Chrome, Edge,
//     Samsung Internet, Opera, on Android too) moves Blob data out of the
//     page into its browser process and, beyond an in-memory limit (on
//     Android 1% of the RAM), pages it to disk, so a large file works
//     there, up to Chromium's Blob disk quota (a share of the free disk).
//     Firefox and Safari keep Blobs in memory, so there the page refuses
//     a file over memoryLimit rather than let the tab die halfway.
//  3. "folder": the File System Access API (showDirectoryPicker), desktop
//     Chromium in a secure context only. Files and folders are written
//     into a folder the person picks, through a temporary file that the
//     browser renames into place on close, and a name that exists becomes
//     "name (1).ext". The picker needs a click, so the page must call
//     chooseFolder from one and pass the folder to makeSink; the default
//     page does not offer it, because the only secure context Ferry's
//     page ever has is localhost, the desktop's own browser, which the
//     stream method already serves with no question asked.
//
// A file cut off (the page reloaded, or dropped behind a locked screen)
// is never kept for a resume: the memory method would have to hold its
// bytes past the page's life, the memory it exists to spare. The page
// says what did not arrive and the sender sends it again (page.js).
//
// Why not stream over HTTP on the LAN address? The desktop could serve a
// download URL itself, but the bytes would then cross the LAN in the
// clear, outside the code-protected channel: the whole point of the
// page is that they do not. The decryption happens in the page, and only
// a service worker can turn bytes made in a page into a streamed
// download.

/* global window, navigator, document, URL, Blob */

// A classic script (no module syntax): the page loads it with a plain
// <script src="save.js"> and finds it as window.ferrySave.
(function () {
'use strict';

// blobSlice is how many bytes the memory method gathers in the page before
// it folds them into the Blob; the worker gathers as much (gui/page/wasm's
// copyBatch).
const blobSlice = 8 << 20;

// memoryLimit is the largest file the memory method takes in a browser
// that keeps Blobs in memory (not Chromium): 512 MiB.
const memoryLimit = 512 << 20;

// chromium is true where Blobs are paged to disk: Chromium's engine.
function chromium() {
  const brands = navigator.userAgentData && navigator.userAgentData.brands;
  if (brands) return brands.some(b => /Chromium/.test(b.brand));
  // Edge, Opera and Samsung Internet name Chrome too; Chrome on iOS
  // (CriOS) is WebKit underneath and does not.
  return /Chrome\//.test(navigator.userAgent);
}

// saveMethod says which method this browser gets, and why, in words the
// page shows before a transfer.
function saveMethod() {
  if (window.isSecureContext && 'serviceWorker' in navigator) {
    return {method: 'stream', words: 'Each file goes to your downloads as it arrives.'};
  }
  if (chromium()) {
    return {method: 'memory', words: 'Each file goes to your downloads once it has arrived whole and been checked.'};
  }
  return {method: 'memory', limit: memoryLimit,
    words: 'Each file goes to your downloads once it has arrived whole and been checked. This browser holds each file in memory until then, so a file over ' +
      (memoryLimit >> 20) + ' MiB is refused: send those with the Ferry app, or from Chrome.'};
}

// baseName is the last element of a slash-separated path.
function baseName(path) {
  return path.split('/').pop();
}

// numbered is "name (n).ext".
function numbered(name, n) {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

// makeSink returns a sink for ferry.receive using the method this
// browser gets, or opts.method ("folder" needs opts.folder from
// chooseFolder).
function makeSink(opts = {}) {
  const m = opts.method || saveMethod().method;
  if (m === 'folder') return folderSink(opts.folder);
  if (m === 'stream') return streamSink();
  return memorySink(saveMethod().limit);
}

// chooseFolder asks the person for a folder to save into (method
// "folder"); it must run inside a click handler.
async function chooseFolder() {
  return window.showDirectoryPicker({mode: 'readwrite', id: 'ferry'});
}

function folderSink(root) {
  let writable = null;
  return {
    method: 'folder',
    // folder keeps the tree: an empty folder is made too.
    async folder(entry) {
      let dir = root;
      for (const p of entry.path.split('/')) dir = await dir.getDirectoryHandle(p, {create: true});
    },
    async start(entry) {
      if (!root) throw new Error('no folder chosen: tap "Choose a folder" first');
      const parts = entry.path.split('/');
      let dir = root;
      for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, {create: true});
      const name = parts[parts.length - 1];
      let free = name;
      for (let n = 1; ; n++) {
        try {
          await dir.getFileHandle(free);
        } catch (e) {
          if (e.name === 'NotFoundError') break;
          throw e;
        }
        free = numbered(name, n);
      }
      const fh = await dir.getFileHandle(free, {create: true});
      writable = await fh.createWritable();
      return free;
    },
    async write(bytes) {
      await writable.write(bytes);
    },
    async finish(ok) {
      const w = writable;
      writable = null;
      if (!w) return;
      if (ok) await w.close(); else await w.abort();
    },
  };
}

// worker registers sw.js once and resolves to the active worker.
let workerReady = null;
function worker() {
  if (!workerReady) {
    workerReady = navigator.serviceWorker.register('sw.js', {scope: './'})
      .then(() => navigator.serviceWorker.ready)
      .then(reg => reg.active);
  }
  return workerReady;
}

// streamBatch is how many bytes the stream method gathers before it posts
// them to the worker: one message and one acknowledgement per batch, not
// per 64 KiB record.
const streamBatch = 1 << 20;

// own returns b as a Uint8Array that owns its whole buffer, so that the
// buffer can be transferred to the worker without a copy.
function own(b) {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice();
}

// streamSink feeds each file to sw.js over a MessageChannel, in batches;
// the worker acknowledges each batch once its stream has room, so the
// page never runs ahead of the download by more than the stream's queue.
function streamSink() {
  let port = null;
  let frame = null;
  let acks = [];
  let batch = [];
  let batched = 0;
  const call = (msg, transfer) => new Promise((resolve, reject) => {
    acks.push({resolve, reject});
    port.postMessage(msg, transfer || []);
  });
  const flush = async () => {
    if (batch.length === 0) return;
    const parts = batch;
    batch = [];
    batched = 0;
    await call({ferry: 'data', parts}, parts.map(p => p.buffer));
  };
  return {
    method: 'stream',
    async start(entry) {
      const sw = await worker();
      const ch = new MessageChannel();
      port = ch.port1;
      acks = [];
      batch = [];
      batched = 0;
      port.onmessage = e => {
        const a = acks.shift();
        if (!a) return;
        if (e.data && e.data.error) a.reject(new Error(e.data.error)); else a.resolve();
      };
      const id = crypto.getRandomValues(new Uint32Array(4)).join('-');
      const name = baseName(entry.path);
      const opened = new Promise((resolve, reject) => acks.push({resolve, reject}));
      sw.postMessage({ferry: 'open', id, name, size: entry.size}, [ch.port2]);
      await opened;
      // A navigation the worker answers with an attachment becomes a
      // download; an iframe keeps the page itself where it is.
      frame = document.createElement('iframe');
      frame.hidden = true;
      frame.src = 'ferry-download/' + id + '/' + encodeURIComponent(name);
      document.body.appendChild(frame);
      return name;
    },
    async write(bytes) {
      // The core hands each array over for good (gui/page/wasm's doc).
      batch.push(own(bytes));
      batched += bytes.length;
      if (batched >= streamBatch) await flush();
    },
    async finish(ok) {
      if (!port) return;
      if (ok) await flush(); else batch = [];
      await call({ferry: ok ? 'close' : 'abort'});
      port.close();
      port = null;
      // The download outlives the frame once its response has begun;
      // remove the frame a little later so the browser has taken it over.
      // A failed file's frame goes at once: if its request has not left,
      // it never will, and no download is begun for it.
      const f = frame;
      if (ok) setTimeout(() => f.remove(), 60000); else f.remove();
    },
  };
}

// memorySink gathers each file into a Blob, slice by slice, and hands it
// to the browser's downloads when it is complete and verified.
//
// Under ferry.receive the page's thread never sees the bytes: the sink
// says gather, so the worker that runs the core builds the Blob itself,
// in slices of the same size (worker.js), and hands the whole file over
// in one deliver(blob) before finish(true); write is then not called.
// Blobs can be made in a worker and posted as references, so the bytes
// go from the worker straight to the browser's Blob storage, and the
// page's thread is spared a message, an answer and a slice's copy for
// every MiB (benches/results/2026-12-05-recvpage33.md). write stays for
// a caller that feeds the sink itself.
function memorySink(limit) {
  let blob = null;
  let parts = [];
  let held = 0;
  let name = '';
  return {
    method: 'memory',
    gather: true,
    async start(entry) {
      if (limit && entry.size > limit) {
        throw new Error(`${entry.path} is ${Math.round(entry.size / 1048576)} MiB; this browser can save at most ${limit >> 20} MiB from a page on a plain http address`);
      }
      blob = new Blob([]);
      parts = [];
      held = 0;
      name = baseName(entry.path);
      return name;
    },
    async write(bytes) {
      // The core hands each array over for good (gui/page/wasm's doc).
      parts.push(bytes);
      held += bytes.length;
      if (held >= blobSlice) {
        blob = new Blob([blob, ...parts]);
        parts = [];
        held = 0;
      }
    },
    // deliver is the whole file, gathered by the worker (see above).
    async deliver(whole) {
      blob = whole;
      parts = [];
      held = 0;
    },
    async finish(ok) {
      const b = ok && blob ? new Blob([blob, ...parts], {type: 'application/octet-stream'}) : null;
      blob = null;
      parts = [];
      if (!b) return;
      const url = URL.createObjectURL(b);
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      a.hidden = true;
      document.body.appendChild(a);
      a.click();
      a.remove();
      // The download reads the Blob after click returns; revoking the URL
      // at once could cut it short.
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    },
  };
}

window.ferrySave = {saveMethod, makeSink, chooseFolder};
// page.js asks window.ferrySink for each receive's sink.
window.ferrySink = () => makeSink();
// The receive view says which method this browser gets.
document.addEventListener('DOMContentLoaded', () => {
  const note = document.getElementById('save-note');
  if (note) note.textContent = saveMethod().words;
});
})();
