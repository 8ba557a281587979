#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make mutate: break the series' production code one change at a time and
# see whether a test notices (docs/mutation.md says what it found).
#
# scripts/mutate.py makes the mutants with spatch (scripts/mutation/*.cocci)
# from the files as $KDIR's HEAD holds them.  Each is applied to a worktree
# of $KDIR ($DMA_HEAPS_CACHE/mutate/0/linux, checked out at $KDIR's HEAD),
# whose x86_64 KUnit kernel (./kunitconfig, no gcov) is built incrementally
# in $DMA_HEAPS_CACHE/mutate/0/build and booted, stage after stage, until
# one kills it:
#   file     the suites of the mutated file alone (a glob per file, below)
#   main     every suite, cma=64M (run_kunit.sh's kunit-main)
#   swiotlb  swiotlb=4096,force and run_kunit.sh's glob of that boot
#   and for some files the boots that reach code the others cannot:
#   nocma (cma_heap.c, carveout_heap.c), init-* (dma-heap.c), and arm64
#            (carveout_heap.c, contiguous.c: their device-tree code,
#            which only arm64 builds): the arm64 KUnit kernel
#            (run_kunit.sh's kunit-arm64 kernel, in the slot's
#            build-arm64) with the device tree and initrd of run_kunit.sh's
#            kunit-arm64 boot, dma_heap_of_regions, and the console held
#            to kunit/arm64-regions.expected (check-regions-console.sh);
#   kselftest  last, for every file: the kselftest kernel (debug) built
#            from the worktree, booted with dma-heap-test alone
# Killed: a case failed, kunit.py failed (a crash, no results), a suite of
# kunit/expected-suites the boot's glob matches did not run, the console
# has a kernel report (scripts/kernel_log.py), or the boot hung past its
# timeout.  A narrower boot can only miss a kill, never make one, so
# running the file's suites first is sound: a mutant survives only when
# every stage passed.  Before the mutants, each stage boots the unmutated
# kernel once per commit of $KDIR: a stage that fails there stops the run.
#
# Results are cached per mutant and content of the mutated file
# ($DMA_HEAPS_CACHE/mutate/results/): a run can stop at any time and go on
# later, or be done in parts.  At the end docs/mutation.md is rewritten.
#
# MUTATE_FILES="a.c b.c"  only these files (names or globs)
# MUTATE_LIMIT=N          at most N mutants this run
# MUTATE_IDS="id..."      these mutants only (run again even when cached
#                         with MUTATE_FORCE=1)
# MUTATE_JOBS=N           mutants at once, each with its own worktree and
#                         build directory (default 1: two cores)
# MUTATE_TIMEOUT=S        a boot's limit (default 200 s; the main boot takes
#                         about 55 s on two loaded cores)
# MUTATE_IDLE=S           a boot whose QEMU has been idle this long is
#                         hung (default 40 s)
# MUTATE_PRISTINE=0       no boots of the unmutated kernel
# MUTATE_REPORT=0         do not rewrite docs/mutation.md
# MUTATE_TAP=FILE         also one TAP line per mutant run, into FILE
# MUTATE_RECORD=0         keep no result (make test's sample)
# MUTATE_SLOT=NAME-       worktrees and builds in $MDIR/NAME-0 ... rather
#                         than $MDIR/0 ... (make test's sample: sample-)
# MUTATE_KSELFTEST=0      no kselftest stage (a first pass: the KUnit
#                         stages' survivors, then again with it)
# MUTATE_STAGE=NAME       boot this stage only (make test's sample: the
#                         stage that killed the mutant in the full run)
# MUTATE_INPLACE=1        no worktree: mutate $KDIR itself and build in
#                         run_kunit.sh's build directories, then put the
#                         file and its unmutated object back (make test's
#                         sample, after every other boot: a worktree's
#                         checkout and first build are 2.5 min of a cold
#                         make test).  $KDIR's mutated files must have no
#                         uncommitted change.
set -eu
. "$(dirname "$0")/common.sh"

MDIR=$DMA_HEAPS_CACHE/mutate
jobs=${MUTATE_JOBS:-1}
[ "${MUTATE_INPLACE:-0}" != 1 ] || [ "$jobs" = 1 ] ||
	die "MUTATE_INPLACE=1 runs one mutant at a time"
