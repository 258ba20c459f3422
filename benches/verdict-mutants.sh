#!/bin/sh
# Proves that the verdict tests can fail: copies HEAD into a temporary
# folder (never touching the working tree), breaks core/diag's Verdict
# (core/diag/verdict.go) in one way at a time, and runs the tests that
# must catch it:
#
#   core/diag      TestVerdict* (the rules, on made-up splits and CPU
#                  figures: TestVerdictNamesTheBusiestStage,
#                  TestVerdictNamesTheCPU, TestVerdictOutsideOnlyWhenLargest)
#   core/transfer  TestVerdictNamesThe* (in one process: throttled disk
#                  writer on the receiver, paced link, slowed cipher, slow
#                  disk reader; in two child processes held to two CPUs:
#                  busy-loop goroutines in the receiver, then the sender,
#                  and a plain loopback transfer)
#   tests          TestVerdictNamesSlowLink (real tbf 100 Mbit/s veth; root)
#
# The unbroken copy must pass them all; every broken copy must fail at
# least one. It prints a table of which test failed for which break and exits 1
# if a break went unnoticed. Not part of make test: it takes a few
# minutes a break. Usage: benches/verdict-mutants.sh [output-dir-for-logs]
set -u

root=$(git rev-parse --show-toplevel) || exit 2
logs=${1:-$(mktemp -d)}
mkdir -p "$logs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

e2e=yes
if [ "$(id -u)" != 0 ]; then
	e2e="skipped (needs root for the tbf link)"
fi

