#!/bin/sh
# multi-rss.sh: peak RSS and bytes read of "ferry send" to 1 and to 4
# receivers on loopback, interleaved (1 4 1 4 ...), ROUNDS rounds.
#
#   benches/multi-rss.sh [SIZE_MIB [ROUNDS]]     (defaults: 256 3)
#
# Uses bin/ferry (make ferry). Peak RSS is /usr/bin/time -v's maximum
# resident set of the sender; "read" is the sender's rchar from
# /proc/PID/io, sampled every 20 ms until it exits (every byte read by
# read(2) and pread(2): the file and the receivers' few small messages),
# divided by the file's size. Receivers run --yes --no-mdns on 127.0.0.1.
# Nothing leaves loopback.
set -eu
size=${1:-256}
rounds=${2:-3}
bin=$(cd "$(dirname "$0")/.." && pwd)/bin/ferry
[ -x "$bin" ] || { echo "multi-rss: build bin/ferry first (make ferry)" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT INT TERM
head -c $((size << 20)) /dev/urandom > "$work/payload.bin"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"

# one N: a send of the payload to N receivers; prints "N rss_kib read_ratio seconds"
one() {
	n=$1
	args=""
	i=0
	while [ $i -lt "$n" ]; do
		d="$work/r$i"; rm -rf "$d" "$work/r$i.json"; mkdir -p "$d"
		HOME="$work/h$i" XDG_CONFIG_HOME="$work/h$i/.config" \
			"$bin" receive --yes --no-mdns --json --listen 127.0.0.1:0 --code "10000$i" --dir "$d" \
			> "$work/r$i.json" 2>/dev/null &
		while ! grep -q '"listening"' "$work/r$i.json" 2>/dev/null; do sleep 0.05; done
		port=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$work/r$i.json" | head -1)
		args="$args --to 127.0.0.1:$port --code 10000$i"
		i=$((i + 1))
	done
	start=$(date +%s.%N)
	# shellcheck disable=SC2086
	/usr/bin/time -v -o "$work/time.txt" "$bin" send --quiet $args "$work/payload.bin" &
	tpid=$!
	pid=""
	while [ -z "$pid" ]; do pid=$(pgrep -P $tpid || true); done
	rchar=0
	while [ -r "/proc/$pid/io" ]; do
		v=$(sed -n "s/^rchar: //p" "/proc/$pid/io" 2>/dev/null || true)
		[ -n "$v" ] && rchar=$v
		sleep 0.02
	done
	wait $tpid
	end=$(date +%s.%N)
	wait
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
	echo "$n $rss $(echo "scale=3; $rchar / ($size * 1048576)" | bc) $(echo "$end - $start" | bc)"
}

echo "receivers peak_rss_kib read_per_byte seconds   (payload $size MiB)"
r=0
while [ $r -lt "$rounds" ]; do
	one 1
	one 4
	r=$((r + 1))
done
