#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the tree (installing what is missing), build the KUnit kernel with
# ./kunitconfig and run it under QEMU.  Saves the kernel's KTAP output and
# kunit.py's JSON in $RESULTS, prints the KTAP summary and exits non-zero
# when a case fails, the kernel crashes or times out, or an expected suite
# (kunit/expected-suites) did not run.  Extra arguments go to kunit.py exec,
# e.g. a filter glob: ./run_kunit.sh 'dma_heap_alloc*'.
#
# KUNITCONFIG=file uses another .kunitconfig; KCONFIG_ADD="CONFIG_X=y ..."
# adds options; DEBUG=1 adds kunit/debug.config (KASAN, lockdep, ...) and
# builds in a directory of its own; SKIP_PREPARE=1 uses the tree as it is.
set -eu
. "$(dirname "$0")/scripts/common.sh"

if [ "${DEBUG:-0}" = 1 ]; then
	KUNIT_BUILD=$KUNIT_BUILD-debug
	KCONFIG_ADD="${KCONFIG_ADD:-} $(grep '^CONFIG_' "$REPO/kunit/debug.config")"
fi

KUNITCONFIG=${KUNITCONFIG:-$REPO/kunitconfig}
[ "${SKIP_PREPARE:-0}" = 1 ] || "$REPO/scripts/prepare-tree.sh"
mkdir -p "$RESULTS"
rm -f "$RESULTS/kunit.json" "$RESULTS/kunit.ktap" "$RESULTS/kunit.counts"

kunit=("$KDIR/tools/testing/kunit/kunit.py")
common=(--arch=x86_64 --qemu_config "$REPO/kunit/qemu_x86_64.py"
	--build_dir "$KUNIT_BUILD")
add=()
for opt in ${KCONFIG_ADD:-}; do
	add+=(--kconfig_add "$opt")
done

start=$(date +%s)
cd "$KDIR"
"${kunit[@]}" build "${common[@]}" --kunitconfig "$KUNITCONFIG" "${add[@]}" \
	--jobs "$JOBS" --make_options "$(cc_make_opt)" </dev/null
built=$(date +%s)

DMA_HEAPS_ACCEL=$("$REPO/scripts/probe-kvm.sh" "$KUNIT_BUILD/arch/x86/boot/bzImage")
export DMA_HEAPS_ACCEL
echo "running KUnit under QEMU ($DMA_HEAPS_ACCEL)"

rc=0
"${kunit[@]}" exec "${common[@]}" --timeout 1200 \
	--json="$RESULTS/kunit.json" "$@" </dev/null || rc=$?
# kunit.py keeps the kernel's whole console output; keep the KTAP of it.
sed -n '/^\(KTAP\|TAP\) version/,$p' "$KUNIT_BUILD/test.log" >"$RESULTS/kunit.ktap" || true

counts=$("$REPO/scripts/tap-count.py" kunit "$RESULTS/kunit.json" \
	"$REPO/kunit/expected-suites")
echo "$counts" >"$RESULTS/kunit.counts"
read -r passed failed skipped <<<"$counts"
end=$(date +%s)
echo "KUnit: build $((built - start))s, run $((end - built))s ($DMA_HEAPS_ACCEL); KTAP in $RESULTS/kunit.ktap"
echo "kunit: $passed passed, $failed failed, $skipped skipped"
[ "$rc" = 0 ] && [ "$failed" = 0 ]
