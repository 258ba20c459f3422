// prims.js: the page's fast primitives for ferry.wasm. worker.js's Blob
// holds wasm_exec.js, sodium.js, blake3.js, this file and worker.js, in
// that order; core/secure's and core/filehash's js tests load it under
// Node with the same two libraries.

/* global self, globalThis */
'use strict';

(function () {
// Record and hash limits the Go side relies on (core/secure's cipher_js.go,
// core/filehash's filehash_js.go): a Noise record is at most 65,535 bytes
// of ciphertext, and a hash's input crosses in pieces of hashIO.
const recordMax = 65535;
const hashIO = 1 << 20;

// makePrims(S, H) makes what worker.js sets as self.ferryPrims:
// ChaCha20-Poly1305 from libsodium (S: sodium.js, libsodium's
// WebAssembly build) and BLAKE3 from hash-wasm (H: blake3.js), which
// core/secure and core/filehash use in place of Go's own when they find
// it. It resolves to null when the page was built without them.
//
// A record crosses once each way: Go copies the key, the nonce and the
// record straight into a region of libsodium's own memory (aeadHead,
// aeadData: views of it), libsodium seals or opens it there in place,
// and Go copies the result out. Go holds a lock across the three steps,
// as the region is shared. libsodium's memory grows only when it
// allocates, which these calls do not; views() makes new views should
// it ever have grown (a view of the old memory reads as empty).
//
// hash-wasm keeps its state in its own memory, and its streaming
// hasher copies its input there; so that each Go Hasher keeps its own
// state, the state lives in a Uint8Array of the Go side's (hashNew),
// loaded before and saved after each write. A hash's input crosses into
// hashIn (a copy out of Go's memory) and from there into hash-wasm's
// (a second copy, which hash-wasm does not let a caller skip).
async function makePrims(S, H) {
  if (!S || !H || typeof H.createBLAKE3 !== 'function') return null;
  await S.ready;
  const hasher = await H.createBLAKE3();
  const base = S._malloc(44 + recordMax);
  if (!base) return null;
  const key = base, nonce = base + 32, data = base + 44;
  const p = {
    recordMax,
    hashIO,
    hashIn: new Uint8Array(hashIO),
    hashOut: new Uint8Array(32),
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
    hashNew() {
      hasher.init();
      return hasher.save();
    },
    // hashWrite adds hashIn[:n] to the hash whose state is st.
    hashWrite(st, n) {
      hasher.load(st);
      hasher.update(n === hashIO ? p.hashIn : p.hashIn.subarray(0, n));
      st.set(hasher.save());
    },
    // hashSum puts the digest of st into hashOut; st stays as it was.
    hashSum(st) {
      hasher.load(st);
      p.hashOut.set(hasher.digest('binary'));
    },
  };
  p.views();
  return p;
}

globalThis.ferryMakePrims = makePrims;
})();
