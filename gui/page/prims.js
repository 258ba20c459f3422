// prims.js: the page's fast primitives for ferry.wasm. worker.js's Blob
// holds wasm_exec.js, sodium.js, blake3.js, this file and worker.js, in
// that order; core/secure's and core/filehash's js tests load it under
// Node with the same two libraries.

/* global self, globalThis, atob, WebAssembly */
'use strict';

(function () {
// Record and hash limits the Go side relies on (core/secure's cipher_js.go,
// core/filehash's filehash_js.go): a Noise record is at most 65,535 bytes
// of ciphertext, and a hash's input crosses in pieces of hashIO.
const recordMax = 65535;
const hashIO = 1 << 20;

// makePrims(S, B) makes what worker.js sets as self.ferryPrims:
// ChaCha20-Poly1305 from libsodium (S: the function sodium.js sets as
// ferrySodium, which makes an instance of libsodium's WebAssembly
// build) and BLAKE3 from blake3-wasm (B: blake3.wasm's bytes in base64,
// which blake3.js sets as ferryBLAKE3Wasm), which core/secure and
// core/filehash use in place of Go's own when they find them. It
// resolves to null when the page was built without them; without B, or
// in a browser without WebAssembly SIMD, it has the cipher and no hash
// (hashNew undefined), and core/filehash hashes in Go.
//
// A record crosses once each way: Go copies the key, the nonce and the
// record straight into a region of libsodium's own memory (aeadHead,
// aeadData: views of it), libsodium seals or opens it there in place,
// and Go copies the result out. Go holds a lock across the three steps,
// as the region is shared. libsodium's memory grows only when it
// allocates, which these calls do not; views() makes new views should
// it ever have grown (a view of the old memory reads as empty).
//
// A hash's input crosses the same way, once: hashIn is a view of
// blake3.wasm's memory, and the hash reads it there. So that each Go
// Hasher keeps its own state, the state (the C code's blake3_hasher)
// lives in a Uint8Array of the Go side's (hashNew), copied into the one
// hasher in blake3.wasm's memory before each write and out after it.
async function makePrims(S, B) {
  if (typeof S !== 'function') return null;
  S = await S();
  const base = S._malloc(44 + recordMax);
  if (!base) return null;
  const key = base, nonce = base + 32, data = base + 44;
  let b3 = null;
  try {
    b3 = B ? await blake3(B) : null;
  } catch (e) {
    b3 = null; // no SIMD, or a broken build: Go hashes
  }
  const p = {
    recordMax,
    hashIO,
    views() {
      p.aeadHead = new Uint8Array(S.HEAPU8.buffer, base, 44);
      p.aeadData = new Uint8Array(S.HEAPU8.buffer, data, recordMax);
    },
    // seal encrypts aeadData[:n] in place and puts the 16-byte tag after
    // it; it returns the ciphertext's length.
    seal(n) {
      S._crypto_aead_chacha20poly1305_ietf_encrypt_detached(data, data + n, 0, data, n, 0, 0, 0, 0, 0, nonce, key);
      return n + 16;
    },
    // open checks and decrypts the n bytes of aeadData in place; it
    // returns the plaintext's length, or -1 when the record is not
    // authentic.
    open(n) {
      if (n < 16) return -1;
      const r = S._crypto_aead_chacha20poly1305_ietf_decrypt_detached(data, 0, data, n - 16, 0, data + n - 16, 0, 0, 0, nonce, key);
      return r === 0 ? n - 16 : -1;
    },
  };
  p.views();
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
  const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
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
