#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the tree (installing what is missing), build the KUnit kernel with
# ./kunitconfig and boot it under QEMU, once per boot below.  Exits non-zero
# when a case fails, the kernel crashes or times out, an expected suite
# (kunit/expected-suites) did not run, or a boot's console has a BUG,
# WARNING, KASAN, lockdep, UBSAN, kmemleak or DMA-API report
# (scripts/kernel_log.py).  Extra arguments go to kunit.py exec, e.g. a
# filter glob: ./run_kunit.sh 'dma_heap_alloc*'.
#
# Every boot has two CPUs (DMA_HEAPS_SMP, default 2, in kunit/qemu_*.py), so
# that the heaps' workers, the statistics' threads and the cases run at
# once.  The boots, each with its console in $RESULTS/<boot>.console, its JSON and
# KTAP next to it (the main boot's as kunit.json and kunit.ktap), all
# counted into $RESULTS/kunit.counts:
#   kunit-main     x86_64, all suites (or the filter), cma=64M
#   kunit-nocma    cma=0: the CMA heaps' setup case with no CMA area
#   kunit-swiotlb  swiotlb=4096,force: every DMA mapping bounces; the
#                  helpers' suites, dma_heap_carveout and dma_heap_segments
#   kunit-hugetlb  -cpu max, hugetlb_cma=1G: dma_heap_cma_setup next to
#                  hugetlb's CMA area
#   kunit-4g       9 GiB, cma=4200M: dma_heap_cma_4g, a buffer of 4 GiB +
#                  4 KiB mapped, mmapped, touched and vmapped
#   kunit-nokmem   cgroup.memory=nokmem dma_heap.mem_accounting=1: one
#                  dma_heap_system case; the boot says once that nothing
#                  is charged
#   kunit-fail     dma_heap_test.fail_on_purpose=1: dma_heap_cleanup, whose
#                  first case fails on purpose (counted as passed when it
#                  does) and whose second checks what it held was freed
#   kunit-init-*   dma_heap_init() failing at boot, for want of a dynamic
#                  major, the class name or /sys/kernel/dma_heap:
#                  dma_heap_init
#   kunit-i386     32-bit x86 with HIGHMEM4G (kunit/i386.config), all suites
#   kunit-arm64    arm64, QEMU's virt machine, 4 KiB pages (kunit/arm64.config),
#                  all suites but the x86 carveout's, with the device-tree
#                  regions of kunit/arm64-regions.dtsi, each checked by
#                  scripts/check-regions.py
#   kunit-arm64-swiotlb  the same with swiotlb=4096,force: the helpers'
#                  suites and dma_heap_segments
#   kunit-arm64-64k  the same with 64 KiB pages (kunit/arm64.config, then
#                  kunit/arm64-64k.config) and the regions of
#                  kunit/arm64-64k-regions.dtsi: with 64 KiB pages a CMA
#                  area is aligned to 512 MiB (a pageblock), so the
#                  default area and the second one are of 512 MiB; all
#                  cases but the CMA cache's two that churn the whole area
# Only the main boots (of each architecture) run when a filter is given.
#
# KUNITCONFIG=file uses another .kunitconfig; KCONFIG_ADD="CONFIG_X=y ..."
# adds options; DEBUG=1 adds kunit/debug.config (KASAN, lockdep, ...) and
# builds in directories of their own; SKIP_PREPARE=1 uses the tree as it
# is; SKIP_BUILD=1 boots the kernels already in the build directories (for
# work on the harness).  KUNIT_ARCHES="x86_64 i386 arm64 arm64-64k" chooses the
# architectures (default: all for a full run, x86_64 for a filtered one or
# with DEBUG=1, since KASAN does not exist on 32-bit x86); arm64-64k is
# arm64 with 64 KiB pages, its kernel in $KUNIT_BUILD_ARM64_64K.
set -eu
. "$(dirname "$0")/scripts/common.sh"

