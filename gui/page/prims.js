// prims.js: the page's fast primitives for ferry.wasm. worker.js's Blob
// holds wasm_exec.js, aead.js, sodium.js, blake3.js, this file and
// worker.js, in that order (a build ships aead.js or sodium.js, not
// both); core/secure's and core/filehash's js tests load it under Node
// with the same libraries.

/* global self, globalThis, atob, WebAssembly */
'use strict';

(function () {
// Record and hash limits the Go side relies on (core/secure's cipher_js.go,
// core/filehash's filehash_js.go): a Noise record is at most 65,535 bytes
// of ciphertext, and a hash's input crosses in pieces of hashIO.
const recordMax = 65535;
const hashIO = 1 << 20;

// makePrims(L) makes what worker.js sets as self.ferryPrims, which
// core/secure and core/filehash use in place of Go's own primitives
// when they find them. L holds what the page was built with:
//
//   aead    {wasm, known}: libsodium's ChaCha20-Poly1305 built for
//           WebAssembly SIMD (gui/page/simd; aead.js sets
//           ferryAEADWasm and ferryAEADKnown), used only where the
//           browser has WebAssembly SIMD and the module seals and opens
//           the known answer as x/crypto does
//   sodium  the function sodium.js sets as ferrySodium (npm libsodium's
//           WebAssembly build), when the build could not make aead
//   blake3  blake3.wasm's bytes in base64 (blake3.js's ferryBLAKE3Wasm)
//
// The result's cipher says whose ChaCha20-Poly1305 it has: "simd",
// "libsodium" or "" (none: seal and open undefined, and Go seals); its
// hashNew is undefined when it has no BLAKE3 (no blake3.js, or no
// WebAssembly SIMD), and core/filehash hashes in Go. It resolves to null
// when it has neither.
//
// A record crosses once each way: Go copies the key, the nonce and the
// record straight into a region of the cipher's own memory (aeadHead,
// aeadData: views of it), the cipher seals or opens it there in place,
// and Go copies the result out. Go holds a lock across the three steps,
// as the region is shared. libsodium.js's memory grows only when it
// allocates, which these calls do not (the SIMD module's never grows);
// views() makes new views should it ever have grown (a view of the old
// memory reads as empty).
//
// A hash's input crosses the same way, once: hashIn is a view of
// blake3.wasm's memory, and the hash reads it there. So that each Go
// Hasher keeps its own state, the state (the C code's blake3_hasher)
// lives in a Uint8Array of the Go side's (hashNew), copied into the one
// hasher in blake3.wasm's memory before each write and out after it.
async function makePrims(L) {
  L = L || {};
  let c = null;
  if (L.aead && L.aead.wasm) {
    try {
      c = await simdAEAD(L.aead.wasm, L.aead.known);
    } catch (e) {
      c = null; // no SIMD, or a wrong answer: libsodium.js if shipped, else Go
    }
  }
  if (!c && typeof L.sodium === 'function') c = await sodiumAEAD(L.sodium);
  let b3 = null;
  try {
    b3 = L.blake3 ? await blake3(L.blake3) : null;
  } catch (e) {
    b3 = null; // no SIMD, or a broken build: Go hashes
  }
  if (!c && !b3) return null;
  const p = {recordMax, hashIO, cipher: c ? c.name : ''};
  if (c) {
    p.views = () => {
      const [head, data] = c.views();
      p.aeadHead = head;
      p.aeadData = data;
    };
    // seal encrypts aeadData[:n] in place and puts the 16-byte tag after
    // it; it returns the ciphertext's length.
    p.seal = n => { c.seal(n); return n + 16; };
    // open checks and decrypts the n bytes of aeadData in place; it
    // returns the plaintext's length, or -1 when the record is not
    // authentic.
    p.open = n => n >= 16 && c.open(n) ? n - 16 : -1;
    p.views();
  }
  if (b3) {
    p.hashIn = b3.in;
    p.hashOut = new Uint8Array(32);
    p.hashNew = () => b3.fresh.slice();
    // hashWrite adds hashIn[:n] to the hash whose state is st.
    p.hashWrite = (st, n) => {
      b3.mem.set(st, b3.h);
      b3.update(b3.h, b3.inAt, n);
      st.set(b3.mem.subarray(b3.h, b3.h + b3Size));
    };
    // hashSum puts the digest of st into hashOut; st stays as it was.
    p.hashSum = st => {
      b3.mem.set(st, b3.h);
      b3.read(b3.h, 0, 0, b3.outAt, 32);
      p.hashOut.set(b3.mem.subarray(b3.outAt, b3.outAt + 32));
    };
  }
  return p;
}

// Each cipher below is {name, views, seal(n), open(n)}: views() returns
// [the 44 bytes of key and nonce, the record's recordMax bytes] in its
// memory; seal(n) seals the record's first n bytes in place with the tag
// after them; open(n) opens its n bytes (tag included) in place and says
// whether they were authentic.

// sodiumAEAD is npm libsodium's WebAssembly build (S: ferrySodium).
async function sodiumAEAD(S) {
  S = await S();
  const base = S._malloc(44 + recordMax);
  if (!base) return null;
  const key = base, nonce = base + 32, data = base + 44;
  return {
    name: 'libsodium',
    views: () => [new Uint8Array(S.HEAPU8.buffer, base, 44), new Uint8Array(S.HEAPU8.buffer, data, recordMax)],
    seal: n => S._crypto_aead_chacha20poly1305_ietf_encrypt_detached(data, data + n, 0, data, n, 0, 0, 0, 0, 0, nonce, key),
    open: n => S._crypto_aead_chacha20poly1305_ietf_decrypt_detached(data, 0, data, n - 16, 0, data + n - 16, 0, 0, 0, nonce, key) === 0,
  };
}

// simdProbe is the smallest module that uses WebAssembly SIMD: one
// function returning a v128 constant. A browser without SIMD refuses it.
const simdProbe = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
  1, 5, 1, 0x60, 0, 1, 0x7b, // type section: () -> v128
  3, 2, 1, 0, // function section: one function of that type
  10, 22, 1, 20, 0, 0xfd, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11]); // v128.const 0

