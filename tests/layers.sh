#!/usr/bin/env bash
# The arrows of DESIGN.md's layers, checked on imports (make lint):
#
#   - A front end (cli/ferry, gui/..., mobile) imports from core only
#     core/app and what lies under it, core/errkind, core/platform and
#     core/clipboard: never the engine or its stores. The same holds for
#     its tests, but for a test that builds a hostile or broken peer,
#     which must speak the wire itself: its file name says "hostile".
#     Tests may also use core/testkit, the shared test kit.
#   - Nothing under core/ imports tests/, benches/ or a front end, in code
#     or in tests: what core's tests share lives in core.
#
# It prints every import that breaks a rule, with its file, and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/ferry-project/ferry
allowed="$mod/core/(app|app/.*|errkind|platform|clipboard)"
testkit="$mod/core/testkit(/.*)?"

bad=0

# imports FILE: the quoted import paths of one Go file.
imports() {
	sed -n '/^import (/,/^)/p; /^import "/p' "$1" | grep -o '"[^"]*"' | tr -d '"'
}

while IFS= read -r f; do
	for imp in $(imports "$f"); do
		case "$imp" in "$mod"/core/*) ;; *) continue ;; esac
		[[ "$imp" =~ ^$allowed$ ]] && continue
		[[ "$f" == *_test.go && "$imp" =~ ^$testkit$ ]] && continue
		[[ "$f" == *_test.go && "$(basename "$f")" == *hostile* ]] && continue
		echo "$f imports $imp: a front end reaches the engine only through core/app"
		bad=1
	done
done < <(git ls-files --cached --others --exclude-standard -- 'cli/ferry/*.go' 'gui/*.go' 'mobile/*.go')

while IFS= read -r f; do
	for imp in $(imports "$f"); do
		if [[ "$imp" =~ ^$mod/(tests|benches|cli|gui|mobile)(/|$) ]]; then
			echo "$f imports $imp: core imports nothing above it, in code or in tests"
			bad=1
		fi
	done
done < <(git ls-files --cached --others --exclude-standard -- 'core/*.go')

exit $bad
