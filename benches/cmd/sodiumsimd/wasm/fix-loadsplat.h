/*
 * Forced into chacha20_dolbeau-ssse3.c for clang 14 only (build.sh's clang14
 * build). clang 14's WebAssembly instruction selection folds the two 32-bit
 * loads of the block counter (x[12], x[13]) that u4.h splats with
 * _mm_set1_epi64x into one v128.load64_splat and moves it after the store of
 * the counter plus 4, so every 4-block group runs with the counter 4 ahead:
 * every message of 256 bytes or more comes out wrong (clang 16 does not).
 * An empty asm on the value keeps the load a plain scalar load.
 */
#include <emmintrin.h>

static inline __m128i
ferry_set1_epi64x(long long q)
{
    __asm__("" : "+r"(q));
    return _mm_set_epi64x(q, q);
}
#define _mm_set1_epi64x(Q) ferry_set1_epi64x(Q)
