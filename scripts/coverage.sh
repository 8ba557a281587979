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
#   scripts/coverage.sh --attribute
#                                  also say which test reaches each error
#                                  return: boot the KUnit kernel once per
#                                  suite of the main boot (kunit.filter_glob)
#                                  and the kselftest kernel once per binary,
#                                  each with its own gcov data, in
#                                  $RESULTS/gcov-attribution/<boot>/; the
#                                  other KUnit boots of $RESULTS/gcov count
#                                  as runs of their own
#
# make coverage is --run --attribute --docs; make test runs none of these
# boots.
set -u
. "$(dirname "$0")/common.sh"

FILES="drivers/dma-buf/dma-heap.c drivers/dma-buf/heaps/heap-helpers.c
drivers/dma-buf/heaps/system_heap.c drivers/dma-buf/heaps/system_contig_heap.c
drivers/dma-buf/heaps/cma_heap.c drivers/dma-buf/heaps/chunk_heap.c
drivers/dma-buf/heaps/carveout_heap.c"
BASELINE=$REPO/kunit/coverage-baseline
REASONS=$REPO/docs/coverage-reasons
tap=$RESULTS/coverage.tap
ATTR=$RESULTS/gcov-attribution
SELFTESTS="dmabuf-heap dma-heap-seed dma-heap-test dma-heap-fuzz"

# fresh DIR REF: whether DIR, the gcov data of an attribution boot, is newer
# than REF, make test's data of the same kernel: older data may be of an
# earlier build, whose objects the .gcno files no longer describe.
fresh() {
	[ -d "$1" ] && [ "$1" -nt "$2" ]
}

# attribution_boot NAME COMMAND...: run COMMAND, one boot with its results
# in $ATTR/NAME and its output in $ATTR/NAME.log.  A failed case fails the
# boot but still leaves the data of what it reached, so it is only reported.
attribution_boot() {
	local name=$1 t0 rc=0

	shift
	t0=$(date +%s)
	rm -rf "${ATTR:?}/$name"
	mkdir -p "$ATTR/$name"
	RESULTS=$ATTR/$name "$@" >"$ATTR/$name.log" 2>&1 || rc=$?
	echo "coverage: attribution boot $name: $(($(date +%s) - t0))s, exit $rc"
}

# selftest_alone BINARY: the kselftest boot of that binary only, of the
# kernel that make test booted, from an initramfs of its own
# (SELFTEST_INITRAMFS), packed from the build phase's initramfs.list with a
# /tests/list that names BINARY only.  The build phase would make the
# kernel again: a new kernel after any change of the tree, whose .gcno
# files would no longer match make test's data.
selftest_alone() {
	local b=$SELFTEST_BUILD

	echo "$1" >"$RESULTS/tests.list"
	sed "s|^file /tests/list .*|file /tests/list $RESULTS/tests.list 0644 0 0|" \
		"$b/initramfs.list" >"$RESULTS/initramfs.list" &&
		"$b/gen_init_cpio" "$RESULTS/initramfs.list" >"$RESULTS/initramfs.cpio" &&
		SELFTEST_TESTS=$1 SELFTEST_PHASE=boot SELFTEST_INITRAMFS=$RESULTS/initramfs.cpio \
			"$REPO/selftests/run-selftests.sh"
}

# add_run NAME BUILD DIR: NAME, the run whose gcov data is DIR, as
# coverage.py's --attribute in $attrs; a boot that left none is reported.
add_run() {
	if [ -d "$3" ]; then
		attrs+=(--attribute "$1=$2:$3")
	else
		echo "coverage: no gcov data of $1 in $3: not a run to attribute to" >&2
	fi
}

# attribution: the boots of --attribute that are not fresh, then the
# runs in $attrs.  The suites are those that ran in the main KUnit boot
# ($RESULTS/kunit.json).
attribution() {
	local suites s t d t0

	[ -f "$RESULTS/kunit.json" ] ||
		die "coverage: no $RESULTS/kunit.json, whose suites --attribute boots alone (run make test or --run first)"
	suites=$(python3 -c 'import json, sys
print("\n".join(g["name"] for g in json.load(open(sys.argv[1]))["sub_groups"]))' \
		"$RESULTS/kunit.json") || die "coverage: no suites in $RESULTS/kunit.json"
	t0=$(date +%s)
	for s in $suites; do
		d=$ATTR/kunit-$s/gcov/kunit-main
		fresh "$d" "$RESULTS/gcov/kunit-main" ||
			SKIP_PREPARE=1 SKIP_BUILD=1 attribution_boot "kunit-$s" "$REPO/run_kunit.sh" "$s"
		add_run "KUnit $s" "$KUNIT_BUILD" "$d"
	done
	[ -f "$SELFTEST_BUILD/initramfs.list" ] ||
		die "coverage: no $SELFTEST_BUILD/initramfs.list to boot the kselftests from"
	for t in $SELFTESTS; do
		d=$ATTR/selftest-$t/gcov/selftest
		fresh "$d" "$RESULTS/gcov/selftest" ||
			attribution_boot "selftest-$t" selftest_alone "$t"
		add_run "kselftest $t" "$SELFTEST_BUILD" "$d"
	done
	echo "coverage: attribution boots: $(($(date +%s) - t0))s"
	for d in "$RESULTS"/gcov/kunit-*/; do
		[ "$d" = "$RESULTS/gcov/kunit-main/" ] || [ ! -d "$d" ] ||
			add_run "$(basename "$d")" "$KUNIT_BUILD" "${d%/}"
	done
}

docs=0 rebase=0 run=0 attribute=0
for a in "$@"; do
	case $a in
	--run) run=1 ;;
	--docs) docs=1 ;;
	--baseline) rebase=1 ;;
	--attribute) attribute=1 ;;
	*) die "usage: $0 [--run] [--docs] [--baseline] [--attribute]" ;;
	esac
done
if [ $run = 1 ]; then
	[ -d "$RESULTS/gcov/kunit-main" ] || SKIP_PREPARE=${SKIP_PREPARE:-0} "$REPO/run_kunit.sh"
	[ -d "$RESULTS/gcov/selftest" ] || "$REPO/selftests/run-selftests.sh"
fi
attrs=()
[ $attribute = 0 ] || attribution

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

args=(--src "$KDIR" "${builds[@]}" "${attrs[@]}" --files $FILES --markdown "$RESULTS/coverage.md"
	--command "make coverage (scripts/coverage.sh${*:+ $*}; gcov data of the boots:$boots)")
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
