# SPDX-License-Identifier: GPL-2.0
# Paths shared by the scripts; each may be overridden from the environment.
# shellcheck shell=bash
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DMA_HEAPS_CACHE=${DMA_HEAPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dma-heaps}
KDIR=${KDIR:-$DMA_HEAPS_CACHE/linux}
KUNIT_BUILD=${KUNIT_BUILD:-$DMA_HEAPS_CACHE/build-kunit}
CHECK_BUILD=${CHECK_BUILD:-$DMA_HEAPS_CACHE/build-check}
SELFTEST_BUILD=${SELFTEST_BUILD:-$DMA_HEAPS_CACHE/build-selftest}
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

cc_make_opt() {
	if command -v ccache >/dev/null 2>&1; then
		echo "CC=ccache gcc"
	else
		echo "CC=gcc"
	fi
}

die() {
	echo "$*" >&2
	exit 1
}
