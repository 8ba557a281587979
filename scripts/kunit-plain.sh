#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The maintainer's run, as a maintainer types it in the tree:
#   ./tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=drivers/dma-buf/heaps
# with kunit.py's own QEMU configuration (1 GiB, one CPU, no kernel
# arguments of ours: no cma=, memmap=, swiotlb=), in a build directory of
# its own ($KUNIT_BUILD_PLAIN).  Only the compiler goes through ccache and
# the timeout is longer (a loaded machine); neither changes the kernel.
#
# Results in $RESULTS: kunit-plain.console, .ktap, .json and
# kunit-plain.counts ("P F S", counted by scripts/summary.sh): the cases,
# kunit/expected-suites (each must run), the console check
# (scripts/kernel_log.py), and one result for kunitconfig holding every
# option of the tree's drivers/dma-buf/heaps/.kunitconfig, and the tree's
# file every heap that kunitconfig builds in (docs/harness.md).  Its line
# goes to kunit-boots.txt.  KUNIT_PLAIN_ARCH=i386 runs the same for 32-bit
# x86 (not in make test; build directory $KUNIT_BUILD_PLAIN-i386).
set -u
. "$(dirname "$0")/common.sh"

arch=${KUNIT_PLAIN_ARCH:-x86_64}
build=${KUNIT_BUILD_PLAIN:-$DMA_HEAPS_CACHE/build-kunit-plain}
name=kunit-plain
if [ "$arch" != x86_64 ]; then
	build=$build-$arch
	name=kunit-plain-$arch
fi
tree_cfg=$KDIR/drivers/dma-buf/heaps/.kunitconfig
mkdir -p "$RESULTS"
json=$RESULTS/$name.json
console=$RESULTS/$name.console
total="0 0 0"
# The option lines of a kunitconfig: CONFIG_X=v and "# CONFIG_X is not set".
options() {
	grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set$)' "$1" | sort -u
}

if [ -f "$tree_cfg" ]; then
	missing=$(comm -23 <(options "$tree_cfg") <(options "$REPO/kunitconfig") | tr '\n' ' ')
	heaps=$(grep -E '^CONFIG_DMABUF_HEAPS_[A-Z_]+=y$' "$REPO/kunitconfig" | sort -u |
		comm -23 - <(options "$tree_cfg") | tr '\n' ' ')
	if [ -z "$missing" ] && [ -z "$heaps" ]; then
		result 1 "$name: kunitconfig and drivers/dma-buf/heaps/.kunitconfig agree"
	else
		result 0 "$name: kunitconfig and drivers/dma-buf/heaps/.kunitconfig agree (not in kunitconfig: ${missing:-none}; built-in heaps not in .kunitconfig: ${heaps:-none})"
	fi
else
	result 0 "$name: $tree_cfg exists"
fi

t0=$(date +%s)
rm -f "$json" "$build/test.log"
erc=0
(cd "$KDIR" && ./tools/testing/kunit/kunit.py run --arch="$arch" \
	--kunitconfig=drivers/dma-buf/heaps --build_dir="$build" \
	--jobs "$JOBS" --make_options "$(cc_make_opt)" --timeout 900 \
	--json="$json" </dev/null) || erc=$?
t=$(($(date +%s) - t0))
cp "$build/test.log" "$console" 2>/dev/null || : >"$console"
sed -n '/^\(KTAP\|TAP\) version/,$p' "$console" >"$RESULTS/$name.ktap"
c=$("$REPO/scripts/tap-count.py" kunit "$json" "$REPO/kunit/expected-suites") || c="0 1 0"
count "$c"
read -r p f s <<<"$c"
[ "$erc" = 0 ] || [ "$f" != 0 ] || result 0 "$name: kunit.py run exited $erc"
if "$REPO/scripts/kernel_log.py" "$name" "$console"; then
	count 1 0 0
	clean="console clean"
else
	count 0 1 0
	clean="CONSOLE NOT CLEAN"
fi
echo "$name: $p passed, $f failed, $s skipped, $clean, ${t}s (build and boot)" |
	tee -a "$RESULTS/kunit-boots.txt"
echo "$total" >"$RESULTS/$name.counts"
read -r p f s <<<"$total"
echo "$name: $p passed, $f failed, $s skipped"
[ "$f" = 0 ]
