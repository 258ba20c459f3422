// sw.js: the service worker behind save.js's "stream" method. It turns
// bytes that the page decrypted into a download the browser streams to
// disk: the page opens a file with a MessagePort, navigates a hidden
// frame to ferry-download/ID/NAME, and the worker answers that request
// with a ReadableStream it feeds from the port. Each batch of pieces is
// acknowledged once the stream has room (pull), so the page can be at
// most about queueBytes, and its own window (worker.js), ahead of the
// disk. It answers nothing else: every other request goes to the
// network as if it were not here.
//
// Service workers exist only in a secure context (https, or localhost):
// a phone on http://192.168.x.y never registers this worker.

/* global self, ReadableStream, Response, ByteLengthQueuingStrategy */
'use strict';

const queueBytes = 2 << 20;
const files = new Map(); // id -> {name, size, port, stream}

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', e => e.waitUntil(self.clients.claim()));

self.addEventListener('message', e => {
  const m = e.data;
  if (!m || m.ferry !== 'open' || !e.ports[0]) return;
  const port = e.ports[0];
  let controller = null;
  // owed counts the batches not yet acknowledged: a batch that filled
  // the queue is acknowledged only once the stream has room again, and
  // then every one held is, at once. The stream calls pull once for a
  // run of reads, not once a batch (a reader that takes several chunks
  // in one go, on a busy machine, asks once), so settling one a pull
  // left batches owed with nothing left to read: a download stalled
  // with all its bytes in and the page waiting for the last answers.
  // The page's own window (worker.js, windowBytes) bounds how far ahead
  // it can then run.
  let owed = 0;
  const ack = () => port.postMessage({});
  const settle = () => { while (owed > 0) { owed--; ack(); } };
  const stream = new ReadableStream({
    start(c) { controller = c; },
    pull() {
      settle();
    },
    cancel() {
      // The person cancelled the download: tell the page's next write.
      files.delete(m.id);
      port.postMessage({error: 'the download was cancelled in the browser'});
    },
  }, new ByteLengthQueuingStrategy({highWaterMark: queueBytes}));
  port.onmessage = ev => {
    const d = ev.data;
    if (d.ferry === 'data') {
      for (const p of d.parts) controller.enqueue(p);
      owed++;
      if (controller.desiredSize > 0) settle();
    } else if (d.ferry === 'close') {
      controller.close();
      ack();
    } else if (d.ferry === 'abort') {
      controller.error(new Error('the transfer failed'));
      // A file that failed before its frame asked for it never becomes
      // a download: the browser would start one only to see it fail,
      // and then retry it by itself while the next file's download
      // begins. Its frame is answered with no content instead.
      const f = files.get(m.id);
      if (f) f.aborted = true;
      ack();
    }
  };
  files.set(m.id, {name: m.name, size: m.size, stream, aborted: false});
  ack();
});

self.addEventListener('fetch', e => {
  const url = new URL(e.request.url);
  const at = url.pathname.indexOf('/ferry-download/');
  if (at < 0) return;
  const id = url.pathname.slice(at + '/ferry-download/'.length).split('/')[0];
  const f = files.get(id);
  if (!f) {
    e.respondWith(new Response('no such download', {status: 404}));
    return;
  }
  files.delete(id);
  if (f.aborted) {
    e.respondWith(new Response(null, {status: 204}));
    return;
  }
  const headers = {
    'Content-Type': 'application/octet-stream',
    // RFC 6266 with RFC 5987's UTF-8 form, so any name survives.
    'Content-Disposition': "attachment; filename*=UTF-8''" + encodeURIComponent(f.name),
    'X-Content-Type-Options': 'nosniff',
  };
  if (f.size >= 0) headers['Content-Length'] = String(f.size);
  e.respondWith(new Response(f.stream, {headers}));
});
