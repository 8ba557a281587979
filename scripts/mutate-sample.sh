#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test's sample of the mutation run: MUTATE_SAMPLE (default 1)
# mutants that kunit/mutation-baseline lists as killed by a KUnit boot
# (not those only the kselftest stage kills: too long), chosen by the
# repository's commit id (each commit samples others: scripts/mutate.py
# sample), made again from the tree and run by scripts/mutate.sh, which
# neither reads nor writes the result cache (MUTATE_FORCE=1
# MUTATE_RECORD=0), does no boot of the unmutated kernel (make test's KUnit
# runs boot that), and boots only the stage that killed the mutant in the
# full run (MUTATE_STAGE; the baseline's fourth field).  It mutates the
# tree in place (MUTATE_INPLACE=1) once every other boot of make test is
# done, and builds in run_kunit.sh's build directories: the mutated file
# and the link; then the file and its unmutated object (kept, with its
# gcov notes, so that make test's gcov data still matches) are put back
# and linked.  A worktree of
# its own would cost a cold make test 2.5 minutes, its checkout and a first
# build of every object from ccache; a make mutate in progress is left
# alone either way (its worktrees are checkouts of the tree's commit, not
# of its files).  One TAP line per mutant in
# $RESULTS/mutate-sample.tap, counted into the summary (scripts/summary.sh);
# fails when a sampled mutant survives.  A sampled id that the tree no
# longer has (its code changed) is a skip: make mutate and
# scripts/mutate.py report --baseline bring the baseline up to date.
set -u
. "$(dirname "$0")/common.sh"

n=${MUTATE_SAMPLE:-1}
seed=${MUTATE_SEED:-$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo none)}
tap=$RESULTS/mutate-sample.tap
mkdir -p "$RESULTS"
: >"$tap"
t0=$(date +%s)
mapfile -t picked < <("$REPO/scripts/mutate.py" sample "$n" "$seed")
ids=$(printf '%s\n' "${picked[@]}" | cut -d' ' -f1 | tr '\n' ' ')
echo "mutate-sample: $ids(seed ${seed:0:12})"
for p in "${picked[@]}"; do
	read -r id file _ stage <<<"$p"
	# A mutant that the tree's code no longer has is a skip.
	if [ -z "$(MUTATE_IDS=$id MUTATE_FILES=$file MUTATE_FORCE=1 "$REPO/scripts/mutate.py" plan)" ]; then
		echo "ok - mutant $id # SKIP not in the tree's code any more" >>"$tap"
		continue
	fi
	rc=0
	MUTATE_SLOT=sample- MUTATE_INPLACE=1 MUTATE_IDS=$id MUTATE_FILES=$file MUTATE_STAGE=$stage MUTATE_FORCE=1 \
		MUTATE_PRISTINE=0 MUTATE_RECORD=0 MUTATE_REPORT=0 MUTATE_TAP=$tap \
		"$REPO/scripts/mutate.sh" || rc=$?
	# No result, or the tree or its build not put back: a failure.
	if ! grep -q " mutant $id " "$tap"; then
		echo "not ok - mutant $id: scripts/mutate.sh gave no result (exit $rc)" >>"$tap"
	elif [ $rc != 0 ]; then
		echo "not ok - mutant $id: scripts/mutate.sh failed after its result (exit $rc)" >>"$tap"
	fi
done
cat "$tap"
c=$("$REPO/scripts/tap-count.py" tap "$tap") || c="0 1 0"
echo "mutate-sample: $c (passed failed skipped), $(($(date +%s) - t0))s"
read -r _ f _ <<<"$c"
[ "$f" = 0 ]
