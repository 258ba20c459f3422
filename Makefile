# Ferry's build, test and benchmark entry points. `make test` is what CI
# runs (.ci/run); it installs the Debian packages it needs when run as
# root and says what to install otherwise.

GO      ?= go
BIN     := bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

# Core packages run under the race detector too.
CORE    := ./core/...

.PHONY: all build ferry ferry-gui test deps lint unit race e2e gui-test mobile-check bench bench-quick demo clean

all: build

build: ferry ferry-gui

ferry:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ferry ./cli/ferry

ferry-gui:
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

lint: vet-targets
	@out=$$(gofmt -l core cli gui mobile tests benches); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@# The GUI's logic must build without cgo; only gui/ferry-gui needs it.
	CGO_ENABLED=0 $(GO) vet ./gui/ui ./gui/xvfb

unit:
	$(GO) test -count=1 -timeout 15m ./core/... ./cli/... ./gui/ui ./mobile/... ./benches/...

race:
	$(GO) test -race -short -count=1 -timeout 15m $(CORE) ./gui/ui ./mobile

# End-to-end: real processes in network namespaces, and the real window
# under Xvfb (needs bin/ferry-gui).
e2e: ferry ferry-gui
	$(GO) test -count=1 -timeout 20m ./tests/... ./gui/xvfb

mobile-check:
	@./mobile/check-bind.sh

test: deps lint unit race build e2e mobile-check

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

# The README's first command: a receiver and a sender on this machine.
demo: ferry
	@./tests/demo.sh

clean:
	rm -rf $(BIN)