full=0
[ $# != 0 ] || full=1
if [ "${DEBUG:-0}" = 1 ]; then
	KUNIT_BUILD=$KUNIT_BUILD-debug
	KUNIT_BUILD_I386=$KUNIT_BUILD_I386-debug
	KUNIT_BUILD_ARM64=$KUNIT_BUILD_ARM64-debug
	KUNIT_BUILD_ARM64_64K=$KUNIT_BUILD_ARM64_64K-debug
	KCONFIG_ADD="${KCONFIG_ADD:-} $(grep '^CONFIG_' "$REPO/kunit/debug.config")"
	KUNIT_ARCHES=${KUNIT_ARCHES:-x86_64}
elif [ $full = 1 ]; then
	KUNIT_ARCHES=${KUNIT_ARCHES:-x86_64 i386 arm64 arm64-64k}
else
	KUNIT_ARCHES=${KUNIT_ARCHES:-x86_64}
fi

KUNITCONFIG=${KUNITCONFIG:-$REPO/kunitconfig}
[ "${SKIP_PREPARE:-0}" = 1 ] || "$REPO/scripts/prepare-tree.sh"
mkdir -p "$RESULTS"
# KUNIT_APPEND=1 adds to the results of an earlier run (make test runs
# x86_64, then i386 beside the kselftest boot) instead of starting anew.
append=${KUNIT_APPEND:-0}
[ "$append" = 1 ] ||
	rm -f "$RESULTS/kunit.json" "$RESULTS/kunit.ktap" "$RESULTS/kunit.counts" \
		"$RESULTS"/kunit-*.json "$RESULTS"/kunit-*.ktap \
		"$RESULTS"/kunit-*.console "$RESULTS"/kunit-*.expected \
		"$RESULTS/kunit-boots.txt"

kunit=("$KDIR/tools/testing/kunit/kunit.py")
add=()
for opt in ${KCONFIG_ADD:-}; do
	add+=(--kconfig_add "$opt")
done
tapcount=$REPO/scripts/tap-count.py
# The arm64 kernels' cross compiler (Debian's gcc-aarch64-linux-gnu).
arm64_cross=aarch64-linux-gnu-
total="0 0 0"
[ "$append" != 1 ] || [ ! -f "$RESULTS/kunit.counts" ] || total=$(cat "$RESULTS/kunit.counts")
gcov_initrd=""
rc=0

# build ARCH: kunit.py build for ARCH (x86_64, i386, arm64 or arm64-64k);
# sets common=(...) for exec.
build() {
	local arch=$1 qemu=$REPO/kunit/qemu_x86_64.py cfg=$KUNITCONFIG
	local karch=$arch frag
	build_dir=$KUNIT_BUILD
	local cc=""
	cross=()
	if [ "$arch" = arm64 ] || [ "$arch" = arm64-64k ]; then
		build_dir=$KUNIT_BUILD_ARM64
		[ "$arch" = arm64 ] || build_dir=$KUNIT_BUILD_ARM64_64K
		karch=arm64
		cc=$arm64_cross
		cross=(--cross_compile "$cc")
	elif [ "$arch" = i386 ]; then
		build_dir=$KUNIT_BUILD_I386
	fi
	if [ "$arch" != x86_64 ]; then
		qemu=$REPO/kunit/qemu_$karch.py
		mkdir -p "$build_dir"
		# kunit/$arch.config; arm64-64k's is kunit/arm64.config, then
		# its own lines.
		frag=$build_dir/$arch.config
		if [ "$arch" = arm64-64k ]; then
			cat "$REPO/kunit/arm64.config" "$REPO/kunit/arm64-64k.config"
		elif [ "$arch" = arm64 ]; then
			# And what the arm64 kselftest boot, which boots this
			# kernel, needs besides (selftests/run-selftests.sh).
			cat "$REPO/kunit/arm64.config" "$REPO/kunit/arm64-selftest.config"
		else
			cat "$REPO/kunit/$arch.config"
		fi >"$frag"
		cfg=$build_dir/kunitconfig-$arch
		kunitconfig_with "$frag" "$KUNITCONFIG" >"$cfg"
	fi
	common=(--arch="$karch" --qemu_config "$qemu" --build_dir "$build_dir" "${cross[@]}")
	if [ "${SKIP_BUILD:-0}" = 1 ]; then
		[ -f "$build_dir/vmlinux" ] || return 1
		[ "$arch" != x86_64 ] || gcov_initramfs
		return
	fi
	# x86_64: our objects with gcov instrumentation (the i386 kernel boots
	# no initramfs to take the data out with).
	gcov=()
	if [ "$arch" = x86_64 ]; then
		for v in $(gcov_make_vars); do
			gcov+=(--make_options "$v")
		done
	fi
	(cd "$KDIR" && "${kunit[@]}" build "${common[@]}" --kunitconfig "$cfg" \
		"${add[@]}" --jobs "$JOBS" --make_options "$(cc_make_opt "$cc")" \
		"${gcov[@]}" </dev/null) || return 1
	[ "$arch" != x86_64 ] || gcov_initramfs
}

# gcov_initramfs: kunit/gcov/init.sh and a static busybox, for the x86_64
# boots to go on into after the suites and write out the gcov data.
gcov_initramfs() {
	local d=$build_dir/gcov busybox

	gcov_initrd=""
	grep -q '^CONFIG_GCOV_KERNEL=y' "$build_dir/.config" || return 0
	busybox=$(command -v busybox) || return 0
	mkdir -p "$d"
	gcc -O2 -o "$d/gen_init_cpio" "$KDIR/usr/gen_init_cpio.c" || return 1
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "nod /dev/ttyS1 0600 0 0 c 4 65"
		for x in /bin /proc /sys; do echo "dir $x 0755 0 0"; done
		echo "file /bin/busybox $busybox 0755 0 0"
		echo "slink /bin/sh busybox 0777 0 0"
		echo "file /init $REPO/kunit/gcov/init.sh 0755 0 0"
	} >"$d/initramfs.list"
	"$d/gen_init_cpio" "$d/initramfs.list" >"$d/initramfs.cpio" || return 1
	gcov_initrd=$d/initramfs.cpio
}