tmo=${MUTATE_TIMEOUT:-200}
kunit_py=tools/testing/kunit/kunit.py
export DMA_HEAPS_CACHE KDIR
mpy=("$REPO/scripts/mutate.py")
mkdir -p "$MDIR"
command -v spatch >/dev/null || die "spatch is missing: apt-get install coccinelle"

# The boots of a mutant of FILE, in order: NAME|ENV|GLOB|KERNEL ARGS|CHECK,
# CHECK a script of scripts/ that the boot's console must also pass.
stages() {
	local glob="" arm64="arm64||dma_heap_of_regions||check-regions-console.sh"

	case $1 in
	*/heap-helpers.c) glob='dma_heap_helpers*' ;;
	*/system_heap.c) glob='dma_heap_system*' ;;
	*/system_contig_heap.c) glob='dma_heap_system_contig' ;;
	*/cma_heap.c) glob='dma_heap_cma*' ;;
	*/chunk_heap.c) glob='dma_heap_chunk' ;;
	*/carveout_heap.c) glob='dma_heap_carveout' ;;
	esac
	# contiguous.c: the series' code there is the device-tree code, which
	# only the arm64 stage builds.
	if [ "${1##*/}" = contiguous.c ]; then
		echo "$arm64"
		return
	fi
	[ -z "$glob" ] || echo "file||$glob|"
	echo "main|||"
	echo "swiotlb||dma_heap_[chs][aey][glnr]*|swiotlb=4096,force"
	case $1 in
	*/cma_heap.c | */carveout_heap.c)
		# run_kunit.sh's kunit-nocma: its bad dma_heap.carveout= too.
		echo "nocma|DMA_HEAPS_CMA=0|dma_heap_cma_setup.only_the_default_area_has_heaps|$("$REPO/scripts/check-nocma-console.sh" --args | tr '\n' ' ')|check-nocma-console.sh"
		;;
	*/dma-heap.c)
		for t in majors class kobj; do
			echo "init-$t||dma_heap_init|dma_heap_init_test.take=$t"
		done
		;;
	esac
	[ "${1##*/}" != carveout_heap.c ] || echo "$arm64"
	# Last, what only userspace reaches: the kselftest kernel (a debug
	# kernel: kmemleak sees a leak, KASAN a use after free) and
	# dma-heap-test (memory cgroups, module unload, real importers).
	[ "${MUTATE_KSELFTEST:-1}" = 0 ] || echo "kselftest||dma-heap-test|"
}

# run_stages FILE: the stages of FILE that this run boots (MUTATE_STAGE's
# only, if set).
run_stages() {
	stages "$1" | grep "^${MUTATE_STAGE:-[^|]*}|"
}

# worktree SLOT: the worktree and build directory of SLOT, at $KDIR's HEAD.
# The worktree is "../linux" from the build directory, as $KDIR is from
# run_kunit.sh's: the compiler then sees the same relative paths
# (CCACHE_BASEDIR, scripts/common.sh), and a first build takes every object
# but the mutated file's from ccache.
worktree() {
	if [ "${MUTATE_INPLACE:-0}" = 1 ]; then
		# run_kunit.sh's build directories, -debug ones with DEBUG=1.
		local sfx=""
		[ "${DEBUG:-0}" != 1 ] || sfx=-debug
		wt=$KDIR
		bd=$KUNIT_BUILD$sfx
		bd64=$KUNIT_BUILD_ARM64$sfx
		return
	fi
	wt=$MDIR/${MUTATE_SLOT:-}$1/linux
	bd=$MDIR/${MUTATE_SLOT:-}$1/build
	bd64=$bd-arm64
	if [ ! -e "$wt/.git" ]; then
		git -C "$KDIR" worktree prune
		git -C "$KDIR" worktree add --quiet --detach "$wt" "$head"
	fi
	git -C "$wt" checkout -q -f --detach "$head"
}

