#!/bin/sh
# Builds the browser page's ChaCha20-Poly1305: libsodium 1.0.18's own
# AEAD, its SSSE3 ChaCha20 (dolbeau) and SSE2 Poly1305, whose x86
# intrinsics Emscripten's headers map to WebAssembly SIMD, alone in a
# module of about 18 KB that imports nothing (glue.c has its exports).
# benches/results/2026-12-05-sodium-simd.md is the study behind it.
#
# Usage: build.sh OUT.js. It writes OUT.js (the module in base64, the
# licences that travel with it and a known answer from x/crypto, which
# gui/page/prims.js checks before use) and exits 0; or it prints one line
# and exits 3 when it cannot build here (no clang-16 or emcc, no node,
# the source package could not be fetched), and the Makefile falls back
# to npm libsodium; or it exits 1, and the build stops, when the module
# it built does not match x/crypto.
#
# Why clang-16: Debian's emscripten compiles with its own clang 14, which
# miscompiles the dolbeau ChaCha20's 4-block path (every message of 256
# bytes or more comes out wrong), so clang 16 compiles and emcc only
# links. Nothing built is used before it passes the x/crypto vectors
# (vectors/, check.mjs); lengths 0 to past 65,536 every byte around the
# block sizes, since that bug showed only from 256 bytes.
#
# What it fetches, from Debian's archive (apt's own mirror, over http:
# the pinned hashes are what make it safe) and keeps in cache/ beside
# this file: the source package of Debian 12's libsodium 1.0.18-1+deb12u1,
# unpacked with dpkg-source, which applies Debian's patches.
set -eu
out=${1:?usage: build.sh OUT.js}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cache=$here/cache
clang=/usr/lib/llvm-16/bin/clang
pool=http://deb.debian.org/debian/pool/main/libs/libsodium
ver=1.0.18-1+deb12u1

skip() {
    echo "the page's SIMD cipher is not built: $*; the page uses npm libsodium's, or Go's without npm" >&2
    exit 3
}

for c in emcc curl dpkg-source node go sha256sum; do
    command -v "$c" >/dev/null || skip "no $c (tests/install-deps.sh installs emscripten clang-16 dpkg-dev)"
done
[ -x "$clang" ] || skip "no clang-16 (tests/install-deps.sh installs emscripten clang-16 dpkg-dev)"
mkdir -p "$cache" || skip "cannot write $cache"

# The source package, checked against pinned hashes before dpkg-source
# reads it (the .dsc is not signed-checked here: its hash is pinned).
src=$cache/libsodium-$ver
if [ ! -f "$src/.ferry-unpacked" ]; then
    for f in libsodium_1.0.18.orig.tar.gz libsodium_$ver.debian.tar.xz libsodium_$ver.dsc; do
        [ -f "$cache/$f" ] && continue
        curl -fsS --retry 2 --connect-timeout 10 --max-time 120 -o "$cache/$f.part" "$pool/$f" ||
            { rm -f "$cache/$f.part"; skip "fetching $pool/$f failed"; }
        mv "$cache/$f.part" "$cache/$f"
    done
    if ! (cd "$cache" && sha256sum -c --quiet >/dev/null 2>&1) <<SUMS
d59323c6b712a1519a5daf710b68f5e7fde57040845ffec53850911f10a5d4f4  libsodium_1.0.18.orig.tar.gz
f410474e46346b06b162defa05b1be26906aeed6cf309e3d4ebe30b4d1350733  libsodium_$ver.debian.tar.xz
2c23c57b5a9385dab5a1916014c9b5f2cdd7dadeb8a35b28c1bfb603ce7095c4  libsodium_$ver.dsc
SUMS
    then
        rm -f "$cache"/libsodium_*
        skip "the libsodium source fetched from $pool is not the pinned one (removed; the next build fetches it again)"
    fi
    rm -rf "$src"
    (cd "$cache" && dpkg-source -x "libsodium_$ver.dsc" "libsodium-$ver" >/dev/null 2>&1) ||
        skip "dpkg-source could not unpack libsodium_$ver.dsc"
    touch "$src/.ferry-unpacked"
fi

# A module built by these same files and compilers, and checked, is
# kept under their hash: make wasm runs this on every build.
sysroot=$(dirname "$(readlink -f "$(command -v emcc)")")/cache/sysroot
[ -d "$sysroot" ] || sysroot=/usr/share/emscripten/cache/sysroot
[ -d "$sysroot" ] || skip "no emscripten sysroot"
key=$( { cat "$here/build.sh" "$here/glue.c"; "$clang" --version; emcc --version; } | sha256sum | cut -c1-16)
wasm=$cache/aead-$key.wasm

