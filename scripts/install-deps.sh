#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what building and booting the tree needs, when it is missing;
# the arguments are more packages that the caller needs.
set -eu

pkgs="linux-source-6.1 qemu-system-x86 gcc make flex bison bc libelf-dev
libssl-dev python3 python3-ply python3-git ccache busybox-static cpio xz-utils kmod git perl rsync
libc6-dev binutils qemu-system-data sparse gcc-aarch64-linux-gnu qemu-system-arm
device-tree-compiler dt-schema yamllint $*"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

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