# build: the KUnit kernel of the worktree; kunit.py configures it the
# first time, make builds it after.
build() {
	if [ "${MUTATE_INPLACE:-0}" = 1 ]; then
		# run_kunit.sh's make options, gcov's included: the same
		# command lines, so that only the mutated file is compiled.
		[ -f "$bd/.config" ] || die "no $bd/.config: run ./run_kunit.sh first"
		# shellcheck disable=SC2046
		nice make -s -C "$wt" O="$bd" ARCH=x86_64 "$(cc_make_opt)" -j"$JOBS" \
			$(gcov_make_vars) bzImage </dev/null >"$bd/build.log" 2>&1
	elif [ ! -f "$bd/.config" ] || [ ! -f "$bd/.kunitconfig" ] ||
		! cmp -s "$REPO/kunitconfig" "$bd/kunitconfig.src"; then
		mkdir -p "$bd"
		cp "$REPO/kunitconfig" "$bd/kunitconfig.src"
		(cd "$wt" && nice "$kunit_py" build --arch=x86_64 --build_dir "$bd" \
			--kunitconfig "$REPO/kunitconfig" --jobs "$JOBS" \
			--make_options "$(cc_make_opt)" </dev/null) >"$bd/build.log" 2>&1
	else
		nice make -s -C "$wt" O="$bd" ARCH=x86_64 "$(cc_make_opt)" -j"$JOBS" \
			bzImage </dev/null >"$bd/build.log" 2>&1
	fi
}

# build_arm64: the arm64 KUnit kernel of the worktree, in the slot's
# build-arm64: kunitconfig with kunit/arm64.config and
# kunit/arm64-selftest.config, the .config of run_kunit.sh's kunit-arm64, so
# that ccache has its objects; kunit.py configures
# it the first time, make builds it after.
build_arm64() {
	local b=$bd64 cc=aarch64-linux-gnu-

	if [ "${MUTATE_INPLACE:-0}" = 1 ]; then
		[ -f "$b/.config" ] || die "no $b/.config: run ./run_kunit.sh first"
		nice make -s -C "$wt" O="$b" ARCH=arm64 CROSS_COMPILE="$cc" \
			"$(cc_make_opt "$cc")" -j"$JOBS" Image.gz </dev/null >"$b/build.log" 2>&1
		return
	fi
	mkdir -p "$b"
	cat "$REPO/kunit/arm64.config" "$REPO/kunit/arm64-selftest.config" >"$b/arm64.config"
	kunitconfig_with "$b/arm64.config" "$REPO/kunitconfig" >"$b/kunitconfig.new"
	if [ ! -f "$b/.config" ] || ! cmp -s "$b/kunitconfig.new" "$b/kunitconfig.src"; then
		mv "$b/kunitconfig.new" "$b/kunitconfig.src"
		(cd "$wt" && nice "$kunit_py" build --arch=arm64 --cross_compile "$cc" \
			--qemu_config "$REPO/kunit/qemu_arm64.py" --build_dir "$b" \
			--kunitconfig "$b/kunitconfig.src" --jobs "$JOBS" \
			--make_options "$(cc_make_opt "$cc")" </dev/null) >"$b/build.log" 2>&1
	else
		nice make -s -C "$wt" O="$b" ARCH=arm64 CROSS_COMPILE="$cc" \
			"$(cc_make_opt "$cc")" -j"$JOBS" Image.gz </dev/null >"$b/build.log" 2>&1
	fi
}

# kselftest GLOB OUT: the kselftest stage, selftests/run-selftests.sh's
# main boot of the binaries GLOB with the worktree's kernel, built in the
# slot's build-selftest (ccache: "../linux" as for make test's).
kselftest() {
	local rc=0 r=${bd%/build}/selftest-results

	SELFTEST_KDIR=$wt SELFTEST_BUILD=${bd%/build}/build-selftest RESULTS=$r \
		SELFTEST_BOOTS=main SELFTEST_TESTS=$1 SELFTEST_TIMEOUT=$((3 * tmo)) \
		nice "$REPO/selftests/run-selftests.sh" </dev/null >"$2.out" 2>&1 || rc=$?
	cp "$r/selftest.tap" "$2.tap" 2>/dev/null || : >"$2.tap"
	if [ $rc = 0 ]; then
		echo survived
	elif grep -q "timed out\|timeout" "$2.out"; then
		echo "timeout kselftest: no end after $((3 * tmo))s"
	else
		echo "killed kselftest: $(grep -m1 '^not ok' "$2.tap" | cut -c1-160 ||
			tail -1 "$2.out")"
	fi
}

