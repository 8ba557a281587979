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

# The CMA heaps again, in a boot without a CMA area: no heap may appear.
# Only for the full run, not for a filtered one.
if [ $# = 0 ] && grep -q '^CONFIG_DMABUF_HEAPS_CMA=y' "$KUNIT_BUILD/.config"; then
	echo "running the CMA heaps' setup case without a CMA area (cma=0)"
	DMA_HEAPS_CMA=0 "${kunit[@]}" exec "${common[@]}" --timeout 300 \
		--json="$RESULTS/kunit-nocma.json" \
		'dma_heap_cma_setup.the_cma_heaps_are_one_per_area_and_one_for_the_default' \
		</dev/null || rc=$?
	sed -n '/^\(KTAP\|TAP\) version/,$p' "$KUNIT_BUILD/test.log" \
		>"$RESULTS/kunit-nocma.ktap" || true
	grep -q '^cma: Reserved' "$KUNIT_BUILD/test.log" &&
		{ echo "the cma=0 boot reserved a CMA area" >&2; rc=1; }
	nocma=$(echo dma_heap_cma_setup | "$REPO/scripts/tap-count.py" kunit \
		"$RESULTS/kunit-nocma.json" /dev/stdin)
	counts=$("$REPO/scripts/tap-count.py" sum <(echo "$counts") <(echo "$nocma"))
fi
echo "$counts" >"$RESULTS/kunit.counts"
read -r passed failed skipped <<<"$counts"
end=$(date +%s)
echo "KUnit: build $((built - start))s, run $((end - built))s ($DMA_HEAPS_ACCEL); KTAP in $RESULTS/kunit.ktap"
echo "kunit: $passed passed, $failed failed, $skipped skipped"
[ "$rc" = 0 ] && [ "$failed" = 0 ]
