#!/usr/bin/env bash
# Installs the linux/amd64 .deb packages that `make dist` wrote, checks
# them as a person would find them, and removes them again:
#   ferry version, run from the installed path, reports the stamped version;
#   ferry-gui, its desktop entry and its icons are where desktops look,
#   and desktop-file-validate accepts the entry;
#   the .rpm packages hold the same files (read with rpm when it is there).
# Needs root (dpkg -i); CI runs it through `make dist-check`.
set -euo pipefail

dist=${1:?usage: dist-check.sh DIST_DIR VERSION}
version=${2:?usage: dist-check.sh DIST_DIR VERSION}
app=io.github.ferry-project.ferry

if [ "$(id -u)" -ne 0 ]; then
	echo "dist-check: needs root to install packages with dpkg" >&2
	exit 1
fi
# Never replace a ferry someone installed on purpose: the check would then
# remove it.
for p in ferry ferry-gui; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		echo "dist-check: package $p is already installed; remove it first (dpkg -r $p)" >&2
		exit 1
	fi
done

shopt -s nullglob
debs=("$dist"/ferry_*_amd64.deb "$dist"/ferry-gui_*_amd64.deb)
rpms=("$dist"/ferry-*.x86_64.rpm)
if [ ${#debs[@]} -ne 2 ] || [ ${#rpms[@]} -ne 2 ]; then
	echo "dist-check: want 2 .deb and 2 .rpm for amd64 in $dist, found: ${debs[*]} ${rpms[*]}" >&2
	exit 1
fi

cleanup() { dpkg -r ferry ferry-gui >/dev/null 2>&1 || true; }
trap cleanup EXIT

fail() { echo "dist-check: FAIL: $*" >&2; exit 1; }

dpkg -i "${debs[@]}" >/dev/null

# A fresh shell's PATH finds the installed binary, not bin/ferry.
got=$(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin ferry version | head -n1)
[ "$(command -v ferry)" = /usr/bin/ferry ] || fail "ferry is not /usr/bin/ferry"
# A build that recorded its git commit shows it after the version.
[ "$got" = "ferry $version" ] || [ "${got#"ferry $version "}" != "$got" ] || fail "installed ferry version says '$got', want 'ferry $version'"
echo "ok   /usr/bin/ferry version: $got"

desktop=/usr/share/applications/$app.desktop
[ -f "$desktop" ] || fail "$desktop missing"
desktop-file-validate "$desktop" || fail "desktop-file-validate rejected $desktop"
echo "ok   desktop-file-validate $desktop"
exec_name=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
[ -x "/usr/bin/$exec_name" ] || fail "the entry's Exec=$exec_name is not an installed program"
for icon in scalable/apps/$app.svg 48x48/apps/$app.png 256x256/apps/$app.png; do
	[ -s "/usr/share/icons/hicolor/$icon" ] || fail "icon $icon missing"
done
echo "ok   /usr/bin/$exec_name and its icons installed"
unit=/usr/lib/systemd/user/ferry-receive.service
[ -s "$unit" ] || fail "$unit missing"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify "$unit" || fail "systemd-analyze verify rejected $unit"
	echo "ok   systemd-analyze verify $unit"
fi
for p in ferry ferry-gui; do
	[ -s "/usr/share/doc/$p/copyright" ] || fail "$p has no copyright file"
done

if command -v rpm >/dev/null; then
	for r in "${rpms[@]}"; do
		rpm -qp --nosignature "$r" >/dev/null || fail "rpm cannot read $r"
		rpm -qlp --nosignature "$r" | grep -x '/usr/bin/ferry\(-gui\)\?' >/dev/null || fail "$r holds no /usr/bin/ferry*"
	done
	echo "ok   rpm reads ${rpms[*]##*/}"
else
	echo "skip rpm not installed: the .rpm files were written but not read back"
fi

dpkg -r ferry ferry-gui >/dev/null
[ ! -e /usr/bin/ferry ] && [ ! -e "$desktop" ] || fail "dpkg -r left files behind"
trap - EXIT
echo "ok   removed again"
