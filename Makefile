# Ferry's build, test and benchmark entry points. `make test` is what CI
# runs (.ci/run); it installs the Debian packages it needs when run as
# root and says what to install otherwise.

GO      ?= go
BIN     := bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

# Every go command here, and those that tests start, builds with
# -trimpath, as the release build does: vet, tests and builds then share
# one set of compiled packages in the cache (the cgo Fyne build above all)
# instead of compiling everything twice.
export GOFLAGS := $(strip $(shell $(GO) env GOFLAGS) -trimpath)

# Core packages run under the race detector too.
CORE    := ./core/...

.PHONY: all build ferry ferry-gui test deps lint unit race e2e gui-test mobile-check bench bench-quick demo clean
.PHONY: dist dist-check ferry-gui-windows

all: build

build: ferry ferry-gui

# The browser page's WebAssembly (gui/page/wasm), gzipped too (core/web
# serves that copy, so that no page waits for the server to gzip it), and
# Go's loader for it, embedded by gui/page into ferry and ferry-gui. Build
# outputs, not committed: a plain `go build` without them makes binaries
# whose page says they were built without it.
WASM := gui/page/ferry.wasm

.PHONY: wasm bench-browser screenshots
wasm:
	GOOS=js GOARCH=wasm CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $(WASM) ./gui/page/wasm
	gzip -9 -n -c $(WASM) > $(WASM).gz
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" gui/page/wasm_exec.js
	$(MAKE) page-prims

# The page's ChaCha20-Poly1305 and BLAKE3. The cipher is libsodium's
# own SIMD code built for WebAssembly SIMD by gui/page/simd/build.sh
# (aead.js: the module in base64, its licences and a known answer from
# x/crypto, which prims.js checks at load): from Debian's source package,
# fetched by hash, with clang-16 and emscripten (tests/install-deps.sh),
# and used only once it passes x/crypto's vectors; when it fails one,
# the build stops. Where it cannot be built (no toolchain, no fetch) it
# says so in one line, and the page ships npm libsodium's WebAssembly
# build instead (sodium.js: its ES-module build, its wasm without the
# asm.js fallback that libsodium.js carries, made a script the worker's
# Blob can hold; under its ISC licence, which must travel with it); a
# page ships one cipher library, not both, and a browser without
# WebAssembly SIMD given aead.js uses Go's. BLAKE3 is blake3-wasm's
# (BLAKE3's C code with WebAssembly SIMD; blake3.js: blake3.wasm in
# base64, which prims.js instantiates; the package ships no licence
# file, so the MIT text its package.json names is kept in
# jslib/blake3-wasm.LICENSE and written into the file). The npm
# packages are pinned with their integrity hashes in
# gui/page/jslib/package-lock.json: npm ci checks them and runs no
# package script. Build outputs like ferry.wasm: node_modules stays in
# jslib, the libsodium source in gui/page/simd/cache, none of it is
# committed. Without npm the page runs on Go's BLAKE3 (and Go's cipher
# too when aead.js could not be built), only slower.
.PHONY: page-prims
page-prims:
	@simd=1; gui/page/simd/build.sh gui/page/aead.js || { rc=$$?; [ $$rc -eq 3 ] || exit $$rc; simd=; rm -f gui/page/aead.js; }; \
	if command -v npm >/dev/null; then \
		echo "npm ci --ignore-scripts (gui/page/jslib)"; \
		(cd gui/page/jslib && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) && \
		if [ -n "$$simd" ]; then rm -f gui/page/sodium.js; else \
		{ printf '/* libsodium.mjs, from npm libsodium (gui/page/jslib), made a classic script:\n'; \
		  printf '   where it reads its module URL it reads the location, and what it exports is globalThis.ferrySodium\n'; \
		  cat gui/page/jslib/node_modules/libsodium/LICENSE; printf '*/\nglobalThis.ferrySodium = (() => {\n"use strict"; // as in a module\n'; \
		  sed -e 's/import\.meta\.url/globalThis.location?.href/' -e 's/export default A;$$/return A;/' \
		    gui/page/jslib/node_modules/libsodium/dist/modules-esm/libsodium.mjs; printf '\n})();\n'; } > gui/page/sodium.js && \
		grep -q 'return A;$$' gui/page/sodium.js && ! grep -q 'import\.meta\|export default' gui/page/sodium.js; fi && \
		{ printf '/* blake3.wasm, from npm blake3-wasm 3.0.0 (gui/page/jslib): MIT licence, Copyright (c) Connor Peet;\n'; \
		  printf '   BLAKE3 C code by the BLAKE3 team, CC0 1.0 or Apache 2.0. prims.js instantiates it.\n'; \
		  cat gui/page/jslib/blake3-wasm.LICENSE; printf '*/\n'; \
		  printf 'globalThis.ferryBLAKE3Wasm = "'; \
		  node -e 'process.stdout.write(require("fs").readFileSync(process.argv[1]).toString("base64"))' \
		    gui/page/jslib/node_modules/blake3-wasm/dist/wasm/blake3.wasm; \
		  printf '";\n'; } > gui/page/blake3.js; \
	else \
		echo "no npm: the page will use Go's BLAKE3$${simd:+ and its SIMD cipher}$${simd:-, and Go's ChaCha20-Poly1305}"; \
		rm -f gui/page/sodium.js gui/page/blake3.js; \
	fi

