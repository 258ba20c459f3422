#!/usr/bin/env bash
# Installs the Debian packages Ferry's tests need, when they are missing.
# As root it installs them; otherwise it prints the exact command to run
# and fails, so a missing package is never a mysterious build error.
# With "gui" it does the same for the app's build alone (make ferry-gui),
# and on a system without dpkg it leaves that to the compiler.
set -euo pipefail

# Fyne's cgo build
gui_pkgs=(gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev
	libxinerama-dev libxi-dev libxxf86vm-dev)
what="ferry tests need"
if [ "${1:-}" = gui ]; then
	command -v dpkg-query >/dev/null || exit 0
	what="building ferry-gui needs"
fi

pkgs=(
	"${gui_pkgs[@]}"
	# rendering the real window in tests; xwininfo (x11-utils) finds it
	xvfb xauth imagemagick x11-utils
	# network namespaces, veth pairs and tc for end-to-end tests
	iproute2
	# a standard DNS-SD browser for the mDNS interop test
	python3-zeroconf
	# the Windows build run under Wine, and cgo cross-builds for Windows;
	# Mesa's llvmpipe draws the Windows app's OpenGL window under Xvfb
	# (libwine only recommends it)
	wine64 mingw-w64 libgl1-mesa-dri
	# loop-mounted vfat, exFAT and ext4 casefold images for the name tests
	dosfstools exfatprogs e2fsprogs
	# the same as FUSE mounts where the kernel has no vfat or exFAT driver
	fusefat exfat-fuse
	# checking the shell completion scripts (ferry completion bash|zsh|fish)
	zsh fish
	# validating the Linux packages' desktop entry
	desktop-file-utils
	# reading back the .rpm packages that make dist writes
	rpm
	# the real browser that opens the page a receiver serves (tests/browser),
	# and pngquant, which makes its screenshots small (make screenshots)
	chromium pngquant
	# the system tray under Xvfb (gui/xvfb/tray_test.go): a session bus,
	# a StatusNotifierItem watcher and a small GTK tray that draws the
	# items (xdotool, below, opens its menu); systemd-analyze verifies
	# the ferry-receive.service unit
	dbus-daemon dbus-bin haskell-status-notifier-item-utils haskell-gtk-sni-tray-utils systemd
	# running ferry.wasm without a browser: core/transfer's tests compiled
	# to WebAssembly (make unit) and core/web's Node test (Node 20.10 or
	# later; an older one makes that test skip and say why)
	nodejs
	# the page's ChaCha20-Poly1305 (gui/page/simd/build.sh): libsodium's
	# source package unpacked by dpkg-source, compiled by clang 16 to
	# WebAssembly SIMD with emscripten's headers and linked by emcc (its
	# own clang 14 miscompiles it); without them the page ships npm
	# libsodium's, and as root the page's tests fail
	emscripten clang-16 dpkg-dev curl
	# the real X11 clipboard in the clipboard tests (ferry send --clipboard)
	xclip
	# typing the Send clipboard shortcut into the real app under Xvfb
	xdotool
	# counting a receiver's file-system calls per small file against tar's
	# (tests/smallfiles_linux_test.go)
	strace tar
)

[ "${1:-}" = gui ] && pkgs=("${gui_pkgs[@]}")
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "$what these Debian packages: ${missing[*]}" >&2
	echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