# boot STAGE-LINE OUT: one boot; prints "killed WHY", "timeout WHY" or
# "survived".
boot() {
	local name env glob args check t0 rc=0 a out why
	IFS='|' read -r name env glob args check <<<"$1"
	if [ "$name" = kselftest ]; then
		kselftest "$glob" "$2"
		return
	fi
	# An oops panics the kernel, and the panic ends the boot (kunit.py
	# boots QEMU with -no-reboot): else a case thread that died waits
	# for KUnit's 300 s case timeout.
	local b=$bd arch=(--arch=x86_64 --qemu_config "$REPO/kunit/qemu_x86_64.py")
	if [ "$name" = arm64 ]; then
		if ! build_arm64; then
			echo "unbuilt arm64: does not build: $(grep -m1 -E 'error' "$bd64/build.log" || true)"
			return
		fi
		b=$bd64
		arch=(--arch=arm64 --cross_compile aarch64-linux-gnu-
			--qemu_config "$REPO/kunit/qemu_arm64.py")
		env="DMA_HEAPS_DTB=$regions.dtb DMA_HEAPS_INITRD=$regions.initrd"
	fi
	local cmd=(nice "$kunit_py" exec "${arch[@]}"
		--build_dir "$b" --timeout "$tmo" --json="$2.json"
		--kernel_args oops=panic --kernel_args panic=-1)
	for a in $args; do
		cmd+=(--kernel_args "$a")
	done
	[ -z "$glob" ] || cmd+=("$glob")
	rm -f "$b/test.log" "$2.json"
	t0=$(date +%s)
	# The first failed case kills the mutant: its boot ends there
	# (kunit.py prints each result as it parses it, unbuffered here).
	(cd "$wt" && exec env PYTHONUNBUFFERED=1 $env "${cmd[@]}" </dev/null >"$2.out" 2>&1) &
	kpid=$!
	# A guest that waits for ever (a lock never released, a reference
	# never dropped) leaves QEMU idle: after $idle s with QEMU under a
	# tenth of a CPU the boot is ended as hung, rather than at the
	# timeout.  A guest that spins still meets the timeout.
	local idle=${MUTATE_IDLE:-40} busy=$t0 ticks=-1 now q tk hung=""
	while kill -0 "$kpid" 2>/dev/null; do
		sleep 2
		if grep -qE '^\[[0-9:]+\] \[(FAILED|CRASHED)\]' "$2.out"; then
			sleep 1
			for q in $(ps -o pid= --ppid "$kpid"); do
				kill "$q" 2>/dev/null || true
			done
			break
		fi
		now=$(date +%s)
		q=$(ps -o pid=,comm= --ppid "$kpid" | awk '/qemu-system/ { print $1 }')
		[ -n "$q" ] || { busy=$now; continue; }
		tk=$(awk '{ print $14 + $15 }' "/proc/$q/stat" 2>/dev/null || echo -1)
		if [ "$ticks" -lt 0 ] || [ $((tk - ticks)) -ge 20 ]; then
			busy=$now
		elif [ $((now - busy)) -ge "$idle" ]; then
			hung=1
			kill "$q" 2>/dev/null || true
			break
		fi
		ticks=$tk
	done
	wait "$kpid" || rc=$?
	cp "$b/test.log" "$2.console" 2>/dev/null || : >"$2.console"
	if [ -n "$hung" ]; then
		echo "timeout $name: the guest idle for ${idle}s, hung"
		return
	fi
	if [ $rc != 0 ] && [ $(($(date +%s) - t0)) -ge "$tmo" ]; then
		echo "timeout $name: no end after ${tmo}s"
		return
	fi
	out=$("${mpy[@]}" judge "$name" "$2.json" "$2.console" "$rc" "$glob")
	if [ "$out" = survived ] && [ -n "$check" ] &&
		! why=$("$REPO/scripts/$check" "$2.console"); then
		out="killed $name: console: $(echo "$why" | tr "\n" ";")"
	fi
	echo "$out"
}

