// MiB per CPU second (process.cpuUsage) of ChaCha20-Poly1305 IETF sealing and
// opening 65,519-byte records, the page's largest, in place with one copy in
// as prims.js does: aead.wasm (gui/page/simd/build.sh) against libsodium's npm build,
// @noble/ciphers and Go's x/crypto in Go's WebAssembly (gobase), in rounds
// whose order rotates, with aead.wasm's seal twice as an A/A.
//
// Usage: JSLIB=<dir with node_modules/libsodium> [NOBLE=<dir with
// node_modules/@noble/ciphers>] [GOBASE=gobase.wasm] MIB=32 ROUNDS=5
//        node bench.mjs aead.wasm [more.wasm ...]
import fs from 'node:fs';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';

const MiB = 1 << 20, rec = 65519;
const TOTAL = +(process.env.MIB || 32), ROUNDS = +(process.env.ROUNDS || 5);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const key = crypto.randomBytes(32), nonce = crypto.randomBytes(12), src = crypto.randomBytes(rec);
const cases = [];

// Each aead.wasm given: offsets into its arena. The first one's seal is
// measured twice, as an A/A.
let ref;
for (const [w, path] of process.argv.slice(2).entries()) {
  const name = path.split('/').pop().replace(/\.wasm$/, '');
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(path), {});
  const X = instance.exports;
  X._initialize(); X.init();
  const mem = new Uint8Array(X.memory.buffer, X.arena(), 1 << 20);
  const KEY = 0, NONCE = 32, TAG = 64, DATA = 128;
  mem.set(key, KEY); mem.set(nonce, NONCE);
  mem.set(src, DATA); X.seal(DATA, TAG, DATA, rec, 0, 0, NONCE, KEY);
  const out = Buffer.concat([mem.subarray(DATA, DATA + rec), mem.subarray(TAG, TAG + 16)]);
  if (ref && Buffer.compare(ref, out) !== 0) throw new Error(`${name} disagrees with the first module`);
  ref ||= out;
  const seal = () => { mem.set(src, DATA); X.seal(DATA, TAG, DATA, rec, 0, 0, NONCE, KEY); };
  const open = () => {
    mem.set(ref.subarray(0, rec), DATA); mem.set(ref.subarray(rec), TAG);
    if (X.open(DATA, DATA, rec, TAG, 0, 0, NONCE, KEY) !== 0) throw new Error(`${name} open failed`);
  };
  cases.push([`seal ${name}`, seal]);
  if (w === 0) cases.push([`seal ${name}, A/A`, seal]);
  cases.push([`open ${name}`, open]);
}

// libsodium 0.8.4 from npm: 64-bit lengths are passed as two 32-bit halves.
const S = createRequire(process.env.JSLIB + '/')('libsodium'); await S.ready;
const base = S._malloc(44 + 65535), kp = base, np = base + 32, dp = base + 44;
S.HEAPU8.set(key, kp); S.HEAPU8.set(nonce, np);
const npmSeal = () => { S.HEAPU8.set(src, dp); S._crypto_aead_chacha20poly1305_ietf_encrypt_detached(dp, dp + rec, 0, dp, rec, 0, 0, 0, 0, 0, np, kp); };
const npmOpen = () => {
  S.HEAPU8.set(ref, dp);
  if (S._crypto_aead_chacha20poly1305_ietf_decrypt_detached(dp, 0, dp, rec, 0, dp + rec, 0, 0, 0, np, kp) !== 0) throw new Error('libsodium open failed');
};
npmSeal();
if (Buffer.compare(Buffer.from(S.HEAPU8.subarray(dp, dp + rec + 16)), ref) !== 0) throw new Error('libsodium and aead.wasm disagree');
npmOpen();
if (Buffer.compare(Buffer.from(S.HEAPU8.subarray(dp, dp + rec)), src) !== 0) throw new Error('libsodium open differs');
cases.push(['seal libsodium 0.8.4 (npm)', npmSeal], ['open libsodium 0.8.4 (npm)', npmOpen]);