if [ ! -f "$wasm" ]; then
    t0=$(date +%s)
    s=$src/src/libsodium
    obj=$cache/obj
    rm -rf "$obj"
    mkdir "$obj"
    # The flags emcc gives its clang for this target, with SSE's macros
    # (clang 16 leaves them to the headers' own checks otherwise), and
    # the answers libsodium's configure would give: little-endian, a
    # 128-bit integer (the SSE2 Poly1305's key setup), the two headers.
    for f in crypto_aead/chacha20poly1305/sodium/aead_chacha20poly1305.c \
        crypto_stream/chacha20/stream_chacha20.c \
        crypto_stream/chacha20/ref/chacha20_ref.c \
        crypto_stream/chacha20/dolbeau/chacha20_dolbeau-ssse3.c \
        crypto_onetimeauth/poly1305/onetimeauth_poly1305.c \
        crypto_onetimeauth/poly1305/donna/poly1305_donna.c \
        crypto_onetimeauth/poly1305/sse2/poly1305_sse2.c \
        crypto_verify/sodium/verify.c \
        "$here/glue.c"; do
        case $f in /*) p=$f ;; *) p=$s/$f ;; esac
        "$clang" -target wasm32-unknown-emscripten \
            --sysroot="$sysroot" -Xclang -iwithsysroot/include/compat \
            -DEMSCRIPTEN -D__SSE__=1 -D__SSE2__=1 -D__SSE3__=1 -D__SSSE3__=1 \
            -fvisibility=default -mllvm -combiner-global-alias-analysis=false \
            -O3 -msimd128 \
            -DCONFIGURED=1 -DNATIVE_LITTLE_ENDIAN=1 -DHAVE_TI_MODE=1 \
            -DHAVE_EMMINTRIN_H=1 -DHAVE_TMMINTRIN_H=1 \
            -I"$s/include/sodium" -I"$s/include/sodium/private" \
            -c "$p" -o "$obj/$(basename "$f" .c).o" || skip "clang-16 could not compile $f"
    done
    # 2 MiB of memory, fixed; no imports (no entry, no file system).
    emcc -O3 "$obj"/*.o --no-entry -sSTANDALONE_WASM=1 -sINITIAL_MEMORY=2097152 \
        -sALLOW_MEMORY_GROWTH=0 -sTOTAL_STACK=65536 -sFILESYSTEM=0 -o "$obj/aead.wasm" || skip "emcc could not link"

    # The gate: x/crypto's vectors, sealed and opened the same, and
    # changed bytes refused. A mismatch stops the build (check.mjs exits
    # 2); a check that could not run (a Node without WebAssembly SIMD)
    # falls back.
    (cd "$root" && go run ./gui/page/simd/vectors) >"$obj/vectors.bin" || skip "the x/crypto vectors could not be written"
    rc=0
    node "$here/check.mjs" "$obj/aead.wasm" "$obj/vectors.bin" || rc=$?
    case $rc in
    0) ;;
    2)
        echo "the page's SIMD cipher does not match x/crypto: $clang or emcc miscompiled it; not used" >&2
        exit 1
        ;;
    *) skip "node could not check it against x/crypto's vectors" ;;
    esac
    rm -f "$obj/vectors.bin"
    mv "$obj/aead.wasm" "$wasm"
    echo "built the page's SIMD cipher in $(($(date +%s) - t0)) s: $(wc -c <"$wasm") bytes, sha256 $(sha256sum "$wasm" | cut -c1-64)"
fi

# The licences that travel with the module: libsodium's (ISC, from its
# source), and the MIT licence of what Emscripten put in: its x86
# intrinsics headers, inlined into the code, and its libc's memset
# (musl's). compiler-rt's __multi3 (Apache-2.0 WITH LLVM-exception) is
# linked in too; the exception asks for no notice in compiled form, but
# it is named.
expat=$(awk 'BEGIN { RS = "" } index($0, "License: Expat\n") == 1 { print; exit }' \
    /usr/share/doc/emscripten/copyright 2>/dev/null | sed -e 1d -e 's/^ //' -e 's/^\.$//')
[ -n "$expat" ] || skip "no MIT licence text in /usr/share/doc/emscripten/copyright"
tmp=$out.tmp
{
    printf '/* aead.js: libsodium 1.0.18 (Debian %s) ChaCha20-Poly1305, built by gui/page/simd/build.sh\n' "$ver"
    printf '   for WebAssembly SIMD; gui/page/prims.js instantiates it. sha256 of the module: %s\n\n' \
        "$(sha256sum "$wasm" | cut -c1-64)"
    printf 'libsodium, ISC licence:\n\n'
    # (its LICENSE is written as a C comment: the text without the marks)
    sed -e '/^\/\*$/d' -e '/^ \*\/$/d' -e 's/^ \* \{0,1\}//' "$src/LICENSE"
    printf '\nEmscripten 3.1.6 (its x86 SIMD headers, inlined), Copyright 2010-2022 The Emscripten Authors,\n'
    printf 'and its libc'"'"'s memset, from musl, Copyright 2005-2014 Rich Felker, et al., each under the MIT licence:\n\n'
    printf '%s\n' "$expat"
    printf '\ncompiler-rt'"'"'s __multi3 (the LLVM Project): Apache License 2.0 with LLVM Exceptions.\n*/\n'
    printf 'globalThis.ferryAEADWasm = "'
    node -e 'process.stdout.write(require("fs").readFileSync(process.argv[1]).toString("base64"))' "$wasm"
    printf '";\n'
    (cd "$root" && go run ./gui/page/simd/vectors -known)
} >"$tmp" || { rm -f "$tmp"; skip "aead.js could not be written"; }
if [ "$(sed '/^globalThis/,$d' "$tmp" | grep -c '\*/')" != 1 ]; then
    rm -f "$tmp"
    echo "aead.js: a licence text would end its comment early" >&2
    exit 1
fi
mv "$tmp" "$out"
