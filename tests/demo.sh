#!/usr/bin/env bash
# The README's first command (make demo): a receiver and a sender on this
# machine. It builds a sample tree, starts `ferry receive` on loopback,
# sends the tree with `ferry send --diag`, and shows what arrived. Nothing
# leaves loopback: the receiver runs with --no-mdns and the sender dials
# it directly.
set -euo pipefail
cd "$(dirname "$0")/.."
ferry=./bin/ferry
work=$(mktemp -d /tmp/ferry-demo.XXXXXX)
trap 'kill $recv_pid 2>/dev/null || true; rm -rf "$work"' EXIT

src="$work/sample tree"
mkdir -p "$src/docs" "$src/photos/2026" "$src/empty folder"
echo "hello from ferry" >"$src/docs/readme.txt"
head -c 3000000 /dev/urandom >"$src/photos/2026/beach.raw"
head -c 200000000 /dev/urandom >"$src/video.bin"
for i in $(seq 1 200); do echo "note $i" >"$src/docs/note-$i.txt"; done
mkdir -p "$work/inbox"

echo "== ferry receive (on 127.0.0.1, code 424242)"
$ferry receive --no-mdns --listen 127.0.0.1:0 --code 424242 --yes --json \
	--dir "$work/inbox" --name demo-receiver >"$work/events" 2>"$work/recv.err" &
recv_pid=$!
for _ in $(seq 1 100); do
	grep -q '"listening"' "$work/events" 2>/dev/null && break
	sleep 0.1
done
port=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$work/events" | head -1)
[ -n "$port" ] || { echo "receiver did not start:"; cat "$work/recv.err"; exit 1; }
head -1 "$work/events"

echo "== ferry send --diag"
$ferry send --to "127.0.0.1:$port" --code 424242 --diag "$src"
wait $recv_pid

echo "== what arrived"
(cd "$work/inbox" && find . -path ./.ferry-partial -prune -o -type f -print | wc -l | xargs echo "files:" && du -sh . | cut -f1 | xargs echo "size:")
diff -r "$src" "$work/inbox/sample tree" && echo "identical to the source: yes"
