// Checks a build of the page's SIMD cipher (build.sh) against the vectors
// that vectors/ writes with golang.org/x/crypto: every vector sealed to the
// same ciphertext and tag, opened to the same plaintext, and refused with a
// flipped tag, ciphertext byte or additional-data byte. Exits 2 when any
// vector fails (1 is Node's own: it could not run the check). Usage: node check.mjs aead.wasm vectors.bin
import fs from 'node:fs';

const [wasmPath, vecPath] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), {});
const X = instance.exports;
X._initialize();
X.init();
// seal and open take offsets into the arena; mem is the arena itself.
const mem = new Uint8Array(X.memory.buffer, X.arena(), 1 << 20);
const KEY = 0, NONCE = 32, AD = 64, TAG = 256, DATA = 512;

const v = fs.readFileSync(vecPath);
let off = 0, count = 0, bad = 0;
const eq = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
while (off < v.length) {
  const n = v.readUInt32LE(off), adn = v.readUInt32LE(off + 4);
  off += 8;
  const key = v.subarray(off, off + 32); off += 32;
  const nonce = v.subarray(off, off + 12); off += 12;
  const ad = v.subarray(off, off + adn); off += adn;
  const msg = v.subarray(off, off + n); off += n;
  const ct = v.subarray(off, off + n); off += n;
  const tag = v.subarray(off, off + 16); off += 16;
  mem.set(key, KEY); mem.set(nonce, NONCE); mem.set(ad, AD); mem.set(msg, DATA);
  let ok = X.seal(DATA, TAG, DATA, n, AD, adn, NONCE, KEY) === 0 &&
    eq(mem.subarray(DATA, DATA + n), ct) && eq(mem.subarray(TAG, TAG + 16), tag);
  ok = ok && X.open(DATA, DATA, n, TAG, AD, adn, NONCE, KEY) === 0 && eq(mem.subarray(DATA, DATA + n), msg);
  // Refusals: a flipped tag bit, a flipped ciphertext byte, a flipped AAD byte.
  mem.set(ct, DATA); mem.set(tag, TAG); mem[TAG + (count % 16)] ^= 1;
  ok = ok && X.open(DATA, DATA, n, TAG, AD, adn, NONCE, KEY) === -1;
  mem.set(tag, TAG);
  if (n > 0) {
    mem.set(ct, DATA); mem[DATA + (count * 7919) % n] ^= 0x80;
    ok = ok && X.open(DATA, DATA, n, TAG, AD, adn, NONCE, KEY) === -1;
  }
  if (adn > 0) {
    mem.set(ct, DATA); mem[AD + count % adn] ^= 2;
    ok = ok && X.open(DATA, DATA, n, TAG, AD, adn, NONCE, KEY) === -1;
  }
  if (!ok) { bad++; if (bad < 10) console.log('MISMATCH at length', n, 'aad', adn); }
  count++;
}
console.log(`${count} vectors, ${bad} failed`);
process.exit(bad === 0 && count > 0 ? 0 : 2);
