#!/bin/sh
# check-bind.sh proves, on a machine without the Android SDK or Xcode,
# that package mobile binds and builds for phones:
#
#  1. gobind generates the Go, Java and Objective-C bindings without
#     error and without skipping anything: gobind does not fail on an
#     exported identifier whose type it cannot bind, it leaves it out
#     with a "// skipped ... unsupported ..." comment, so the output is
#     searched for those;
#  2. the package vets for android/arm64 (no cgo needed) and ios/arm64
#     (Go insists on cgo for ios; CC=false proves that no C compiler is
#     actually run: nothing in the package's dependencies has cgo files).
#
# Run from anywhere; exits non-zero on the first failure.
set -eu

cd "$(dirname "$0")/.."
pkg=github.com/ferry-project/ferry/mobile
out=$(mktemp -d "${TMPDIR:-/tmp}/ferry-gobind.XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM

echo "check-bind: gobind -lang=go,java,objc $pkg"
if ! go tool gobind -lang=go,java,objc -outdir "$out/gen" "$pkg" 2>"$out/stderr"; then
	cat "$out/stderr" >&2
	echo "check-bind: gobind failed" >&2
	exit 1
fi
if [ -s "$out/stderr" ]; then
	cat "$out/stderr" >&2
	echo "check-bind: gobind complained" >&2
	exit 1
fi
if grep -rnE '// skipped [a-z]+ .*unsupported' "$out/gen" >&2; then
	echo "check-bind: gobind skipped the identifiers above (unsupported types)" >&2
	exit 1
fi
for f in java/mobile/Node.java java/mobile/Events.java src/gobind/Mobile.objc.h src/gobind/go_mobilemain.go; do
	if [ ! -s "$out/gen/$f" ]; then
		echo "check-bind: gobind produced no $f" >&2
		exit 1
	fi
done

echo "check-bind: go vet for android/arm64"
GOOS=android GOARCH=arm64 CGO_ENABLED=0 go vet ./mobile

echo "check-bind: go vet for ios/arm64"
GOOS=ios GOARCH=arm64 CGO_ENABLED=1 CC=false CXX=false go vet ./mobile

echo "check-bind: ok"
