#!/usr/bin/env bash
# Fails when a binary loses a package Ferry's design requires (DESIGN.md;
# issue 25): each must stay in `go list -deps` of the binary that uses it,
# not be replaced by code of our own. A module counts when the binary
# imports it or any package under it. make lint runs this.
set -euo pipefail
GO=${GO:-go}

status=0
require() {
	local bin=$1 deps m
	shift
	deps=$($GO list -deps "$bin")
	for m in "$@"; do
		if ! grep -qE "^${m//./\\.}(/|\$)" <<<"$deps"; then
			echo "$bin no longer depends on $m (a required package: see DESIGN.md)" >&2
			status=1
		fi
	done
}

require ./cli/ferry github.com/grandcat/zeroconf github.com/schollz/progressbar/v3 \
	github.com/flynn/noise golang.org/x/crypto
require ./gui/ferry-gui github.com/grandcat/zeroconf fyne.io/fyne/v2 github.com/flynn/noise
exit $status
