#!/bin/sh
# concur-rss.sh: peak RSS and throughput of one receiver taking 1, 2 and
# 4 senders at once (core/transfer's ServeMany, MaxConcurrent 4), each
# sending TOTAL/N MiB, so every run moves the same total; interleaved
# (1 2 4 1 2 4 ...), ROUNDS rounds.
#
#   benches/concur-rss.sh [TOTAL_MIB [ROUNDS]]     (defaults: 4096 3)
#
# Both ends are benches/cmd/concurbench processes (built here) on
# 127.0.0.1; each sender has a key of its own. Peak RSS is /usr/bin/time
# -v's maximum resident set of the receiver; seconds run from starting
# the senders to the receiver's exit after its last session; MiB/s is
# TOTAL over that. The payload is random bytes, generated once. Nothing
# leaves loopback. The received files are removed after each run.
set -eu
total=${1:-4096}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
bin="$work/concurbench"
(cd "$root" && go build -o "$bin" ./benches/cmd/concurbench)
for n in 1 2 4; do
	head -c $(((total / n) << 20)) /dev/urandom > "$work/payload-$n.bin"
done

# one N: N senders at once of TOTAL/N MiB each; prints "N rss_kib seconds mib_per_s"
one() {
	n=$1
	d="$work/recv"; rm -rf "$d" "$work/recv.out"; mkdir -p "$d"
	/usr/bin/time -v -o "$work/time.txt" "$bin" receive -dir "$d" -max 4 -sessions "$n" -code 424242 \
		> "$work/recv.out" 2>&1 &
	tpid=$!
	while ! grep -q '^listening' "$work/recv.out" 2>/dev/null; do sleep 0.05; done
	port=$(sed -n 's/^listening //p' "$work/recv.out")
	start=$(date +%s.%N)
	i=0
	while [ $i -lt "$n" ]; do
		# A sender that fails ends the receiver too, which would
		# otherwise wait for its session.
		{ "$bin" send -to "127.0.0.1:$port" -code 424242 "$work/payload-$n.bin" || kill $tpid; } &
		i=$((i + 1))
	done
	wait $tpid || { echo "concur-rss: a run failed:" >&2; cat "$work/recv.out" >&2; exit 1; }
	end=$(date +%s.%N)
	wait
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
	secs=$(echo "$end - $start" | bc)
	echo "$n $rss $secs $(echo "scale=1; $total / $secs" | bc)"
	rm -rf "$d"
}

echo "senders peak_rss_kib seconds MiB/s   (total $total MiB per run, load $(cut -d' ' -f1 /proc/loadavg))"
r=0
while [ $r -lt "$rounds" ]; do
	one 1
	one 2
	one 4
	r=$((r + 1))
done
echo "load at the end $(cut -d' ' -f1 /proc/loadavg)"