if (process.env.NOBLE) {
  const { chacha20poly1305 } = await import(process.env.NOBLE + '/node_modules/@noble/ciphers/chacha.js');
  const out = new Uint8Array(rec + 16), back = new Uint8Array(rec);
  const nobleSeal = () => { chacha20poly1305(key, nonce).encrypt(src, out); };
  const nobleOpen = () => { chacha20poly1305(key, nonce).decrypt(ref, back); };
  nobleSeal(); nobleOpen();
  if (Buffer.compare(Buffer.from(out), ref) !== 0 || Buffer.compare(Buffer.from(back), src) !== 0) throw new Error('noble disagrees');
  cases.push(['seal @noble/ciphers', nobleSeal], ['open @noble/ciphers', nobleOpen]);
}

if (process.env.GOBASE) {
  createRequire(import.meta.url)(process.env.GOROOT_WASM_EXEC || '/usr/local/go/lib/wasm/wasm_exec.js');
  const go = new globalThis.Go();
  const { instance: gi } = await WebAssembly.instantiate(fs.readFileSync(process.env.GOBASE), go.importObject);
  go.run(gi);
  cases.push(['seal x/crypto (Go wasm)', n => globalThis.ferryGoSeal(n), true], ['open x/crypto (Go wasm)', n => globalThis.ferryGoOpen(n), true]);
}

const iters = Math.ceil(TOTAL * MiB / rec);
// A round that is not recorded first, so that every case runs its optimized
// (TurboFan) code when timed, not Liftoff's.
for (const [, f, batched] of cases) { if (batched) { f(128); } else { for (let i = 0; i < 128; i++) f(); } }
const res = {};
for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < cases.length; j++) {
    const [name, f, batched] = cases[(j + r) % cases.length];
    if (batched) { f(20); } else { for (let i = 0; i < 20; i++) f(); }
    const c0 = cpu();
    if (batched) { f(iters); } else { for (let i = 0; i < iters; i++) f(); }
    const c1 = cpu();
    (res[name] ||= []).push(iters * rec / MiB / (c1 - c0));
  }
}
const med = a => { const s = a.slice().sort((x, y) => x - y); return s[s.length >> 1]; };
console.log(`${ROUNDS} rounds of ${(iters * rec / MiB).toFixed(1)} MiB per case, node ${process.version}`);
for (const [name] of cases) {
  const a = res[name].slice().sort((x, y) => x - y);
  console.log(name.padEnd(30), 'median', med(a).toFixed(0).padStart(5), ' range', `${a[0].toFixed(0)}-${a[a.length - 1].toFixed(0)}`.padEnd(10), ' rounds', res[name].map(x => x.toFixed(0)).join(' '));
}
// Ratios in the same round, so that the machine's load moves both sides.
const ratio = (a, b) => res[a] && res[b] ? res[a].map((x, i) => x / res[b][i]) : null;
const mods = process.argv.slice(2).map(p => p.split('/').pop().replace(/\.wasm$/, ''));
const pairs = [[`seal ${mods[0]}`, `seal ${mods[0]}, A/A`]];
for (const op of ['seal', 'open']) {
  for (const m of mods) pairs.push([`${op} ${m}`, `${op} libsodium 0.8.4 (npm)`]);
  for (const m of mods) pairs.push([`${op} ${m}`, `${op} x/crypto (Go wasm)`]);
  pairs.push([`${op} libsodium 0.8.4 (npm)`, `${op} x/crypto (Go wasm)`]);
}
for (const [a, b] of pairs) {
  const q = ratio(a, b); if (!q) continue;
  const s = q.slice().sort((x, y) => x - y);
  console.log(`${a} / ${b}: median ${med(s).toFixed(2)} range ${s[0].toFixed(2)}-${s[s.length - 1].toFixed(2)}`);
}
process.exit(0);
