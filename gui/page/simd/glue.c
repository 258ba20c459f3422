/*
 * The few things libsodium's AEAD needs from the rest of the library, for a
 * standalone WebAssembly module with no imports: WebAssembly has no cpuid, so
 * the runtime checks answer for the paths this build compiles (SSE2 for
 * Poly1305, SSSE3 for ChaCha20, which Emscripten maps to WebAssembly SIMD).
 * Misuse traps. Memory is one fixed buffer; JavaScript lays out key, nonce,
 * AAD, message and tag in it and calls seal or open with offsets.
 */
#include <stddef.h>
#include <stdint.h>

#include "crypto_aead_chacha20poly1305.h"

int _crypto_stream_chacha20_pick_best_implementation(void);
int _crypto_onetimeauth_poly1305_pick_best_implementation(void);

int sodium_runtime_has_sse2(void) { return 1; }
int sodium_runtime_has_sse3(void) { return 1; }
int sodium_runtime_has_ssse3(void) { return 1; }
int sodium_runtime_has_sse41(void) { return 0; }
int sodium_runtime_has_avx(void) { return 0; }
int sodium_runtime_has_avx2(void) { return 0; }
int sodium_runtime_has_avx512f(void) { return 0; }

void sodium_misuse(void) { __builtin_trap(); }

/* Used by the key generators only, which this build does not export. */
void randombytes_buf(void *const buf, const size_t size) { __builtin_trap(); }

void
sodium_memzero(void *const pnt, const size_t len)
{
    volatile unsigned char *p = (volatile unsigned char *) pnt;
    size_t i;

    for (i = 0; i < len; i++) {
        p[i] = 0;
    }
}

/* 1 MiB: room for a 64 KiB record, its output and 64 KiB of AAD, with margin. */
static unsigned char arena[1 << 20] __attribute__((aligned(16)));

__attribute__((export_name("arena"))) unsigned char *
arena_base(void)
{
    return arena;
}

__attribute__((export_name("init"))) int
init(void)
{
    _crypto_stream_chacha20_pick_best_implementation();
    _crypto_onetimeauth_poly1305_pick_best_implementation();
    return 0;
}

/* c and m may be the same offset (in place), as core/secure uses it. */
__attribute__((export_name("seal"))) int
seal(uint32_t c, uint32_t tag, uint32_t m, uint32_t mlen, uint32_t ad,
     uint32_t adlen, uint32_t nonce, uint32_t key)
{
    return crypto_aead_chacha20poly1305_ietf_encrypt_detached(
        arena + c, arena + tag, NULL, arena + m, mlen, arena + ad, adlen,
        NULL, arena + nonce, arena + key);
}

/* Returns 0, or -1 when the tag does not verify; libsodium then zeroes m. */
__attribute__((export_name("open"))) int
open_(uint32_t m, uint32_t c, uint32_t clen, uint32_t tag, uint32_t ad,
      uint32_t adlen, uint32_t nonce, uint32_t key)
{
    return crypto_aead_chacha20poly1305_ietf_decrypt_detached(
        arena + m, NULL, arena + c, clen, arena + tag, arena + ad, adlen,
        arena + nonce, arena + key);
}