# boot NAME TIMEOUT EXPECTED-SUITES [kunit.py exec arguments]: one boot of
# the kernel just built; keeps its console, counts its results and checks
# its console.
boot() {
	local name=$1 timeout=$2 expected=$3 json ktap erc=0 c t0 p f s clean n
	local gcov_env
	shift 3
	json=$RESULTS/$name.json
	ktap=$RESULTS/$name.ktap
	if [ "$name" = kunit-main ]; then
		json=$RESULTS/kunit.json
		ktap=$RESULTS/kunit.ktap
	fi
	t0=$(date +%s)
	if [ -n "${DMA_HEAPS_DTB:-}" ]; then
		echo "== $name: kunit.py exec $* (device tree $DMA_HEAPS_DTB)"
	else
		echo "== $name: kunit.py exec $* (${DMA_HEAPS_CPU:+-cpu $DMA_HEAPS_CPU, }cma=${DMA_HEAPS_CMA:-64M})"
	fi
	rm -f "$build_dir/test.log"
	rm -rf "$RESULTS/gcov/$name" "$RESULTS/gcov/$name.log"
	# With gcov, kunit/gcov/qemu-system-x86_64 boots on into the
	# initramfs, which writes the data to $RESULTS/gcov/$name.log.
	gcov_env=()
	if [ "$arch" = x86_64 ] && [ -n "$gcov_initrd" ] && [ -z "${NO_GCOV:-}" ]; then
		mkdir -p "$RESULTS/gcov"
		gcov_env=(PATH="$REPO/kunit/gcov:$PATH"
			DMA_HEAPS_GCOV_OUT="$RESULTS/gcov/$name.log"
			DMA_HEAPS_GCOV_INITRD="$gcov_initrd")
	fi
	(cd "$KDIR" && env "${gcov_env[@]}" "${kunit[@]}" exec "${common[@]}" \
		--timeout "$timeout" --json="$json" "$@" </dev/null) || erc=$?
	if [ ${#gcov_env[@]} != 0 ]; then
		if n=$("$REPO/scripts/gcov-extract.py" "$RESULTS/gcov/$name.log" \
			"$build_dir" "$RESULTS/gcov/$name"); then
			result 1 "$name: gcov data of $n objects written out"
		else
			result 0 "$name: gcov data written out (none in $RESULTS/gcov/$name.log)"
		fi
	fi
	# kunit.py writes each boot's whole console to test.log, over the last.
	cp "$build_dir/test.log" "$RESULTS/$name.console" 2>/dev/null ||
		: >"$RESULTS/$name.console"
	sed -n '/^\(KTAP\|TAP\) version/,$p' "$RESULTS/$name.console" >"$ktap"
	c=$("$tapcount" kunit "$json" "$expected" ${EXPECT_FAIL:+"$EXPECT_FAIL"}) || c="0 1 0"
	count "$c"
	read -r p f s <<<"$c"
	# kunit.py exits non-zero for the case that must fail: only its
	# parse of the results, in the count, says whether the boot did well.
	if [ "$erc" != 0 ] && { [ -z "${EXPECT_FAIL:-}" ] || [ "$f" != 0 ]; }; then
		rc=1
		# A crash or parse error that left no failed case still fails.
		[ "$f" != 0 ] || result 0 "$name: kunit.py exec exited $erc"
	fi
	if "$REPO/scripts/kernel_log.py" "$name" "$RESULTS/$name.console"; then
		count 1 0 0
		clean="console clean"
	else
		count 0 1 0
		rc=1
		clean="CONSOLE NOT CLEAN"
	fi
	echo "$name: $p passed, $f failed, $s skipped, $clean, $(($(date +%s) - t0))s" |
		tee -a "$RESULTS/kunit-boots.txt"
}

# arm64_static_checks: W=1 and sparse (C=2) over drivers/dma-buf/ in the
# arm64 build, the series' last patch (scripts/check-series.sh checks
# x86_64 after each patch).  Any warning or error fails.
arm64_static_checks() {
	local out erc=0

	out=$(cd "$KDIR" && make -s ARCH=arm64 CROSS_COMPILE="$arm64_cross" \
		O="$build_dir" "$(cc_make_opt "$arm64_cross")" -j"$JOBS" \
		C=2 W=1 drivers/dma-buf/ 2>&1 </dev/null) || erc=$?
	# C=2 also checks what make builds first (arm64's vDSO, whose
	# sparse warnings are upstream's): only drivers/dma-buf/ counts.
	if [ $erc = 0 ] && ! grep -Eq 'drivers/dma-buf/.*(warning|error):' <<<"$out"; then
		result 1 "kunit-arm64: make W=1 C=2 drivers/dma-buf/: no warning"
	else
		result 0 "kunit-arm64: make W=1 C=2 drivers/dma-buf/: no warning (exit $erc)"
		grep -E -A3 'drivers/dma-buf/.*(warning|error):|error:' <<<"$out" |
			head -n 30 | sed 's/^/# /'
	fi
}

# regions NAME [EXPECTED]: each device-tree region of EXPECTED (default
# kunit/arm64-regions.expected) became in boot NAME the heap it must be, or no heap with the one boot
# message that says why (scripts/check-regions.py); not for a filtered run
# that left dma_heap_of_regions out.
regions() {
	local ok text

	grep -q '# Subtest: dma_heap_of_regions' "$RESULTS/$1.ktap" ||
		[ $full = 1 ] || return 0
	while read -r ok text; do
		result "$ok" "$text"
	done < <("$REPO/scripts/check-regions.py" "$1" "$RESULTS/$1.ktap" \
		"$(console "$1")" "${2:-$REPO/kunit/arm64-regions.expected}")
}

# device_tree NAME DTSI: the device tree of kunit/qemu_arm64.py's machine
# with the /reserved-memory regions of DTSI (scripts/arm64-dtb.sh), in
# $build_dir/regions.dtb, exported as DMA_HEAPS_DTB for the boots that
# follow, with an initrd, DMA_HEAPS_INITRD, for the regions over it
# (empty_initrd); when they cannot be made, a failed result of boot NAME.
device_tree() {
	if DMA_HEAPS_DT_REGIONS=$2 "$REPO/scripts/arm64-dtb.sh" \
		"$build_dir/regions.dtb" -machine virt -cpu cortex-a57 -m 2048 \
		-smp "${DMA_HEAPS_SMP:-2}" &&
		empty_initrd "$build_dir/regions.initrd"; then
		export DMA_HEAPS_DTB=$build_dir/regions.dtb
		export DMA_HEAPS_INITRD=$build_dir/regions.initrd
	else
		result 0 "$1: scripts/arm64-dtb.sh made a device tree"
	fi
}

# console NAME: the console of boot NAME.
console() {
	echo "$RESULTS/$1.console"
}

# two_cpus NAME: boot NAME brought up the CPUs asked for (DMA_HEAPS_SMP).
two_cpus() {
	local n=${DMA_HEAPS_SMP:-2}

	if grep -q "smp: Brought up .* $n CPUs\?\$" "$(console "$1")"; then
		result 1 "$1: $n CPUs are up"
	else
		result 0 "$1: $n CPUs are up (no \"smp: Brought up ... $n CPUs\" line)"
	fi
}

# expected_matching GLOB...: the suites that ran in the main boot or are
# in kunit/expected-suites, whose name matches a GLOB.
expected_matching() {
	python3 - "$RESULTS/kunit.json" "$REPO/kunit/expected-suites" "$@" <<'EOF'
import fnmatch, json, sys
names = set()
try:
    names |= {g.get("name") for g in json.load(open(sys.argv[1])).get("sub_groups", [])}
except (OSError, ValueError):
    pass
names |= {l.split("#", 1)[0].strip() for l in open(sys.argv[2])}
for n in sorted(x for x in names if x):
    if any(fnmatch.fnmatchcase(n, g) for g in sys.argv[3:]):
        print(n)
EOF
}

start=$(date +%s)
times=""
for arch in $KUNIT_ARCHES; do
	t0=$(date +%s)
	if ! build "$arch"; then
		result 0 "kunit-$arch: kunit.py build failed"
		times="$times $arch: build failed after $(($(date +%s) - t0))s;"
		continue
	fi
	t1=$(date +%s)
	if [ "$arch" = arm64 ] || [ "$arch" = arm64-64k ]; then
		DMA_HEAPS_ACCEL=tcg
	else
		DMA_HEAPS_ACCEL=$("$REPO/scripts/probe-kvm.sh" "$build_dir/arch/x86/boot/bzImage")
	fi
	export DMA_HEAPS_ACCEL
	echo "running KUnit ($arch) under QEMU ($DMA_HEAPS_ACCEL)"

	if [ "$arch" != x86_64 ]; then
		expected=$build_dir/expected-suites
		grep -v -x -F -f <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' \
			"$REPO/kunit/expected-suites-${arch%-64k}") "$REPO/kunit/expected-suites" \
			>"$expected" || true
		if [ $full = 0 ] && [ "${1#-}" = "$1" ]; then
			expected_matching "${1%%.*}" | grep -x -F -f "$expected" \
				>"$expected.filtered" || true
			expected=$expected.filtered
		fi
		if [ "$arch" = arm64 ]; then
			# QEMU's virt machine, 4 KiB pages (kunit/arm64.config),
			# with the /reserved-memory regions of
			# kunit/arm64-regions.dtsi in its device tree.
			device_tree kunit-arm64 "$REPO/kunit/arm64-regions.dtsi"
			boot kunit-arm64 1200 "$expected" "$@"
			two_cpus kunit-arm64
			regions kunit-arm64
			# Every DMA mapping bounces, as in a confidential guest:
			# the helpers' suites and every heap's segments, the
			# device tree's carveout among them (which must not
			# bounce), as in the x86_64 swiotlb boot.
			if [ $full = 1 ]; then
				grep -E '^(dma_heap_helpers.*|dma_heap_segments)$' \
					"$expected" >"$RESULTS/kunit-arm64-swiotlb.expected" || true
				boot kunit-arm64-swiotlb 300 \
					"$RESULTS/kunit-arm64-swiotlb.expected" \
					--kernel_args swiotlb=4096,force \
					'dma_heap_[chs][aey][glnr]*'
				if grep -q 'Kernel command line: .*swiotlb=4096,force' "$(console kunit-arm64-swiotlb)" &&
					grep -q 'software IO TLB: ' "$(console kunit-arm64-swiotlb)"; then
					result 1 "kunit-arm64-swiotlb: swiotlb=4096,force is set up"
				else
					result 0 "kunit-arm64-swiotlb: swiotlb=4096,force is set up (no \"software IO TLB:\" line or no swiotlb= on the command line)"
				fi
			fi
			unset DMA_HEAPS_DTB DMA_HEAPS_INITRD
			[ $full = 0 ] || arm64_static_checks
			times="$times arm64: build $((t1 - t0))s, run $(($(date +%s) - t1))s;"
			continue
		fi
		if [ "$arch" = arm64-64k ]; then
			# 64 KiB pages: a CMA area is aligned to a pageblock,
			# 512 MiB, of the guest's 2 GiB (kunit/qemu_arm64.py).
			# The device tree's regions (kunit/arm64-64k-regions.dtsi)
			# give the default area and a second one of 512 MiB.
			device_tree kunit-arm64-64k "$REPO/kunit/arm64-64k-regions.dtsi"
			# In the full run, every case but the two of the CMA
			# cache that churn the whole area,
			# no_allocation_fails_that_succeeds_without_the_cache and
			# no_dirty_range_reaches_a_buffer_under_concurrent_use:
			# with an area of 512 MiB they took 110 of this boot's
			# 151 s, and the 4 KiB boots run them.  The glob leaves
			# out the cases whose names begin with n: those two and
			# dma_heap_init's no_heap_can_be_added, which only the
			# x86_64 boots whose set-up fails test.
			glob=("$@")
			[ $# != 0 ] || glob=('*.[!n]*')
			boot kunit-arm64-64k 1200 "$expected" "${glob[@]}"
			unset DMA_HEAPS_DTB DMA_HEAPS_INITRD
			two_cpus kunit-arm64-64k
			regions kunit-arm64-64k "$REPO/kunit/arm64-64k-regions.expected"
			c=$(console kunit-arm64-64k)
			# The kernel has 64 KiB pages, and the CMA area that the
			# CMA and chunk suites need (they skip without one).
			if grep -q 'CONFIG_ARM64_64K_PAGES=y' "$build_dir/.config" &&
				grep -q 'created CMA memory pool at 0x0000000080000000, size 512 MiB' "$c"; then
				result 1 "kunit-arm64-64k: 64 KiB pages and a default CMA area of 512 MiB"
			else
				result 0 "kunit-arm64-64k: 64 KiB pages and a default CMA area of 512 MiB (no CONFIG_ARM64_64K_PAGES=y in $build_dir/.config or no 512 MiB CMA pool at 0x80000000 in $c)"
			fi
			times="$times arm64-64k: build $((t1 - t0))s, run $(($(date +%s) - t1))s;"
			continue
		fi
		# Two CPUs, as on x86_64: the kernel finds the second in ACPI's
		# MADT (kunit/i386.config).
		boot kunit-i386 1200 "$expected" "$@"
		two_cpus kunit-i386
		# Highmem exists: "Zone ranges:" gives HighMem a range (not
		# "empty") and init_32.c counts its megabytes.
		if grep -Eq 'HighMem +\[mem ' "$(console kunit-i386)" &&
			grep -Eq '[1-9][0-9]*MB HIGHMEM available' "$(console kunit-i386)"; then
			result 1 "kunit-i386: the kernel has highmem ($(grep -Eo '[0-9]+MB HIGHMEM available' "$(console kunit-i386)"))"
		else
			result 0 "kunit-i386: the kernel has highmem (no HighMem zone range or no \"NMB HIGHMEM available\" in the console)"
		fi
		# The zeroing of a range from lowmem into highmem ran, where it
		# was asked for: it is skipped when the default CMA area does
		# not end where lowmem does (vmalloc= in kunit/qemu_i386.py).
		straddle=a_range_from_lowmem_into_highmem_is_zeroed
		if grep -Eq "ok [0-9]+ $straddle( |\$)" "$(console kunit-i386)"; then
			if grep -Eq "ok [0-9]+ $straddle # SKIP" "$(console kunit-i386)"; then
				result 0 "kunit-i386: $straddle ran ($(grep -Eo "$straddle # SKIP.*" "$(console kunit-i386)" | head -n 1))"
			else
				result 1 "kunit-i386: $straddle ran"
			fi
		fi
		times="$times i386: build $((t1 - t0))s, run $(($(date +%s) - t1))s;"
		continue
	fi

	expected=$REPO/kunit/expected-suites
	if [ $full = 0 ] && [ "${1#-}" = "$1" ]; then
		# A filtered run requires only the expected suites it selects.
		expected=$RESULTS/kunit-main.expected
		expected_matching "${1%%.*}" >"$expected"
	fi
	boot kunit-main 1200 "$expected" "$@"
	two_cpus kunit-main

	# The other x86_64 boots, only in the full run.
	if [ $full = 1 ] && grep -q '^CONFIG_DMABUF_HEAPS_CMA=y' "$build_dir/.config"; then
		# The CMA heaps again, in a boot without a CMA area: no heap may appear.
		echo dma_heap_cma_setup >"$RESULTS/kunit-cma_setup.expected"
		# Bad dma_heap.carveout= in the same boot, each a boot message and
		# no heap: scripts/check-nocma-console.sh has them and checks the
		# console (make mutate's nocma stage boots the same).  (The
		# carveout that every x86_64 boot gets, kunit/qemu_x86_64.py's,
		# comes after them: ignored too; this boot runs no carveout case.)
		nocma_args=()
		while read -r a; do
			nocma_args+=(--kernel_args "$a")
		done < <("$REPO/scripts/check-nocma-console.sh" --args)
		DMA_HEAPS_CMA=0 boot kunit-nocma 300 "$RESULTS/kunit-cma_setup.expected" \
			"${nocma_args[@]}" \
			'dma_heap_cma_setup.only_the_default_area_has_heaps'
		c=$(console kunit-nocma)
		if why=$("$REPO/scripts/check-nocma-console.sh" "$c"); then
			result 1 "kunit-nocma: no CMA area, and each bad dma_heap.carveout= is one boot message and no heap"
		else
			result 0 "kunit-nocma: no CMA area, and each bad dma_heap.carveout= is one boot message and no heap (see $c: $(echo "$why" | tr "\n" ";"))"
		fi

		# Next to hugetlb's CMA area (1 GiB pages need pdpe1gb: -cpu max).
		# In 2 GiB the only 1 GiB-aligned GiB is [1G, 2G): the default
		# area goes below it and the kernel is not placed at random
		# (nokaslr), or either can take part of it and hugetlb_cma
		# fails to reserve (seen once in four runs on 2026-12-05).
		# No initramfs for gcov (NO_GCOV): QEMU loads it near the top
		# of RAM, inside that GiB.
		NO_GCOV=1 DMA_HEAPS_CPU=max DMA_HEAPS_CMA=64M@0-1G boot kunit-hugetlb 300 \
			"$RESULTS/kunit-cma_setup.expected" \
			--kernel_args hugetlb_cma=1G --kernel_args nokaslr 'dma_heap_cma_setup'
		if grep -q 'hugetlb_cma: reserve 1024 MiB, up to 1024 MiB per node' "$(console kunit-hugetlb)" &&
			grep -q 'cma: Reserved 1024 MiB' "$(console kunit-hugetlb)"; then
			result 1 "kunit-hugetlb: hugetlb_cma reserved 1024 MiB"
		else
			result 0 "kunit-hugetlb: hugetlb_cma reserved 1024 MiB (no \"hugetlb_cma: reserve 1024 MiB\" and \"cma: Reserved 1024 MiB\" in the console)"
		fi
	fi
	if [ $full = 1 ]; then
		# Every DMA mapping through 8 MiB of bounce buffers.  One glob for
		# dma_heap_helpers*, dma_heap_carveout and dma_heap_segments
		# (kunit.filter_glob takes one): [chs][aey][glnr] matches no
		# other suite (not dma_heap_system*, dma_heap_cma*, dma_heap_chunk).
		# The suites expected are those of the main boot that match one.
		# And three dma_heap.carveout= of 1 MiB, below the boot's
		# carveout (below 16 MiB, where the kernel never is): kunit-twice, which is made,
		# then that name again (-EEXIST) and "..", which dma_heap_add()
		# refuses (-EINVAL): each message says why, and only the first
		# blames the name.  (kunit.py puts these before the config's
		# dma_heap.carveout=, so they may not take its name.)
		expected=$RESULTS/kunit-swiotlb.expected
		expected_matching 'dma_heap_helpers*' 'dma_heap_carveout' 'dma_heap_segments' >"$expected"
		boot kunit-swiotlb 300 "$expected" \
			--kernel_args swiotlb=4096,force \
			--kernel_args dma_heap.carveout=1M@0x400000:kunit-twice \
			--kernel_args dma_heap.carveout=1M@0x500000:kunit-twice \
			--kernel_args dma_heap.carveout=1M@0x600000:.. \
			'dma_heap_[chs][aey][glnr]*'
		c=$(console kunit-swiotlb)
		if grep -q 'dma_heap: carveout kunit-twice: 0x0000000000400000, 1024 KiB' "$c" &&
			grep -q 'dma_heap: carveout=1M@0x500000:kunit-twice: the name is taken (-17); no heap' "$c" &&
			grep -q 'dma_heap: carveout=1M@0x600000:\.\.: cannot be registered (-22); no heap' "$c" &&
			[ "$(grep -c 'dma_heap: carveout=.*taken' "$c")" = 1 ]; then
			result 1 "kunit-swiotlb: a refused registration's boot message blames the name only for -EEXIST"
		else
			result 0 "kunit-swiotlb: a refused registration's boot message blames the name only for -EEXIST (see $c)"
		fi
		# 6.1 prints the pool's size only with SWIOTLB_VERBOSE: check that
		# the kernel took the argument and set swiotlb up.
		if grep -q 'Kernel command line: .*swiotlb=4096,force' "$(console kunit-swiotlb)" &&
			grep -q 'software IO TLB: ' "$(console kunit-swiotlb)"; then
			result 1 "kunit-swiotlb: swiotlb=4096,force is set up"
		else
			result 0 "kunit-swiotlb: swiotlb=4096,force is set up (no \"software IO TLB:\" line or no swiotlb= on the command line)"
		fi
	fi
	if [ $full = 1 ] && grep -q '^CONFIG_DMABUF_HEAPS_CMA=y' "$build_dir/.config"; then
		# A CMA buffer of 4 GiB + 4 KiB end to end: a CMA area of
		# 4200 MiB, which needs a guest of 9 GiB (QEMU puts 3 GiB below
		# 4 GiB and the rest above).  nokaslr: a randomized kernel image
		# lands in the 6 GiB above 4 GiB half of the time and leaves no
		# 4200 MiB in one piece ("cma: Failed to reserve 4200 MiB", 3 of
		# 6 boots without it).  No initramfs for gcov (NO_GCOV): the
		# suite is covered by the main boot but for this case.
		echo dma_heap_cma_4g >"$RESULTS/kunit-4g.expected"
		NO_GCOV=1 DMA_HEAPS_MEM=9216 DMA_HEAPS_CMA=4200M boot kunit-4g 600 \
			"$RESULTS/kunit-4g.expected" --kernel_args nokaslr 'dma_heap_cma_4g'
		if grep -Eq 'ok [0-9]+ a_buffer_of_4g_and_a_page_works_end_to_end$' \
			"$(console kunit-4g)"; then
			result 1 "kunit-4g: the 4 GiB + 4 KiB case ran, not skipped"
		else
			result 0 "kunit-4g: the 4 GiB + 4 KiB case ran, not skipped (see $(console kunit-4g))"
		fi
	fi
	if [ $full = 1 ] && grep -q '^CONFIG_MEMCG=y' "$build_dir/.config"; then
		# dma_heap.mem_accounting=1 with cgroup.memory=nokmem: nothing
		# can be charged; two buffers are had, and the boot says so once.
		# And, in the same boot, a dma_heap.carveout= over the kernel's
		# .brk (early page tables, reserved only after the command line
		# is parsed; nokaslr puts it where System.map says, less
		# __START_KERNEL_map): refused, no heap (a heap there oopsed at
		# boot).
		echo dma_heap_system >"$RESULTS/kunit-nokmem.expected"
		brk=$(awk '$3 == "__brk_base" { print $1 }' "$build_dir/System.map")
		brk=$(printf '%#x' $((0x${brk:-0} - 0xffffffff80000000)))
		boot kunit-nokmem 300 "$RESULTS/kunit-nokmem.expected" \
			--kernel_args cgroup.memory=nokmem \
			--kernel_args dma_heap.mem_accounting=1 \
			--kernel_args nokaslr \
			--kernel_args "dma_heap.carveout=64K@$brk:kunit-brk" \
			'dma_heap_system.buffers_are_had_where_kernel_memory_is_not_accounted'
		c=$(console kunit-nokmem)
		if [ "$(grep -c 'dma_heap: mem_accounting is on, but kernel memory is not accounted' "$c")" = 1 ] &&
			grep -Eq '^ *ok [0-9]+ buffers_are_had_where_kernel_memory_is_not_accounted$' "$c"; then
			result 1 "kunit-nokmem: buffers are had, and the boot says once that none is charged"
		else
			result 0 "kunit-nokmem: buffers are had, and the boot says once that none is charged (see $c)"
		fi
		if grep -q "dma_heap: carveout=64K@$brk:kunit-brk: overlaps memory the kernel reserved at boot .* (-16); no heap" "$c" &&
			! grep -q 'dma_heap: carveout kunit-brk:' "$c"; then
			result 1 "kunit-nokmem: a dma_heap.carveout= over the kernel's .brk ($brk) is refused"
		else
			result 0 "kunit-nokmem: a dma_heap.carveout= over the kernel's .brk ($brk) is refused (see $c)"
		fi
	fi
	if [ $full = 1 ]; then
		# A case that fails on purpose (dma-heap-test.c's dma_heap_cleanup)
		# holding an fd, a buffer and a user mapping: KUnit runs the
		# suite's exit in its own thread, and the next case, in the same
		# kernel, finds all of it given back.  The failure counts as a
		# pass when it is reported with its message.
		echo dma_heap_cleanup >"$RESULTS/kunit-fail.expected"
		must_fail=dma_heap_cleanup.a_case_fails_on_purpose_holding_a_buffer
		EXPECT_FAIL=$must_fail boot kunit-fail 300 "$RESULTS/kunit-fail.expected" \
			--kernel_args dma_heap_test.fail_on_purpose=1 'dma_heap_cleanup'
		if grep -q 'fails on purpose, holding fd [0-9]* and a user mapping' \
			"$(console kunit-fail)" &&
			grep -Eq 'not ok [0-9]+ a_case_fails_on_purpose_holding_a_buffer' \
				"$(console kunit-fail)"; then
			result 1 "kunit-fail: $must_fail is reported failed, with its message"
		else
			result 0 "kunit-fail: $must_fail is reported failed, with its message (see $(console kunit-fail))"
		fi
	fi
	if [ $full = 1 ]; then
		# The framework's set-up at boot failing, once for each thing it
		# needs: dma-heap-init-test.c takes it before dma_heap_init()
		# runs and gives it back before the heaps' initcalls.  The
		# suite dma_heap_init alone, and the boot's message with the
		# errno: no dynamic major (EBUSY), the class name (EEXIST) or
		# /sys/kernel/dma_heap taken (kobject_create_and_add() says
		# only that it failed: ENOMEM).
		echo dma_heap_init >"$RESULTS/kunit-init.expected"
		for take in majors:-16 class:-17 kobj:-12; do
			name=kunit-init-${take%%:*}
			boot "$name" 300 "$RESULTS/kunit-init.expected" \
				--kernel_args "dma_heap_init_test.take=${take%%:*}" 'dma_heap_init'
			msg="dma_heap: not set up, so no heap can be added: ${take#*:}"
			if grep -q "$msg\b" "$(console "$name")"; then
				result 1 "$name: the boot says \"$msg\""
			else
				result 0 "$name: the boot says \"$msg\" (see $(console "$name"))"
			fi
		done
	fi
	times="$times x86_64: build $((t1 - t0))s, run $(($(date +%s) - t1))s;"
done

echo "$total" >"$RESULTS/kunit.counts"
read -r passed failed skipped <<<"$total"
[ "$failed" = 0 ] || rc=1
echo "KUnit:$times total $(($(date +%s) - start))s (${DMA_HEAPS_ACCEL:-no boot}); consoles, KTAP and JSON in $RESULTS"
sed 's/^/  /' "$RESULTS/kunit-boots.txt" 2>/dev/null || true
echo "kunit: $passed passed, $failed failed, $skipped skipped"
exit $rc
