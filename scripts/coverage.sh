#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Line, branch and error-return coverage of our code, from the gcov data
# that the KUnit boots (run_kunit.sh, x86_64) and the kselftest boot
# (selftests/run-selftests.sh) wrote out to $RESULTS/gcov/, by
# scripts/coverage.py.  Writes $RESULTS/coverage.md and $RESULTS/coverage.tap
# and prints the figures; fails when an error return that
# kunit/coverage-baseline lists as reached was not reached.
#
#   scripts/coverage.sh            report (make test runs this)
#   scripts/coverage.sh --run      first run the boots whose data is missing
#   scripts/coverage.sh --docs     also write docs/coverage.md
#   scripts/coverage.sh --baseline also rewrite kunit/coverage-baseline
#
# make coverage is --run --docs.
set -u
. "$(dirname "$0")/common.sh"

FILES="drivers/dma-buf/dma-heap.c drivers/dma-buf/heaps/heap-helpers.c
drivers/dma-buf/heaps/system_heap.c drivers/dma-buf/heaps/system_contig_heap.c
drivers/dma-buf/heaps/cma_heap.c drivers/dma-buf/heaps/chunk_heap.c
drivers/dma-buf/heaps/carveout_heap.c"
BASELINE=$REPO/kunit/coverage-baseline
REASONS=$REPO/docs/coverage-reasons
tap=$RESULTS/coverage.tap

docs=0 rebase=0 run=0
for a in "$@"; do
	case $a in
	--run) run=1 ;;
	--docs) docs=1 ;;
	--baseline) rebase=1 ;;
	*) die "usage: $0 [--run] [--docs] [--baseline]" ;;
	esac
done
if [ $run = 1 ]; then
	[ -d "$RESULTS/gcov/kunit-main" ] || SKIP_PREPARE=${SKIP_PREPARE:-0} "$REPO/run_kunit.sh"
	[ -d "$RESULTS/gcov/selftest" ] || "$REPO/selftests/run-selftests.sh"
fi

builds=()
boots=""
for d in "$RESULTS"/gcov/kunit-*/; do
	[ -d "$d" ] || continue
	builds+=(--build "$KUNIT_BUILD:${d%/}")
	boots="$boots $(basename "$d")"
done
if [ -d "$RESULTS/gcov/selftest" ]; then
	builds+=(--build "$SELFTEST_BUILD:$RESULTS/gcov/selftest")
	boots="$boots selftest"
fi

mkdir -p "$RESULTS"
if [ ${#builds[@]} = 0 ]; then
	printf 'TAP version 13\n1..1\nnot ok 1 - coverage: no gcov data in %s\n' \
		"$RESULTS/gcov" >"$tap"
	echo "coverage: no gcov data in $RESULTS/gcov (run make test first)" >&2
	exit 1
fi

args=(--src "$KDIR" "${builds[@]}" --files $FILES --markdown "$RESULTS/coverage.md"
	--command "make coverage (scripts/coverage.sh; gcov data of the boots:$boots)")
[ -f "$REASONS" ] && args+=(--reasons "$REASONS")
[ $rebase = 1 ] && args+=(--write-baseline "$BASELINE")
[ $rebase = 0 ] && [ -f "$BASELINE" ] && args+=(--baseline "$BASELINE")
out=$(python3 "$REPO/scripts/coverage.py" "${args[@]}")
rc=$?
echo "$out"
[ $docs = 0 ] || cp "$RESULTS/coverage.md" "$REPO/docs/coverage.md"

{
	echo "TAP version 13"
	echo "1..2"
	echo "ok 1 - coverage: gcov data of$boots"
	if [ $rc = 0 ]; then
		echo "ok 2 - coverage: every error return of kunit/coverage-baseline is reached ($(tail -n 1 <<<"$out" | grep -o 'error returns [0-9]*/[0-9]* reached'))"
	else
		echo "not ok 2 - coverage: an error return of kunit/coverage-baseline is no longer reached"
		grep 'no longer reached' <<<"$out" | sed 's/^/# /'
	fi
} >"$tap"
[ $rc = 0 ]