// simdAEAD instantiates the SIMD module (gui/page/simd/glue.c has its
// four exports; it imports nothing and its 2 MiB of memory never grow)
// and checks it against the known answer x/crypto gave at build time
// (1,000 bytes: its 4-block path and its tail, with additional data)
// before anything uses it: it throws if the browser has no WebAssembly
// SIMD or the module answers differently. seal and open take offsets
// into the module's arena: here the key at 20, the nonce at 52 and the
// record at 64, so that the record is 16-byte aligned.
async function simdAEAD(b64, known) {
  if (!WebAssembly.validate(simdProbe)) throw new Error('aead.wasm: no WebAssembly SIMD');
  if (!known) throw new Error('aead.wasm: no known answer');
  const {instance} = await WebAssembly.instantiate(bytesOf(b64), {});
  const x = instance.exports;
  x._initialize();
  x.init(); // picks the SIMD paths, as sodium_init does
  const arena = x.arena(), size = 1 << 20;
  const key = 20, nonce = 52, data = 64;
  const mem = new Uint8Array(x.memory.buffer, arena, size);
  const c = {
    name: 'simd',
    views: () => [mem.subarray(key, key + 44), mem.subarray(data, data + recordMax)],
    seal: n => x.seal(data, data + n, data, n, 0, 0, nonce, key),
    open: n => x.open(data, data, n - 16, data + n - 16, 0, 0, nonce, key) === 0,
  };
  const k = {};
  for (const f of ['key', 'nonce', 'ad', 'msg', 'sealed']) k[f] = bytesOf(known[f]);
  const n = k.msg.length, ad = data + recordMax + 16;
  const same = (at, want) => want.every((b, i) => mem[at + i] === b);
  mem.set(k.key, key);
  mem.set(k.nonce, nonce);
  mem.set(k.ad, ad);
  mem.set(k.msg, data);
  let ok = k.sealed.length === n + 16 && n <= recordMax && x.seal(data, data + n, data, n, ad, k.ad.length, nonce, key) === 0 &&
    same(data, k.sealed);
  ok = ok && x.open(data, data, n, data + n, ad, k.ad.length, nonce, key) === 0 && same(data, k.msg);
  mem.set(k.sealed, data);
  mem[data + n] ^= 1;
  ok = ok && x.open(data, data, n, data + n, ad, k.ad.length, nonce, key) === -1;
  mem.fill(0, 0, ad + k.ad.length);
  if (!ok) throw new Error('aead.wasm: does not seal the known answer as x/crypto does');
  return c;
}

function bytesOf(b64) {
  return Uint8Array.from(atob(b64), ch => ch.charCodeAt(0));
}

// b3Size is sizeof(blake3_hasher) in BLAKE3's C code on wasm32: the key
// (32 bytes), the chunk state (112 with its padding), the stack's length
// (1) and the stack of 55 chaining values (1,760), padded to 8. blake3()
// checks what it can of that layout: a fresh hasher holds BLAKE3's IV as
// its key and as its chunk's chaining value, and an empty stack.
const b3Size = 1912;
const b3IV0 = 0x6a09e667;

// blake3 instantiates blake3.wasm (blake3-wasm 3.0.0's build of BLAKE3's
// C code, its SSE4.1 paths compiled to WebAssembly SIMD by Emscripten)
// from its base64, with the three functions it imports, and sets out its
// memory once: one hasher (h) that every hash's state is copied through,
// hashIO bytes of input and 32 of output. Its memory is fixed at 16 MiB
// (it cannot grow), and nothing here allocates after this.
async function blake3(b64) {
  const bytes = bytesOf(b64);
  let mem = null;
  const heap = () => new Uint8Array(mem.buffer);
  const {instance} = await WebAssembly.instantiate(bytes, {a: {
    a: () => 0, // emscripten_resize_heap: the memory is fixed; malloc fails instead
    b: (dst, src, n) => { heap().copyWithin(dst, src, src + n); }, // emscripten_memcpy_big
    c: () => { throw new Error('blake3.wasm: assertion failed'); }, // __assert_fail
  }});
  const x = instance.exports;
  mem = x.d;
  x.e(); // its constructors
  const malloc = x.h, init = x.i, update = x.l, read = x.m;
  const h = init(0), inAt = malloc(hashIO), outAt = malloc(32);
  if (!h || !inAt || !outAt) throw new Error('blake3.wasm: no memory');
  const m = heap();
  const v = new DataView(mem.buffer);
  if (v.getUint32(h, true) !== b3IV0 || v.getUint32(h + 32, true) !== b3IV0 || m[h + 144] !== 0) {
    throw new Error('blake3.wasm: not the hasher layout prims.js knows');
  }
  return {mem: m, h, inAt, outAt, update, read, in: m.subarray(inAt, inAt + hashIO), fresh: m.slice(h, h + b3Size)};
}

globalThis.ferryMakePrims = makePrims;
})();