# pristine FILE...: each stage of FILEs' mutants (MUTATE_STAGE's only, if
# set) passes on the unmutated kernel (once per commit of $KDIR).
pristine() {
	local f s name v fp

	# The harness's inputs that a boot reads (mutate.py's fingerprint).
	fp=$("${mpy[@]}" fingerprint)
	for f in "$@"; do
		run_stages "$f"
	done | sort -u | while read -r s; do
		name=${s%%|*}
		v=$MDIR/pristine/$head-$name-$(md5sum <"$REPO/scripts/mutate.sh" | cut -c1-8)-$fp
		[ ! -f "$v" ] || continue
		mkdir -p "$MDIR/pristine"
		echo "unmutated kernel: boot $name"
		out=$(boot "$s" "$MDIR/pristine/$name")
		if [ "$out" != survived ]; then
			echo "the unmutated kernel fails boot $name: $out (see $MDIR/pristine/$name.console)" >&2
			exit 1
		fi
		echo ok >"$v"
	done
}

# inplace_save FILE: in place, the unmutated object of FILE in $bd (and
# its gcov notes and kbuild command), and FILE's time, kept.
# inplace_restore FILE puts them back once FILE is: make then links
# them without compiling FILE again.  A compile would make gcov notes of
# another stamp than the data of make test's boots, which make coverage
# and scripts/coverage.sh read afterwards.
# kept_files FILE: the object of FILE in $bd, its gcov notes and its
# kbuild command.
kept_files() {
	local o=$bd/${1%.c}.o

	echo "$o" "${o%.o}.gcno" "$(dirname "$o")/.$(basename "$o").cmd"
}

inplace_save() {
	local k=$MDIR/${MUTATE_SLOT:-}kept f

	rm -rf "$k"
	mkdir -p "$k"
	for f in $(kept_files "$1"); do
		[ ! -e "$f" ] || cp -p "$f" "$k/"
	done
	stat -c %Y "$wt/$1" >"$k/mtime"
}

inplace_restore() {
	local k=$MDIR/${MUTATE_SLOT:-}kept f

	touch -d "@$(cat "$k/mtime")" "$wt/$1"
	# arm64 has no gcov: its object is compiled again.
	rm -f "$bd64/${1%.c}.o"
	for f in $(kept_files "$1"); do
		[ ! -e "$k/$(basename "$f")" ] || cp "$k/$(basename "$f")" "$f"
	done
}

