#!/bin/sh
# Writes a sodium.js that stands in for libsodium's (make page-prims) in a
# copy of gui/page, for primbench to measure aead.wasm in Chromium through
# prims.js unchanged: globalThis.ferrySodium makes an object with the three
# things prims.js uses of libsodium (_malloc, HEAPU8 and the two detached
# AEAD calls, 64-bit lengths as two halves), backed by aead.wasm's arena.
# A measurement aid only. Usage: shim.sh aead.wasm > sodium.js
set -eu
printf 'globalThis.ferrySodium = async () => {\n'
printf '  const bytes = Uint8Array.from(atob("%s"), c => c.charCodeAt(0));\n' \
    "$(base64 -w0 "${1:?usage: shim.sh aead.wasm}")"
cat <<'JS'
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const X = instance.exports;
  X._initialize();
  X.init();
  const A = X.arena();
  let given = false;
  return {
    get HEAPU8() { return new Uint8Array(X.memory.buffer); },
    _malloc(n) { if (given || n > (1 << 20)) return 0; given = true; return A; },
    _crypto_aead_chacha20poly1305_ietf_encrypt_detached(c, mac, maclenP, m, mlen, mlenHi, ad, adlen, adlenHi, nsec, npub, k) {
      return X.seal(c - A, mac - A, m - A, mlen, ad ? ad - A : 0, adlen, npub - A, k - A);
    },
    _crypto_aead_chacha20poly1305_ietf_decrypt_detached(m, nsec, c, clen, clenHi, mac, ad, adlen, adlenHi, npub, k) {
      return X.open(m - A, c - A, clen, mac - A, ad ? ad - A : 0, adlen, npub - A, k - A);
    },
  };
};
JS