# The CLI as it ships (make dist): pure Go, statically linked. cgo would
# only swap the net package's resolver for libc's, and a dynamically
# linked process starts slower (the loader, libc's start: about 0.7 ms
# of CPU a run here, on every transfer's critical path).
ferry: wasm
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ferry ./cli/ferry

# Fyne's cgo build needs X11 and OpenGL headers: installed first as root,
# otherwise the one apt-get command that installs them, before compiling.
ferry-gui: wasm
	@./tests/install-deps.sh gui
	CGO_ENABLED=1 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ferry-gui ./gui/ferry-gui

deps:
	@./tests/install-deps.sh

# The OS/arch pairs the CLI, core and mobile binding must build for, each
# vetted by lint. Pure Go (CGO_ENABLED=0) and -trimpath, as make dist
# builds them, so the packages compiled for vet are in the build cache
# under the keys the release build looks for.
VET_TARGETS := linux/amd64 linux/arm64 windows/amd64 windows/arm64 darwin/amd64 darwin/arm64 freebsd/amd64

.PHONY: vet-targets
vet-targets:
	@set -e; for t in $(VET_TARGETS); do \
		echo "GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet ./core/... ./cli/... ./mobile/..."; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) vet -trimpath ./core/... ./cli/... ./mobile/...; \
	done
	@# A browser page runs the core as WebAssembly: what it needs must build there.
	@echo "GOOS=js GOARCH=wasm $(GO) vet ./core/secure ./core/transfer ./core/send ./core/receive ./core/guess ./core/place ./core/wire ./core/diag ./core/app/... ./gui/page/wasm"
	@GOOS=js GOARCH=wasm CGO_ENABLED=0 $(GO) vet -trimpath ./core/secure ./core/transfer ./core/send ./core/receive ./core/guess ./core/place ./core/wire ./core/diag ./core/app/... ./gui/page/wasm

