# SPDX-License-Identifier: GPL-2.0
# Paths shared by the scripts; each may be overridden from the environment.
# shellcheck shell=bash
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DMA_HEAPS_CACHE=${DMA_HEAPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dma-heaps}
KDIR=${KDIR:-$DMA_HEAPS_CACHE/linux}
KUNIT_BUILD=${KUNIT_BUILD:-$DMA_HEAPS_CACHE/build-kunit}
KUNIT_BUILD_I386=${KUNIT_BUILD_I386:-$DMA_HEAPS_CACHE/build-kunit-i386}
KUNIT_BUILD_ARM64=${KUNIT_BUILD_ARM64:-$DMA_HEAPS_CACHE/build-kunit-arm64}
KUNIT_BUILD_ARM64_64K=${KUNIT_BUILD_ARM64_64K:-$DMA_HEAPS_CACHE/build-kunit-arm64-64k}
CHECK_BUILD=${CHECK_BUILD:-$DMA_HEAPS_CACHE/build-check}
SELFTEST_BUILD=${SELFTEST_BUILD:-$DMA_HEAPS_CACHE/build-selftest}
# The arm64 kselftest boot's tests and initramfs (its kernel is the arm64
# KUnit kernel), and its static busybox (scripts/install-deps.sh).
SELFTEST_BUILD_ARM64=${SELFTEST_BUILD_ARM64:-$DMA_HEAPS_CACHE/build-selftest-arm64}
BUSYBOX_ARM64=${BUSYBOX_ARM64:-$DMA_HEAPS_CACHE/busybox-arm64/busybox}
RESULTS=${RESULTS:-$DMA_HEAPS_CACHE/results}
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-$DMA_HEAPS_CACHE/ccache}
# Build dirs are siblings of the tree, so relative paths, and with them
# ccache entries, are shared between them.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$DMA_HEAPS_CACHE}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Fixed identity and dates make the baseline commits, and with them the
# series' base-commit, the same on every machine.
BASELINE_IDENT_NAME="dma-heaps baseline"
BASELINE_IDENT_EMAIL="baseline@invalid"
BASELINE_DATE="2000-01-01T00:00:00Z"

# The objects whose coverage scripts/coverage.sh reports, as make arguments
# that give them gcov instrumentation (scripts/Makefile.lib) in a kernel
# with CONFIG_GCOV_KERNEL: the rest of the kernel is not instrumented.
GCOV_OBJECTS="dma-heap heap-helpers system_heap system_contig_heap cma_heap chunk_heap carveout_heap"
gcov_make_vars() {
	local o

	for o in $GCOV_OBJECTS; do
		echo "GCOV_PROFILE_$o.o=y"
	done
}

# cc_make_opt [CROSS_COMPILE]: make's CC=, through ccache when there is one.
cc_make_opt() {
	if command -v ccache >/dev/null 2>&1; then
		echo "CC=ccache ${1:-}gcc"
	else
		echo "CC=${1:-}gcc"
	fi
}

# kunitconfig_with FRAGMENT KUNITCONFIG: KUNITCONFIG without the options
# that FRAGMENT sets, on or off, then FRAGMENT: each option once.
kunitconfig_with() {
	awk 'NR == FNR {
		if (match($0, /^(# )?CONFIG_[A-Za-z0-9_]+/))
			set[substr($0, RSTART, RLENGTH)] = 1
		next
	}
	{
		o = $0
		if (match(o, /^(# )?CONFIG_[A-Za-z0-9_]+/)) {
			o = substr(o, RSTART, RLENGTH)
			sub(/^# /, "", o)
			if (o in set || ("# " o) in set)
				next
		}
		print
	}' "$1" "$2"
	cat "$1"
}

# empty_initrd FILE: an initrd of 4 MiB, an empty initramfs (a newc
# archive's trailer) padded with zeros, which the kernel unpacks, then
# frees: for the arm64 boots' device-tree regions over the initrd.
empty_initrd() {
	python3 -c 'import sys
a = ("070701" + "%08x" * 13 % (0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 11, 0) +
     "TRAILER!!!\0").encode()
open(sys.argv[1], "wb").write(a.ljust(4 << 20, b"\0"))' "$1"
}

# merge_fragment SRC BUILD FRAGMENT: configure BUILD as "make allnoconfig"
# of the tree SRC plus FRAGMENT.  An option of FRAGMENT that SRC has but the
# .config lacks means a missing dependency: fail, naming it.  One that SRC
# does not have (a heap not written yet, another tree) is only reported.
merge_fragment() {
	local src=$1 b=$2 frag=$3 opt dropped=""
	local log=$b/merge_config.log

	mkdir -p "$b"
	(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -n -O "$b" \
		"$frag") >"$log" 2>&1 || { cat "$log" >&2; return 1; }
	for opt in $(sed -n 's/^Value requested for CONFIG_\([A-Za-z0-9_]*\) not in final .config$/\1/p' "$log"); do
		if grep -rqx --include='Kconfig*' "\(menu\)\?config $opt" "$src"; then
			dropped="$dropped $opt"
		else
			echo "CONFIG_$opt is not in $src"
		fi
	done
	[ -z "$dropped" ] || { echo "dropped by Kconfig:$dropped" >&2; return 1; }
}

# build_small_kernel SRC BUILD FRAGMENT [MAKE ARGS...]: merge_fragment,
# then the bzImage and the UAPI headers (in BUILD/hdr) of a kernel booted by
# our harnesses.
build_small_kernel() {
	local src=$1 b=$2 frag=$3

	shift 3
	merge_fragment "$src" "$b" "$frag" || return 1
	make -s -C "$src" O="$b" ARCH=x86_64 "$(cc_make_opt)" -j"$JOBS" "$@" bzImage </dev/null &&
		make -s -C "$src" O="$b" ARCH=x86_64 headers_install \
			INSTALL_HDR_PATH="$b/hdr" </dev/null
}

# qemu_accel: the accelerator for our QEMU boots: $DMA_HEAPS_ACCEL if set,
# else what scripts/probe-kvm.sh finds with the KUnit kernel, else (with no
# kernel to probe with) tcg.
qemu_accel() {
	if [ -n "${DMA_HEAPS_ACCEL:-}" ]; then
		echo "$DMA_HEAPS_ACCEL"
	elif [ -f "$KUNIT_BUILD/arch/x86/boot/bzImage" ]; then
		"$REPO/scripts/probe-kvm.sh" "$KUNIT_BUILD/arch/x86/boot/bzImage"
	else
		echo tcg
	fi
}

die() {
	echo "$*" >&2
	exit 1
}

# count "P F S": add to $total, a "passed failed skipped" count.
count() {
	local p f s a b c
	read -r p f s <<<"$*"
	read -r a b c <<<"$total"
	total="$((a + p)) $((b + f)) $((c + s))"
}

# result OK DESC: one harness-level result, counted into $total and
# printed as TAP; a failure also sets rc=1.
result() {
	if [ "$1" = 1 ]; then
		count 1 0 0
		echo "ok - $2"
	else
		count 0 1 0
		echo "not ok - $2"
		rc=1
	fi
}
