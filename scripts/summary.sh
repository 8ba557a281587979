#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the one-line summary of make test from the stages' TAP and KTAP
# results: "N passed, N failed, N skipped".  A stage that left no results
# counts as one failure.  KUnit's counts ($RESULTS/kunit.counts) hold every
# boot of run_kunit.sh (each architecture, each kernel command line) and
# each boot's console check; the boots are listed before the line, with
# the plain kunit.py run's (scripts/kunit-plain.sh, kunit-plain.counts).
# The kselftest boots are four stages: x86_64's main boot
# (selftest.counts) and its swiotlb boot (selftest-swiotlb.counts), which
# make test runs apart, and arm64's (selftest-arm64.counts,
# selftest-arm64-swiotlb.counts).
# --clean removes the previous run's results.
set -u
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = --clean ]; then
	rm -f "$RESULTS"/*.counts "$RESULTS"/*.tap "$RESULTS"/*.ktap \
		"$RESULTS"/kunit.json "$RESULTS"/kunit-*.json "$RESULTS"/*.console \
		"$RESULTS"/kunit-*.expected "$RESULTS"/kunit-boots.txt \
		"$RESULTS/coverage.md" "$RESULTS/mutate-sample.tap"
	rm -rf "$RESULTS/gcov"
	exit 0
fi

total=(0 0 0)
add() {
	local p f s
	read -r p f s <<<"$1"
	total=($((total[0] + p)) $((total[1] + f)) $((total[2] + s)))
}

if [ -f "$RESULTS/check-patches.tap" ]; then
	add "$("$REPO/scripts/tap-count.py" tap "$RESULTS/check-patches.tap")"
else
	echo "check-patches left no results" >&2
	add "0 1 0"
fi
if [ -f "$RESULTS/coverage.tap" ]; then
	add "$("$REPO/scripts/tap-count.py" tap "$RESULTS/coverage.tap")"
else
	echo "coverage left no results" >&2
	add "0 1 0"
fi
# The sample of killed mutants (scripts/mutate-sample.sh), when make test
# ran it.
if [ -f "$RESULTS/mutate-sample.tap" ]; then
	add "$("$REPO/scripts/tap-count.py" tap "$RESULTS/mutate-sample.tap")"
fi
if [ -f "$RESULTS/kunit-boots.txt" ]; then
	echo "KUnit boots:"
	sed 's/^/  /' "$RESULTS/kunit-boots.txt"
fi
for stage in kunit kunit-plain selftest selftest-swiotlb selftest-arm64 \
	selftest-arm64-swiotlb; do
	if [ -f "$RESULTS/$stage.counts" ]; then
		add "$(cat "$RESULTS/$stage.counts")"
	else
		echo "$stage left no results" >&2
		add "0 1 0"
	fi
done
echo "${total[0]} passed, ${total[1]} failed, ${total[2]} skipped"
[ "${total[1]}" = 0 ]