lint: wasm vet-targets
	@out=$$(gofmt -l core cli gui mobile tests benches); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	@# go.mod and go.sum say exactly what the code imports (prints the diff
	@# and fails otherwise; fix with go mod tidy).
	$(GO) mod tidy -diff
	@# The packages the design requires stay in the binaries' graphs.
	GO=$(GO) ./tests/required-deps.sh
	@# The shared test kit (core/testkit and its subpackages) and tests/
	@# are for tests only: no release binary or library may link them.
	@if $(GO) list -deps ./cli/ferry ./gui/ferry-gui ./mobile | grep -E 'ferry-project/ferry/(tests|core/testkit)(/|$$)'; then \
		echo "a release package imports the test code above"; exit 1; fi
	@# Arrows run down only: nothing under core/ imports benches/, tests/
	@# or a front end (cli/, gui/, mobile/), in code or in its tests
	@# (-test: what core's tests share lives in core/testkit); the
	@# packaging tool (cli/ferry-dist) links nothing of gui/ or mobile/:
	@# it reads gui/fmactions/system/ as data.
	@if $(GO) list -test -deps ./core/... | grep -E 'ferry-project/ferry/(benches|tests|cli|gui|mobile)(/|$$)'; then \
		echo "a package under core/, or its tests, imports the packages above"; exit 1; fi
	@if $(GO) list -deps ./cli/ferry-dist | grep -E 'fyne.io/fyne|ferry-project/ferry/(gui|mobile|core/transfer|core/send|core/receive|core/wire)(/|$$)'; then \
		echo "cli/ferry-dist imports the app (gui/, mobile/ or the engine)"; exit 1; fi
	@# The layers' arrows on every Go file's own imports, tests included:
	@# a front end reaches core only through core/app (a test of a hostile
	@# peer, in a *hostile*_test.go file, may use the engine); its rules
	@# are written at the top of tests/layers.sh.
	./tests/layers.sh
	$(GO) vet ./...
	@# The GUI's logic must build without cgo; only gui/ferry-gui needs it.
	CGO_ENABLED=0 $(GO) vet ./gui/ui ./gui/xvfb
	@# The app's logic must not be Linux-only: vetted for Windows; for
	@# darwin, where vet cannot run (Fyne's darwin files need cgo and
	@# Apple's SDK), the same files compile and gui/ui's
	@# TestTypeChecksForDarwin type-checks them (README, "Installing").
	GOOS=windows CGO_ENABLED=0 $(GO) vet ./gui/ui
	@for os in darwin windows; do \
		[ "$$(GOOS=$$os $(GO) list -f '{{.GoFiles}}' ./gui/ui)" = "$$($(GO) list -f '{{.GoFiles}}' ./gui/ui)" ] || \
		{ echo "gui/ui compiles other files for $$os than for linux"; exit 1; }; \
	done

unit: wasm
	$(GO) test -count=1 -timeout 15m ./core/... ./cli/... ./gui/ui ./gui/page ./gui/fmactions ./mobile/... ./benches/...
	@# The core as a browser page runs it: WebAssembly under Node, a
	@# session each way over net.Pipe from io/fs sources into Sinks, and
	@# the page's cipher (libsodium's SIMD module, or its npm build) and
	@# blake3-wasm against x/crypto and BLAKE3. core/secure and
	@# core/filehash run whole; most of core/receive's tests need a
	@# network stack that WebAssembly under Node has not.
	GOOS=js GOARCH=wasm $(GO) test -count=1 -timeout 5m -exec="$$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec" \
		./core/secure ./core/filehash
	GOOS=js GOARCH=wasm $(GO) test -count=1 -timeout 5m -exec="$$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec" \
		-run 'TestPage|TestServeConnGuessBudget' ./core/receive

race:
	$(GO) test -race -short -count=1 -timeout 15m $(CORE) ./gui/ui ./mobile

# End-to-end: real processes in network namespaces, and the real window
# under Xvfb (needs bin/ferry-gui). bin/ferry-gui.exe is built first too:
# the Windows app's test under Wine (tests/wine_gui_test.go) builds it
# again with one file more, and the cgo packages, minutes of compiling
# when cold, then come from the build cache.
e2e: ferry ferry-gui ferry-gui-windows
	$(GO) test -count=1 -timeout 20m ./tests/... ./gui/xvfb

mobile-check:
	@./mobile/check-bind.sh

