#!/bin/sh
# bars-capture.sh: screen captures of "ferry send"'s progress bars in
# tmux, one receiver and two, at 60 and 120 columns: each pane captured
# (tmux capture-pane -p) while the bar moves and once the send is over.
#
#   benches/bars-capture.sh [FERRY [OUT]]   (defaults: bin/ferry, stdout)
#
# Root only: it runs itself again inside "unshare -n", where loopback is
# the only interface and a tbf qdisc on it (40 Mbit/s, about 5 MiB/s)
# keeps the bar on screen for a few seconds. Receivers run --yes
# --no-mdns on 127.0.0.1; nothing leaves the namespace.
set -eu
bin=${1:-$(cd "$(dirname "$0")/.." && pwd)/bin/ferry}
out=${2:-/dev/stdout}
[ -x "$bin" ] || { echo "bars-capture: no ferry at $bin (make ferry)" >&2; exit 2; }
if [ "${BARS_IN_NS:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "bars-capture: needs root (unshare -n, tc)" >&2; exit 2; }
	BARS_IN_NS=1 exec unshare -n "$0" "$bin" "$out"
fi
# tbf drops a packet larger than its burst: loopback's 64 KiB MTU goes
# down to Ethernet's.
ip link set lo mtu 1500 up
tc qdisc add dev lo root tbf rate 40mbit burst 32kb latency 400ms

work=$(mktemp -d)
sock="bars-capture-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -f "/tmp/tmux-$(id -u)/$sock"; kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" FERRY_NO_HISTORY=1
mkdir -p "$work/src"
truncate -s 40M "$work/src/big-holiday-photos-from-the-summer-of-2026.iso"
echo hello > "$work/src/notes.txt"

# receiver N NAME: starts a receiver; prints its address
receiver() {
	d="$work/r$1"; rm -rf "$d"; mkdir -p "$d/dir"
	HOME="$d" XDG_CONFIG_HOME="$d/.config" "$bin" receive --yes --no-mdns --json \
		--listen 127.0.0.1:0 --code "60606$1" --name "$2" --dir "$d/dir" > "$d/events" 2>/dev/null &
	while ! grep -q '"listening"' "$d/events" 2>/dev/null; do sleep 0.05; done
	echo "127.0.0.1:$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$d/events" | head -1)"
}

# capture COLS TITLE SEND-ARGS...: runs ferry send in a tmux pane COLS
# wide and prints the pane mid-transfer and at the end.
capture() {
	cols=$1 title=$2
	shift 2
	tmux -L "$sock" new-session -d -s bars -x "$cols" -y 16 \
		"$bin send $* $work/src/notes.txt $work/src/big-holiday-photos-from-the-summer-of-2026.iso </dev/null; echo exit \$?; sleep 600"
	# Mid-transfer: once a bar shows between 20% and 80%.
	i=0
	while [ $i -lt 400 ]; do
		if tmux -L "$sock" capture-pane -p -t bars | grep -Eq ' ([2-7][0-9])% '; then break; fi
		sleep 0.05
		i=$((i + 1))
	done
	printf '==== %s, %s columns, mid-transfer ====\n' "$title" "$cols"
	tmux -L "$sock" capture-pane -p -t bars | sed -e 's/[[:space:]]*$//' -e '/^$/d'
	while ! tmux -L "$sock" capture-pane -p -t bars | grep -q '^exit '; do sleep 0.2; done
	printf '==== %s, %s columns, at the end ====\n' "$title" "$cols"
	tmux -L "$sock" capture-pane -p -t bars | sed -e 's/[[:space:]]*$//' -e '/^$/d'
	echo
	tmux -L "$sock" kill-session -t bars
}

{
	echo "# ferry send's progress bars: $("$bin" version 2>&1 | head -1)"
	echo "# 40 MiB on loopback limited to 40 Mbit/s (tc tbf), tmux 16 rows"
	echo
	for cols in 60 120; do
		a=$(receiver 1 "living-room-computer-under-the-television")
		capture "$cols" "one receiver" --to "$a" --code 606061
		wait
		a=$(receiver 1 "living-room-computer-under-the-television")
		b=$(receiver 2 "kitchen-laptop")
		capture "$cols" "two receivers" --to "$a" --code 606061 --to "$b" --code 606062
		wait
	done
} > "$out"
