// sw_driver.js SW_JS: runs the page's service worker (sw.js) under Node,
// with a stand-in for the worker's global, and drives one download
// through it as save.js and the browser's download manager do: the page
// posts its whole window of batches at once, and the reader takes every
// chunk queued in one go (as a download manager on a busy machine
// does), so the stream calls pull once for many chunks. Prints one JSON
// line: {acks, data, bytes, inOrder, done, failed}.
'use strict';
const fs = require('fs');
const vm = require('vm');

const handlers = {};
const self = {
  addEventListener: (type, f) => { handlers[type] = f; },
  skipWaiting() {},
  clients: {claim() { return Promise.resolve(); }},
};
vm.runInNewContext(fs.readFileSync(process.argv[2], 'utf8'), {
  self, ReadableStream, Response, ByteLengthQueuingStrategy, URL, Error, Map, String, encodeURIComponent,
});

const MiB = 1 << 20;
const batches = 8;     // worker.js's window: 8 batches of 1 MiB in flight
const parts = 4;       // pieces a batch
const piece = MiB / parts;

async function main() {
  const {port1, port2} = new MessageChannel();
  let acks = 0;
  let failed = null;
  port1.onmessage = e => { if (e.data && e.data.error) failed = e.data.error; acks++; };
  const until = async (n, ms) => {
    const end = Date.now() + ms;
    while (acks < n && Date.now() < end) await new Promise(r => setTimeout(r, 5));
    return acks >= n;
  };
  handlers.message({data: {ferry: 'open', id: 'd1', name: 'f.bin', size: batches * MiB}, ports: [port2]});
  if (!await until(1, 5000)) throw new Error('open was not answered');
  let resp = null;
  handlers.fetch({request: {url: 'http://127.0.0.1/ferry-download/d1/f.bin'}, respondWith: r => { resp = r; }});
  if (!resp) throw new Error('the download was not answered');
  const reader = resp.body.getReader();

  for (let b = 0; b < batches; b++) {
    const ps = [];
    for (let i = 0; i < parts; i++) ps.push(new Uint8Array(piece).fill((b * parts + i) & 0xff));
    port1.postMessage({ferry: 'data', parts: ps}, ps.map(p => p.buffer));
  }
  // The worker takes the batches first: the queue fills past its mark,
  // and the batches beyond it wait for room to be answered.
  await new Promise(r => setTimeout(r, 200));
  // Every chunk read at once: the reads are issued together.
  let bytes = 0;
  let inOrder = true;
  const chunks = await Promise.all(Array.from({length: batches * parts}, () => reader.read()));
  chunks.forEach((c, i) => {
    bytes += c.value.length;
    if (c.value[0] !== (i & 0xff)) inOrder = false;
  });
  // Every batch must be answered, or the page waits for ever.
  const data = await until(1 + batches, 5000) ? batches : acks - 1;
  port1.postMessage({ferry: 'close'});
  const closed = await until(2 + batches, 5000);
  const end = closed ? await reader.read() : {done: false};
  console.log(JSON.stringify({acks, data, bytes, inOrder, done: end.done, failed}));
  port1.close();
}

main().catch(e => { console.log(JSON.stringify({error: String(e)})); process.exitCode = 1; });
