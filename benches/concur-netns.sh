#!/bin/sh
# concur-netns.sh: the real `ferry receive --max-transfers 4` taking 1, 2
# and 4 `ferry send` processes at once, each sending TOTAL/N MiB, so every
# run moves the same total; the baseline is N=1, one sender of the whole
# total, in the same round. Interleaved (1 2 4 1 2 4 ...), ROUNDS rounds,
# on two paths:
#
#   veth  the receiver in a hub namespace, each sender in a leaf namespace
#         of its own, joined to the hub by a veth pair (unshaped)
#   lo    everything in the hub namespace, over 127.0.0.1
#   slow  veth with N=2, plus a third sender on a link of its own shaped
#         to 1 MiB/s (tc tbf 8mbit) that starts first and is still under
#         way when the two end (issue 24 item 4): the two's aggregate
#         MiB/s against veth N=2 of the same round says what a slow
#         sender costs the others; its own MiB/s is given too
#
#   benches/concur-netns.sh [TOTAL_MIB [ROUNDS]]    (defaults: 1024 3; root)
#
# Figures per run: the receiver's peak RSS (VmHWM of the ferry receive
# process itself, read from /proc before it is stopped) and the aggregate
# MiB/s, TOTAL over the time from starting the senders to the last one's
# exit. Every sender must exit 0 and every file arrive whole (sizes
# checked; the engine checks each file's BLAKE3), or the run is reported
# FAILED and kept. The summary gives per path and N the median and the
# range (min-max) over the rounds, and the median of the per-round ratio
# against N=1. A fresh receiver (and fresh folder) serves each run.
# Nothing leaves the namespaces: no address is outside 10.233.0.0/16 or
# loopback, and mDNS is off (--no-mdns).
set -eu
total=${1:-1024}
rounds=${2:-3}
[ "$(id -u)" = 0 ] || { echo "concur-netns: needs root for network namespaces" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pre=e2e24c$$
hub=${pre}h
cleanup() {
	kill $(jobs -p) 2>/dev/null || true
	for ns in $hub ${pre}l1 ${pre}l2 ${pre}l3 ${pre}l4 ${pre}l5; do ip netns del "$ns" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
bin="$work/ferry"
(cd "$root" && GOFLAGS=-trimpath go build -o "$bin" ./cli/ferry)
# A payload of its own per sender: identical files under one name would
# be skipped by the receiver as already there.
for n in 1 2 4; do
	i=1
	while [ $i -le $n ]; do
		head -c $(((total / n) << 20)) /dev/urandom > "$work/payload-$n-$i.bin"
		i=$((i + 1))
	done
done

ip netns add "$hub"
ip -n "$hub" link set lo up
head -c $((64 << 20)) /dev/urandom > "$work/payload-slow.bin"
# The payloads on disk before the first run: otherwise that run competes
# with their write-back (it came out at half the others' speed).
sync
for i in 1 2 3 4 5; do
	ip netns add "${pre}l$i"
	ip link add "${pre}h$i" netns "$hub" type veth peer name "${pre}v$i" netns "${pre}l$i"
	ip -n "$hub" addr add "10.233.$i.1/24" dev "${pre}h$i"
	ip -n "${pre}l$i" addr add "10.233.$i.2/24" dev "${pre}v$i"
	ip -n "$hub" link set "${pre}h$i" up
	ip -n "${pre}l$i" link set lo up
	ip -n "${pre}l$i" link set "${pre}v$i" up
done
for dev in "$hub ${pre}h5" "${pre}l5 ${pre}v5"; do
	set -- $dev
	tc -n "$1" qdisc replace dev "$2" root tbf rate 8mbit burst 64kb latency 50ms
done

# one PATH N: N senders at once of TOTAL/N MiB each; prints
# "PATH N rss_kib seconds MiB/s" or "PATH N FAILED why".
one() {
	path=$1 n=$2
	d="$work/recv"; rm -rf "$d" "$work"/*.jsonl; mkdir -p "$d"
	ip netns exec "$hub" env HOME="$work/rhome" XDG_CONFIG_HOME="$work/rhome/.config" \
		"$bin" receive --dir "$d" --code 474747 --yes --keep --max-transfers 4 --json --no-mdns \
		--listen 0.0.0.0:47400 > "$work/recv.jsonl" 2> "$work/recv.err" &
	rpid=$!
	while ! grep -q '"event":"listening"' "$work/recv.jsonl" 2>/dev/null; do
		kill -0 $rpid 2>/dev/null || { echo "$path $n FAILED receiver: $(tail -1 "$work/recv.err")"; return; }
		sleep 0.05
	done
	[ "$path" = slow ] && { slowstart || { echo "$path $n FAILED the slow sender did not start"; return; }; }
	start=$(date +%s.%N)
	pids=""
	i=1
	while [ $i -le "$n" ]; do
		ns=${pre}l$i to=10.233.$i.1
		[ "$path" = lo ] && ns=$hub to=127.0.0.1
		ip netns exec "$ns" env HOME="$work/s$i" XDG_CONFIG_HOME="$work/s$i/.config" \
			"$bin" send --json --to "$to:47400" --code 474747 "$work/payload-$n-$i.bin" > "$work/s$i.jsonl" 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	failed=""
	for p in $pids; do wait "$p" || failed="a sender exited $?"; done
	end=$(date +%s.%N)
	slowrate=""
	[ "$path" = slow ] && slowrate=$(slowstop)
	rss=$(awk '$1 == "VmHWM:" { print $2 }' /proc/$rpid/status)
	kill -INT $rpid; wait $rpid || failed="${failed:-the receiver exited $?}"
	got=$(find "$d" -maxdepth 1 -type f -size "$(((total / n) << 20))c" | wc -l)
	[ "$got" = "$n" ] || failed="${failed:-$got of $n files whole}"
	rm -rf "$d"
	[ -n "$rss" ] || failed="${failed:-no VmHWM for the receiver}"
	if [ -n "$failed" ]; then echo "$path $n FAILED $failed"; return; fi
	secs=$(echo "$end - $start" | bc)
	echo "$path $n $rss $secs $(echo "scale=1; $total / $secs" | bc) $slowrate"
}

# slowstart starts the 1 MiB/s sender from leaf 5 and waits for its
# first progress event; slowstop interrupts it and prints its MiB/s over
# the bytes its last progress event counted.
slowstart() {
	: > "$work/slow.jsonl"
	ip netns exec "${pre}l5" env HOME="$work/slowhome" XDG_CONFIG_HOME="$work/slowhome/.config" \
		"$bin" send --json --to "10.233.5.1:47400" --code 474747 "$work/payload-slow.bin" > "$work/slow.jsonl" 2>&1 &
	slowpid=$!
	slowt0=$(date +%s.%N)
	while ! grep -q '"event":"progress"' "$work/slow.jsonl"; do
		kill -0 $slowpid 2>/dev/null || return 1
		sleep 0.05
	done
}
slowstop() {
	t1=$(date +%s.%N)
	kill -INT $slowpid 2>/dev/null || true
	wait $slowpid 2>/dev/null || true
	b=$(grep '"event":"progress"' "$work/slow.jsonl" | tail -1 | sed 's/.*"done":\([0-9]*\).*/\1/')
	echo "scale=2; $b / 1048576 / ($t1 - $slowt0)" | bc
}

echo "# benches/concur-netns.sh $total $rounds, commit $(cd "$root" && git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg) at the start"
echo "path senders peak_rss_kib seconds MiB/s   (total $total MiB per run)"
r=0
: > "$work/rows"
while [ $r -lt "$rounds" ]; do
	for path in veth lo; do
		for n in 1 2 4; do one $path $n | tee -a "$work/rows"; done
	done
	one slow 2 | tee -a "$work/rows"
	r=$((r + 1))
done
echo "# load $(cut -d' ' -f1 /proc/loadavg) at the end"
echo "# summary: median [min-max] over the rounds; ratio = median of each round's figure / that round's N=1"
awk -v rounds="$rounds" '
	function med(a, k,   i, j, t, b) {
		for (i = 1; i <= k; i++) b[i] = a[i]
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		lo = b[1]; hi = b[k]
		return (k % 2) ? b[(k + 1) / 2] : (b[k / 2] + b[k / 2 + 1]) / 2
	}
	$3 == "FAILED" { fails[$1 " " $2]++; next }
	{ key = $1 " " $2; c[key]++; rss[key, c[key]] = $3; thr[key, c[key]] = $5
	  if ($2 == 1) { base_rss[$1, c[key]] = $3; base_thr[$1, c[key]] = $5 }
	  if ($1 == "slow") slow[c[key]] = $6 }
	END {
		printf "%-5s %-7s %-26s %-26s %-9s %-9s %s\n", "path", "senders", "peak_rss_MiB", "MiB/s", "rss/N=1", "thr/N=1", "failed"
		split("veth lo", paths, " ")
		for (p = 1; p <= 2; p++) for (n = 1; n <= 4; n *= 2) {
			key = paths[p] " " n; k = c[key]
			if (k == 0) { printf "%-5s %-7d all %d runs failed\n", paths[p], n, fails[key]; continue }
			for (i = 1; i <= k; i++) { a[i] = rss[key, i] / 1024; b[i] = thr[key, i]
				ra[i] = rss[key, i] / base_rss[paths[p], i]; rb[i] = thr[key, i] / base_thr[paths[p], i] }
			mr = med(a, k); rl = lo; rh = hi
			mt = med(b, k); tl = lo; th = hi
			printf "%-5s %-7d %5.1f [%5.1f-%5.1f]        %6.1f [%6.1f-%6.1f]    %-9.2f %-9.2f %d\n",
				paths[p], n, mr, rl, rh, mt, tl, th, med(ra, k), med(rb, k), fails[key] + 0
		}
		k = c["slow 2"]
		if (k == 0) { printf "slow  2+1     all %d runs failed\n", fails["slow 2"]; exit }
		for (i = 1; i <= k; i++) { a[i] = rss["slow 2", i] / 1024; b[i] = thr["slow 2", i]; s1[i] = slow[i]
			ra[i] = rss["slow 2", i] / rss["veth 2", i]; rb[i] = thr["slow 2", i] / thr["veth 2", i] }
		mr = med(a, k); rl = lo; rh = hi
		mt = med(b, k); tl = lo; th = hi
		printf "slow  2+1     %5.1f [%5.1f-%5.1f]        %6.1f [%6.1f-%6.1f]    %-9.2f %-9.2f %d   (rss and MiB/s of the two fast ones against veth 2)\n",
			mr, rl, rh, mt, tl, th, med(ra, k), med(rb, k), fails["slow 2"] + 0
		ms = med(s1, k)
		printf "      the slow sender itself: %.2f MiB/s [%.2f-%.2f] on its 8mbit link while the two ran\n", ms, lo, hi
	}' "$work/rows"
