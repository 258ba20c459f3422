#!/bin/sh
# Builds libsodium's ChaCha20-Poly1305 (IETF, detached) alone into standalone
# WebAssembly modules with SIMD: the dolbeau SSSE3 ChaCha20 and the SSE2
# Poly1305, whose x86 intrinsics Emscripten's headers map to WebAssembly SIMD.
# Needs Debian bookworm's emscripten (clang 14), clang-16 for the third build,
# and deb-src entries for apt-get source. Usage: build.sh OUTDIR
#
# Writes three modules:
#   aead-clang14-plain.wasm  emcc -O3 as is: miscompiled by clang 14 (see
#                            fix-loadsplat.h), kept to show check.mjs fail
#   aead-clang14-fix.wasm    emcc -O3 with fix-loadsplat.h forced into the
#                            dolbeau file
#   aead-clang16.wasm        compiled by clang 16 with emscripten's headers and
#                            sysroot, linked by emcc; no change to the source
set -eu
out=${1:?usage: build.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cd "$out"

# The source package, checked against the hashes of the .dsc that apt-get
# source verified against the signed Sources index.
if [ ! -d libsodium ]; then
    apt-get source --download-only libsodium=1.0.18-1+deb12u1
    sha256sum -c <<'SUMS'
d59323c6b712a1519a5daf710b68f5e7fde57040845ffec53850911f10a5d4f4  libsodium_1.0.18.orig.tar.gz
f410474e46346b06b162defa05b1be26906aeed6cf309e3d4ebe30b4d1350733  libsodium_1.0.18-1+deb12u1.debian.tar.xz
2c23c57b5a9385dab5a1916014c9b5f2cdd7dadeb8a35b28c1bfb603ce7095c4  libsodium_1.0.18-1+deb12u1.dsc
SUMS
    dpkg-source -x libsodium_1.0.18-1+deb12u1.dsc libsodium
fi

s=libsodium/src/libsodium
srcs="crypto_aead/chacha20poly1305/sodium/aead_chacha20poly1305.c
crypto_stream/chacha20/stream_chacha20.c
crypto_stream/chacha20/ref/chacha20_ref.c
crypto_stream/chacha20/dolbeau/chacha20_dolbeau-ssse3.c
crypto_onetimeauth/poly1305/onetimeauth_poly1305.c
crypto_onetimeauth/poly1305/donna/poly1305_donna.c
crypto_onetimeauth/poly1305/sse2/poly1305_sse2.c
crypto_verify/sodium/verify.c"
defs="-DCONFIGURED=1 -DNATIVE_LITTLE_ENDIAN=1 -DHAVE_TI_MODE=1
-DHAVE_EMMINTRIN_H=1 -DHAVE_TMMINTRIN_H=1
-I$s/include/sodium -I$s/include/sodium/private"
link="--no-entry -sSTANDALONE_WASM=1 -sINITIAL_MEMORY=2097152
-sALLOW_MEMORY_GROWTH=0 -sTOTAL_STACK=65536 -sFILESYSTEM=0"
sysroot=$(dirname "$(readlink -f "$(command -v emcc)")")/cache/sysroot
[ -d "$sysroot" ] || sysroot=/usr/share/emscripten/cache/sysroot

emcc --version | head -1
# shellcheck disable=SC2086
build14() {
    name=$1; shift
    rm -rf "obj-$name"; mkdir "obj-$name"
    for f in $srcs $here/glue.c; do
        case $f in /*) p=$f ;; *) p=$s/$f ;; esac
        extra=
        case $f in *dolbeau*) extra="$*" ;; esac
        emcc -O3 -msimd128 -mssse3 $defs $extra -c "$p" -o "obj-$name/$(basename "$f" .c).o"
    done
    emcc -O3 "obj-$name"/*.o $link -o "aead-$name.wasm"
}
build14 clang14-plain
build14 clang14-fix -include "$here/fix-loadsplat.h"

# clang 16: the flags emcc passes clang 14 for this target, with SSE's macros.
/usr/lib/llvm-16/bin/clang --version | head -1
rm -rf obj-clang16; mkdir obj-clang16
for f in $srcs $here/glue.c; do
    case $f in /*) p=$f ;; *) p=$s/$f ;; esac
    /usr/lib/llvm-16/bin/clang -target wasm32-unknown-emscripten \
        --sysroot="$sysroot" -Xclang -iwithsysroot/include/compat \
        -DEMSCRIPTEN -D__SSE__=1 -D__SSE2__=1 -D__SSE3__=1 -D__SSSE3__=1 \
        -fvisibility=default -mllvm -combiner-global-alias-analysis=false \
        -O3 -msimd128 $defs -c "$p" -o "obj-clang16/$(basename "$f" .c).o"
done
emcc -O3 obj-clang16/*.o $link -o aead-clang16.wasm

for w in aead-clang14-plain.wasm aead-clang14-fix.wasm aead-clang16.wasm; do
    n=$(wasm-objdump -d "$w" | grep -cE '\b(v128|i8x16|i16x8|i32x4|i64x2|f32x4|f64x2)\.')
    echo "$(sha256sum "$w" | cut -c1-64) $(wc -c <"$w") bytes, $n SIMD instructions: $w"
done