test: deps lint unit race build dist-check e2e mobile-check

# Release-mode benchmarks (benches/README.md): the microbenchmarks, then
# bin/ferry against a plain TCP copy and croc on loopback and on a
# 1 Gbit/s veth (root), about ten minutes; bench-quick runs every row with
# small sizes in a minute or two. Results go to stdout and benches/results/.
# BENCHFLAGS passes flags (go run ./benches/cmd/ferrybench -h lists them).
# Never with -race or -gcflags=all=-N -l (the harness refuses, bin/ferry too).
bench: ferry
	$(GO) run ./benches/cmd/ferrybench $(BENCHFLAGS)

bench-quick: ferry
	$(GO) run ./benches/cmd/ferrybench -quick $(BENCHFLAGS)

# The browser page (core/web) against bin/ferry, 256 MiB each way in
# headless Chromium (benches/README.md, "The browser page").
bench-browser: ferry
	$(GO) run ./benches/cmd/browserbench -results benches/results $(BENCHFLAGS)

# The browser page's screenshots in gui/screenshots (phone-*.png at
# 390x844, desktop-*.png at 1280x800, each light and -dark), shown in
# the README, taken by the browser tests in headless Chromium, then made
# small with pngquant (exit 98 and 99: a file it left as it was).
screenshots: wasm
	FERRY_SCREENSHOTS=$(CURDIR)/gui/screenshots $(GO) test -count=1 -run 'TestPage' ./tests/browser
	@if command -v pngquant >/dev/null; then \
		pngquant --force --skip-if-larger --speed 1 --quality 70-95 --ext .png gui/screenshots/phone-*.png gui/screenshots/desktop-*.png || [ $$? -ge 98 ]; \
	else echo "pngquant is not installed (tests/install-deps.sh): the screenshots stay large"; fi

# The README's first command: a receiver and a sender on this machine.
demo: ferry
	@./tests/demo.sh

# Release files in bin/dist (README, "Building from source"): the CLI
# cross-built for every target with cgo off and the version stamped,
# each in an archive with README.md and LICENSE (zip for Windows, tar.gz
# elsewhere), .deb and .rpm of ferry and ferry-gui, and SHA256SUMS.
# DIST_TARGETS narrows the set. SOURCE_DATE_EPOCH (the last commit's
# time) dates every file, so a rerun on one commit gives the same bytes.
DIST              := $(BIN)/dist
DIST_TARGETS      ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH

dist: ferry-gui
	rm -rf $(DIST)
	mkdir -p $(DIST)
	@set -e; for t in $(DIST_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; ext=; [ "$$os" = windows ] && ext=.exe; \
		echo "GOOS=$$os GOARCH=$$arch $(GO) build ./cli/ferry"; \
		GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' \
			-o $(DIST)/ferry-$(VERSION)-$$os-$$arch$$ext ./cli/ferry; \
	done
	$(GO) run ./cli/ferry-dist -version '$(VERSION)' -dir $(DIST) -root . \
		-targets '$(DIST_TARGETS)' -gui $(BIN)/ferry-gui

# What CI checks of the release (root): every target builds and is
# packed (once: lint's cross-vet already compiled their packages, so this
# is mostly linking), the linux/amd64 packages install with dpkg, the
# installed ferry reports the stamped version, the desktop entry
# validates; then the packages are removed.
dist-check: dist
	./tests/dist-check.sh '$(DIST)' '$(VERSION)'

# The desktop app for Windows, cross-built with Debian's mingw-w64 (Fyne
# needs cgo there too). -H windowsgui: no console window behind the app.
# The page's WebAssembly first, as for ferry-gui: the app embeds it.
ferry-gui-windows: wasm
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc \
		$(GO) build -trimpath -ldflags '$(LDFLAGS) -H windowsgui' -o $(BIN)/ferry-gui.exe ./gui/ferry-gui

clean:
	rm -rf $(BIN)
