#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what building and booting the tree needs, when it is missing;
# the arguments are more packages that the caller needs.
set -eu

pkgs="linux-source-6.1 qemu-system-x86 gcc make flex bison bc libelf-dev
libssl-dev python3 python3-ply python3-git ccache busybox-static cpio xz-utils kmod git perl rsync
libc6-dev binutils qemu-system-data sparse gcc-aarch64-linux-gnu libc6-dev-arm64-cross
qemu-system-arm device-tree-compiler dt-schema yamllint $*"
. "$(dirname "$0")/common.sh"

# arm64_busybox: the arm64 kselftest boot's static busybox
# ($BUSYBOX_ARM64, extracted from Debian's busybox-static:arm64, which
# cannot be installed beside the host's busybox-static: both own
# /bin/busybox).  Needs the arm64 architecture in dpkg for apt to know the
# package.
arm64_busybox() {
	local d tmp

	[ -x "$BUSYBOX_ARM64" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "no $BUSYBOX_ARM64; as root: dpkg --add-architecture arm64 && apt-get update && apt-get download busybox-static:arm64, and dpkg-deb -x it" >&2
		return 1
	fi
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		apt-get update -qq
	fi
	d=$(dirname "$BUSYBOX_ARM64")
	tmp=$(mktemp -d)
	# apt-get download fetches as _apt, which must be able to write there.
	chmod 755 "$tmp"
	mkdir -p "$d"
	(cd "$tmp" && apt-get download -qq busybox-static:arm64 </dev/null) ||
		{ apt-get update -qq && (cd "$tmp" && apt-get download -qq busybox-static:arm64 </dev/null); } ||
		{ rm -rf "$tmp"; return 1; }
	dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/x"
	install -m 0755 "$tmp/x/bin/busybox" "$BUSYBOX_ARM64"
	rm -rf "$tmp"
}

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && { arm64_busybox; exit; }

if [ "$(id -u)" != 0 ]; then
	echo "missing packages:$missing" >&2
	echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq $missing >/dev/null
arm64_busybox