# Each break: a name, then a perl substitution applied to
# core/diag/verdict.go.
breaks='
none|
always-network|s/if v := cpuVerdict\(snd, rcv, sameMachine\); v != "" \{/if v := cpuVerdict(snd, rcv, sameMachine); false \&\& v != "" {/; s/if top\.top >= dominant \{/if false \&\& top.top >= dominant {/; s/if limit\.busy >= loaded \{/if false \&\& limit.busy >= loaded {/; s/if snd\.wait >= waiting \&\& rcv\.wait >= waiting \{/if true {/
either-end-waits|s/if snd\.wait >= waiting \&\& rcv\.wait >= waiting \{/if snd.wait >= waiting || rcv.wait >= waiting {/
never-network|s/if snd\.wait >= waiting \&\& rcv\.wait >= waiting \{/if false {/
ends-swapped|s/newAccount\("sender", sender/newAccount("receiver", sender/; s/newAccount\("receiver", receiver/newAccount("sender", receiver/
other-end|s/if snd\.top >= rcv\.top \{/if snd.top < rcv.top {/
last-stage-not-busiest|s/case sh > a\.top:/case sh > 0:/
network-rule-first|s/(\n\tif top\.top >= dominant \{)/\n\tif snd.wait >= waiting \&\& rcv.wait >= waiting {\n\t\treturn "slowest stage: the network"\n\t}$1/
cpu-ignored|s/if v := cpuVerdict\(snd, rcv, sameMachine\); v != "" \{/if v := cpuVerdict(snd, rcv, sameMachine); false \&\& v != "" {/
cpu-every-end|s/a\.cpu = a\.saturated \|\| .*/a.cpu = true/
cpu-socket-wait-ignored|s/a\.cpu = a\.saturated \|\| a\.wait < socketBound \&\& /a.cpu = a.saturated || /
cpu-starved-end-named|s/if rcv\.saturated \{/if !rcv.saturated {/
cpu-hog-ignored|s/if !a\.saturated \&\& !a\.untimed \&\& !b\.cpu/if false \&\& !a.saturated \&\& !a.untimed \&\& !b.cpu/
cpu-over-path|s/case !sameMachine \&\& snd\.wait >= waiting \&\& rcv\.wait >= waiting:/case false \&\& !sameMachine \&\& snd.wait >= waiting \&\& rcv.wait >= waiting:/
cpu-never-shared|s/case sameMachine \&\& \(together/case false \&\& sameMachine \&\& (together/
cpu-waits-ignored|s/a\.load, a\.demand = c\.Load\(w\), c\.Demand\(w\)/a.load, a.demand = c.Load(w), c.Load(w)/; s/c\.Busy\(w\) >= cpuBusy/c.Load(w) >= cpuBusy/
outside-always|s/if out\.perEntry \{/if true {/
'

head=$(git -C "$root" rev-parse --short HEAD)
printf 'core/diag Verdict broken one way at a time, HEAD %s, %s, load %s\n\n' "$head" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '| break | core/diag TestVerdict* | core/transfer TestVerdictNamesThe* | tests TestVerdictNamesSlowLink |\n|---|---|---|---|\n'
# printf, not echo: dash's echo would turn the breaks' \n into newlines.
printf '%s\n' "$breaks" | while IFS='|' read -r name subst; do
	[ -n "$name" ] || continue
	dir="$work/$name"
	mkdir -p "$dir"
	git -C "$root" archive HEAD | tar -x -C "$dir"
	if [ -n "$subst" ]; then
		cp "$dir/core/diag/verdict.go" "$dir/verdict.orig"
		perl -0pi -e "$subst" "$dir/core/diag/verdict.go"
		if cmp -s "$dir/core/diag/verdict.go" "$dir/verdict.orig"; then
			printf '| %s | the break no longer applies to core/diag/verdict.go: update this script | |\n' "$name"
			touch "$work/failed"
			continue
		fi
		diff -u "$dir/verdict.orig" "$dir/core/diag/verdict.go" > "$logs/$name.diff"
	fi
	(cd "$dir" && go test -count=1 -run 'TestVerdict' ./core/diag/) > "$logs/$name-diag.log" 2>&1
	d=$?
	(cd "$dir" && go test -count=1 -run 'TestVerdictNamesThe' ./core/transfer/) > "$logs/$name-transfer.log" 2>&1
	t=$?
	if [ "$e2e" = yes ]; then
		(cd "$dir" && go test -count=1 -run 'TestVerdictNamesSlowLink' ./tests/) > "$logs/$name-e2e.log" 2>&1
		e=$?
	else
		e=skip
	fi
	word() {
		case $1 in 0) echo pass ;; skip) echo "$e2e" ;; *) echo FAIL ;; esac
	}
	# Which cases failed, from each log.
	# Subtests by name; a test without subtests that failed, by its own.
	failed() {
		{
			grep -o -- "--- FAIL: Test[^ /]*/[^ ]*" "$1" | sed 's/.*FAIL: Test[^/]*\///'
			grep -o -- "^--- FAIL: Test[^ /]* " "$1" | sed 's/--- FAIL: //; s/ $//' |
				while read -r t; do grep -q -- "--- FAIL: $t/" "$1" || echo "$t"; done
		} | sed 's/_/ /g' | tr '\n' ';' | sed 's/;$//; s/;/; /g'
	}
	dc=$(failed "$logs/$name-diag.log")
	tc=$(failed "$logs/$name-transfer.log")
	printf '| %s | %s%s | %s%s | %s |\n' "$name" "$(word $d)" "${dc:+ ($dc)}" "$(word $t)" "${tc:+ ($tc)}" "$(word $e)"
	if [ "$name" = none ]; then
		if [ $d != 0 ] || [ $t != 0 ] || { [ "$e" != 0 ] && [ "$e" != skip ]; }; then
			echo "the unbroken copy fails: see $logs/none-*.log" >&2
			touch "$work/failed"
		fi
	elif [ $d = 0 ] && [ $t = 0 ] && { [ "$e" = 0 ] || [ "$e" = skip ]; }; then
		echo "break $name went unnoticed" >&2
		touch "$work/failed"
	fi
done
echo "logs in $logs" >&2
[ ! -e "$work/failed" ]