# run_one SLOT ID FILE PATCH OP LINE: one mutant, its result recorded.
run_one() {
	local id=$2 file=$3 patch=$4 op=$5 line=$6 t0 s out status why st
	local log=$MDIR/${MUTATE_SLOT:-}logs/$id
	mkdir -p "$MDIR/${MUTATE_SLOT:-}logs"
	t0=$(date +%s)
	st=$(run_stages "$file") || true
	if [ "${MUTATE_INPLACE:-0}" = 1 ] &&
		! git -C "$wt" diff --quiet HEAD -- "$file"; then
		echo "$id: $wt/$file has uncommitted changes" >&2
		return 1
	fi
	git -C "$wt" checkout -q -- "$file"
	if [ "${MUTATE_INPLACE:-0}" = 1 ]; then
		# The tree is put back however this ends.
		trap "git -C '$wt' checkout -q -- '$file'" EXIT
		trap 'exit 130' INT TERM
		inplace_save "$file"
	fi
	if ! git -C "$wt" apply "$patch"; then
		echo "$id: the patch does not apply" >&2
		return 1
	fi
	# The x86_64 kernel, unless only the arm64 stage boots (it builds its
	# own).
	if [ -n "$st" ] && grep -q -v '^arm64|' <<<"$st" && ! build; then
		status=unbuilt
		why="does not build: $(grep -m1 -E 'error' "$bd/build.log" || true)"
	else
		status=survived
		why="every stage passed"
		while read -r s; do
			[ -n "$s" ] || continue
			out=$(boot "$s" "$log-${s%%|*}")
			if [ "$out" != survived ]; then
				status=${out%% *}
				why=${out#* }
				break
			fi
		done <<<"$st"
	fi
	git -C "$wt" checkout -q -- "$file" || die "$wt/$file: not put back"
	# In place, run_kunit.sh's kernels are built as the tree is again.
	if [ "${MUTATE_INPLACE:-0}" = 1 ]; then
		git -C "$wt" diff --quiet HEAD -- "$file" || die "$wt/$file: not put back"
		trap - EXIT INT TERM
		inplace_restore "$file"
		if [ -n "$st" ] && grep -q -v '^arm64|' <<<"$st" && ! build; then
			die "$bd does not build again after mutant $id"
		fi
		if grep -q '^arm64|' <<<"$st" && ! build_arm64; then
			die "$bd64 does not build again after mutant $id"
		fi
	fi
	[ "$status" != timeout ] || why="$why (timeout)"
	[ "$status" != timeout ] || status=killed
	why=${why//#/}
	[ "${MUTATE_RECORD:-1}" = 0 ] ||
		"${mpy[@]}" record "$id" "$status" $(($(date +%s) - t0)) "$why"
	echo "$id $file:$line $op: $status, $why ($(($(date +%s) - t0))s)"
	if [ -n "${MUTATE_TAP:-}" ]; then
		if [ "$status" = killed ]; then
			echo "ok - mutant $id ($file:$line, $op) killed: $why" >>"$MUTATE_TAP"
		else
			echo "not ok - mutant $id ($file:$line, $op) $status: $why" >>"$MUTATE_TAP"
		fi
	fi
}

# slot N: every jobs-th mutant of the plan from the Nth.
slot() {
	local n=$1 i=0 rc=0 id file patch op line
	worktree "$n"
	[ "${MUTATE_INPLACE:-0}" = 1 ] || build ||
		die "the unmutated kernel does not build (see $bd/build.log)"
	while IFS=$'\t' read -r id file patch op line; do
		i=$((i + 1))
		[ $(((i - 1) % jobs)) = "$n" ] || continue
		run_one "$n" "$id" "$file" "$patch" "$op" "$line" </dev/null || rc=1
	done <"$plan"
	return $rc
}

# The whole run is one function, read before it starts: editing this file
# during a run does not change the run.
main() {
	local pids=() failed="" p
	head=$(git -C "$KDIR" rev-parse HEAD)
	start=$(date +%s)
	# The arm64 stage's device tree and initrd, this slot's own.
	regions=$MDIR/${MUTATE_SLOT:-}arm64-regions
	plan=$MDIR/${MUTATE_SLOT:-}plan
	"${mpy[@]}" plan >"$plan"
	n=$(wc -l <"$plan")
	echo "mutate: $n mutants to run ($(cut -f2 "$plan" | sort -u | tr '\n' ' '))"
	if [ "$n" != 0 ]; then
		# The arm64 stage's device tree and initrd (run_kunit.sh's
		# kunit-arm64 boot's).
		if cut -f2 "$plan" | grep -q -E '/(carveout_heap|contiguous)\.c$'; then
			DMA_HEAPS_DT_REGIONS=$REPO/kunit/arm64-regions.dtsi \
				"$REPO/scripts/arm64-dtb.sh" "$regions.dtb.new" \
				-machine virt -cpu cortex-a57 -m 2048 \
				-smp "${DMA_HEAPS_SMP:-2}" ||
				die "scripts/arm64-dtb.sh failed"
			empty_initrd "$regions.initrd.new"
			mv "$regions.dtb.new" "$regions.dtb"
			mv "$regions.initrd.new" "$regions.initrd"
		fi
		worktree 0
		# In place, a make with nothing to do after run_kunit.sh's, but
		# the objects that inplace_save() keeps must be the tree's.
		build || die "the unmutated kernel does not build (see $bd/build.log)"
		export DMA_HEAPS_ACCEL=${DMA_HEAPS_ACCEL:-$("$REPO/scripts/probe-kvm.sh" "$bd/arch/x86/boot/bzImage")}
		if [ "${MUTATE_PRISTINE:-1}" = 1 ]; then
			# shellcheck disable=SC2046
			pristine $(cut -f2 "$plan" | sort -u) || exit 1
		fi
		for ((k = 0; k < jobs; k++)); do
			slot "$k" &
			pids+=($!)
		done
		for p in "${pids[@]}"; do
			wait "$p" || failed=1
		done
	fi
	[ "${MUTATE_REPORT:-1}" = 0 ] || "${mpy[@]}" report
	echo "mutate: $n mutants in $(($(date +%s) - start))s"
	[ -z "$failed" ] || die "a mutant could not be run (see above)"
}

main "$@"; exit
