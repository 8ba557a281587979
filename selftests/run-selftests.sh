#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The userspace kselftest boot (make selftest).
#
# Builds a small debug kernel (allnoconfig + selftests/kernel.config) from
# the prepared tree in $SELFTEST_BUILD, installs its UAPI headers, builds the
# tests as static binaries against them (upstream's dmabuf-heap.c unmodified,
# our dma-heap-seed and dma-heap-test), packs them with a static busybox
# into an initramfs, boots it under QEMU and turns what the boot printed
# into TAP.  Writes $RESULTS/selftest.tap and $RESULTS/selftest.counts
# ("passed failed skipped") and exits non-zero on any failure: a failed
# test, a kernel BUG/WARNING/KASAN/lockdep/kmemleak report, a timeout, or
# an expected binary or heap that did not show up.
#
#   SELFTEST_KDIR=dir     source tree (default $KDIR)
#   SELFTEST_TIMEOUT=s    bound on the QEMU run (default 1800)
#   SELFTEST_MEM=MiB      guest memory (default 3072: 1 GiB of it is hugetlb_cma)
#   SELFTEST_SMP=n        guest CPUs (default 2)
#   SELFTEST_TESTS="..."  which binaries to run (default all four)
#   SELFTEST_FUZZ="..."   dma-heap-fuzz's arguments (default none: seed 1,
#                         5000 iterations), e.g. "-s 7 -n 200000
#   DMA_HEAPS_ACCEL=tcg|kvm  skips the KVM probe
#   SELFTEST_PHASE=build|boot  only builds (kernel, tests, initramfs), or
#                         only boots what a build phase left (make test
#                         boots beside the i386 KUnit build); default both
#   SELFTEST_INITRAMFS=file  the boot's initramfs instead of the build
#                         phase's (make coverage packs one per binary); no
#                         swiotlb boot then
#   SELFTEST_BOOTS="main swiotlb"  which of the boot phase's boots to run
#
# The boot phase boots twice: the main boot runs every binary; the swiotlb
# boot, the same kernel with SWIOTLB_ARGS (every DMA mapping bounces, as in
# SEV and TDX guests), runs only upstream's dmabuf-heap and dma-heap-seed,
# whose imports into vgem of every heap's buffers, 1 MiB and 64 MiB, must
# map (no table entry longer than a bounce buffer, 256 KiB) and, for the
# carveout, must not bounce (its range is not in the linear map that
# swiotlb copies through).  Its TAP is $RESULTS/selftest-swiotlb.tap, its
# counts $RESULTS/selftest-swiotlb.counts, so that make test can run the
# two boots apart.
#
#   SELFTEST_ARCH=arm64   the same on arm64 (QEMU virt, TCG, cortex-a57), with
#                         the arm64 KUnit kernel ($KUNIT_BUILD_ARM64, built by
#                         run_kunit.sh with kunit/arm64-selftest.config) booted
#                         with a kunit.filter_glob that matches no suite: no
#                         kernel is built here.  The build phase builds the
#                         tests (aarch64-linux-gnu-gcc, static) in
#                         $SELFTEST_BUILD_ARM64; the boot phase packs them with
#                         $BUSYBOX_ARM64 (scripts/install-deps.sh) and the
#                         KUnit build's test module, and boots.  No carveout
#                         heap (x86 only), no kmemleak or KASAN (not a debug
#                         kernel: docs/selftests.md says why).  With
#                         scripts/arm64-dtb.sh in the repository, both boots
#                         take their device tree from it (its /reserved-memory
#                         regions).  Results: $RESULTS/selftest-arm64.tap,
#                         selftest-arm64-swiotlb.tap, selftest-arm64.counts,
#                         selftest-arm64-swiotlb.counts.
set -eu
. "$(dirname "$0")/../scripts/common.sh"

SRC=${SELFTEST_KDIR:-$KDIR}
SARCH=${SELFTEST_ARCH:-x86_64}
case $SARCH in
x86_64)
	B=$SELFTEST_BUILD
	KB=$B			# the kernel's build directory
	NAME=selftest		# results' names and the output's prefix
	CROSS=""
	;;
arm64)
	B=$SELFTEST_BUILD_ARM64
	KB=$KUNIT_BUILD_ARM64
	NAME=selftest-arm64
	CROSS=aarch64-linux-gnu-
	;;
*)
	echo "SELFTEST_ARCH=$SARCH: x86_64 or arm64" >&2
	exit 1
	;;
esac
TIMEOUT=${SELFTEST_TIMEOUT:-1800}
MEM=${SELFTEST_MEM:-3072}
SMP=${SELFTEST_SMP:-2}
TESTS=${SELFTEST_TESTS:-"dmabuf-heap dma-heap-seed dma-heap-test dma-heap-fuzz"}
FUZZ=${SELFTEST_FUZZ:-}
HERE=$REPO/selftests
RUN=$B/run
# hugetlb_cma=1G: a CMA area for gigantic pages (x86 reserves it only with
# 1 GiB pages: -cpu max under TCG has pdpe1gb), an area that must not
# become a heap (dma-heap-test's cma_hugetlb_area_is_not_a_heap).
# The carveout heap's range (64 MiB at 768 MiB) is reserved for it by
# dma_heap.carveout= as the command line is parsed; nokaslr keeps the kernel
# at 16 MiB, off the range (the decompressor's KASLR does not know of the
# range, and a range the kernel sits on is refused).
# no_timer_check: on a loaded host TCG can be too slow for the kernel's
# check that the IO-APIC delivers the timer, which then panics (seen in
# KUnit boots; kunit/qemu_x86_64.py).
# The swiotlb boot's arguments, after CMDLINE's: 128 MiB of bounce buffers
# for every DMA mapping, and room for the seed's 64 MiB buffers in the CMA
# heaps (a larger default area: the last cma= counts) and in a carveout of
# 128 MiB of its own, carveout-big.
SWIOTLB_ARGS="swiotlb=65536,force cma=256M dma_heap.carveout=128M@0x40000000:carveout-big"
CMDLINE="console=ttyS0 no_timer_check nokaslr dma_heap.carveout=64M@0x30000000 cma=64M hugetlb_cma=1G panic_on_warn=1 panic=-1 oops=panic rdinit=/init kmemleak=on"
# arm64: no nokaslr and no dma_heap.carveout= (x86's); the default CMA
# area, a second CMA area and a carveout are the device tree's
# (scripts/arm64-dtb.sh), so no cma= but the swiotlb boot's, which
# replaces the tree's default area with a larger one.  hugetlb_cma=1G
# works with 4 KiB pages (1 GiB is a PUD).  kunit.filter_glob matches no suite: the
# KUnit kernel runs none and goes on to /init.
if [ "$SARCH" = arm64 ]; then
	SWIOTLB_ARGS="swiotlb=65536,force cma=256M"
	CMDLINE="console=ttyAMA0 hugetlb_cma=1G panic_on_warn=1 panic=-1 oops=panic rdinit=/init kunit.filter_glob=no-suite-in-the-kselftest-boot"
fi

PHASE=${SELFTEST_PHASE:-all}
BOOTS=${SELFTEST_BOOTS:-main swiotlb}
INITRAMFS=${SELFTEST_INITRAMFS:-$B/initramfs.cpio}
SWIOTLB_INITRAMFS=$B/initramfs-swiotlb.cpio
[ -z "${SELFTEST_INITRAMFS:-}" ] || SWIOTLB_INITRAMFS=""
mkdir -p "$RESULTS" "$B"
# The results of the boots this run makes (the swiotlb boot's alone when
# SELFTEST_BOOTS is "swiotlb": make test runs it apart from the main one).
OUT=$NAME
[ "$BOOTS" != swiotlb ] || OUT=$NAME-swiotlb
rm -f "$RESULTS/$OUT.tap" "$RESULTS/$OUT.counts"
[ "$OUT" != "$NAME" ] || rm -f "$RESULTS/$NAME-swiotlb.tap" "$RESULTS/$NAME-swiotlb.counts"

# Anything that stops the run before the boot still leaves results.
fail_setup() {
	printf 'TAP version 13\n1..1\nnot ok 1 %s setup: %s\n' "$NAME" "$*" >"$RESULTS/$OUT.tap"
	echo "0 1 0" >"$RESULTS/$OUT.counts"
	echo "$NAME: $*" >&2
	echo "$NAME: 0 passed, 1 failed, 0 skipped"
	exit 1
}
trap 'fail_setup "failed at line $LINENO"' ERR

# pack_initramfs: busybox, /init and the tests, made by the tree's own
# gen_init_cpio (no root needed for /dev/console), in $B/initramfs.cpio and
# the swiotlb boot's $B/initramfs-swiotlb.cpio.  Needs $churn_ko set (empty
# or a missing file: no test module) and $heap_kos (the heap modules, or
# empty).
pack_initramfs() {
	gcc -O2 -o "$B/gen_init_cpio" "$SRC/usr/gen_init_cpio.c"
	if [ "$SARCH" = arm64 ]; then
		busybox=$BUSYBOX_ARM64
		[ -x "$busybox" ] || fail_setup "no $busybox (scripts/install-deps.sh)"
	else
		busybox=$(command -v busybox)
	fi
	readelf -l "$busybox" | grep -q INTERP && fail_setup "$busybox is not static (busybox-static)"
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "nod /dev/null 0666 0 0 c 1 3"
		for d in /bin /proc /sys /tmp /tests; do echo "dir $d 0755 0 0"; done
		echo "file /bin/busybox $busybox 0755 0 0"
		echo "slink /bin/sh busybox 0777 0 0"
		echo "file /init $HERE/init.sh 0755 0 0"
		echo "$TESTS" | tr ' ' '\n' | sed '/^$/d' >"$B/tests.list"
		echo "file /tests/list $B/tests.list 0644 0 0"
		for t in $TESTS; do echo "file /tests/$t $T/$t 0755 0 0"; done
		# A binary's arguments, if any, in /tests/<name>.args.
		echo "$FUZZ" >"$B/fuzz.args"
		echo "file /tests/dma-heap-fuzz.args $B/fuzz.args 0644 0 0"
		[ ! -f "$churn_ko" ] ||
			echo "file /tests/dma_heap_churn_test.ko $churn_ko 0644 0 0"
		# The heaps built as modules, which /init loads.
		echo "dir /tests/heaps 0755 0 0"
		for ko in $heap_kos; do
			echo "file /tests/heaps/${ko##*/} $ko 0644 0 0"
		done
		# The heap lister, which dma-heap-test runs and checks.
		echo "file /tests/dma-heap-info $T/dma-heap-info 0755 0 0"
		# A kernel without kmemleak: /init scans nothing.
		grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$KB/.config" ||
			echo "file /tests/no-kmemleak $B/tests.list 0644 0 0"
	} >"$B/initramfs.list"
	"$B/gen_init_cpio" "$B/initramfs.list" >"$B/initramfs.cpio"
	# The swiotlb boot's: the same, running only upstream's dmabuf-heap
	# and dma-heap-seed, which import every heap's buffers of 1 MiB (and
	# the seed's of 64 MiB) into vgem, through bounce buffers of at most
	# 256 KiB.
	rm -f "$B/initramfs-swiotlb.cpio"
	if echo " $TESTS " | grep -q ' dma-heap-seed '; then
		echo "dmabuf-heap dma-heap-seed" | tr ' ' '\n' >"$B/tests-swiotlb.list"
		{
			sed "s|^file /tests/list .*|file /tests/list $B/tests-swiotlb.list 0644 0 0|" \
				"$B/initramfs.list" | grep -v '^file /tests/no-kmemleak '
			echo "file /tests/no-kmemleak $B/tests-swiotlb.list 0644 0 0"
		} >"$B/initramfs-swiotlb.list"
		"$B/gen_init_cpio" "$B/initramfs-swiotlb.list" >"$B/initramfs-swiotlb.cpio"
	fi
}

start=$(date +%s)
built=$start
T=$B/tests
if [ "$PHASE" != boot ]; then
	"$REPO/scripts/install-deps.sh" || fail_setup "missing packages"
	[ -f "$SRC/Makefile" ] || "$REPO/scripts/prepare-tree.sh" || fail_setup "no tree"
	[ -f "$SRC/Makefile" ] || fail_setup "no kernel tree in $SRC"

	if [ "$SARCH" = x86_64 ]; then
	# 1. The kernel: allnoconfig plus the fragment.  An option of the fragment
	# that this tree has but the result lacks means a dependency is missing;
	# one that the tree does not have yet (a heap still being written) is noted.
	echo "selftest: building the kernel in $B"
	# shellcheck disable=SC2046
	build_small_kernel "$SRC" "$B" "$HERE/kernel.config" $(gcov_make_vars) ||
		fail_setup "kernel build failed (kernel.config, bzImage or headers_install)"
	# The test module, when the tree has it (dma-heap-test skips its case
	# without it), and the heaps built as modules.
	churn_ko=$B/drivers/dma-buf/heaps/dma_heap_churn_test.ko
	rm -f "$churn_ko" "$B"/drivers/dma-buf/heaps/*_heap.ko
	if grep -q '^CONFIG_DMABUF_HEAPS_.*=m' "$B/.config"; then
		# shellcheck disable=SC2046
		make -s -C "$SRC" O="$B" ARCH=x86_64 "$(cc_make_opt)" -j"$JOBS" \
			$(gcov_make_vars) modules </dev/null ||
			fail_setup "building the modules failed"
	fi
	heap_kos=$(ls "$B"/drivers/dma-buf/heaps/*_heap.ko 2>/dev/null || true)
	else
		# arm64: the kernel is run_kunit.sh's; only the UAPI headers
		# (which need no .config).
		echo "$NAME: the tests, against the tree's arm64 UAPI headers, in $B"
		make -s -C "$SRC" O="$B/kobj" ARCH=arm64 headers_install \
			INSTALL_HDR_PATH="$B/hdr" </dev/null ||
			fail_setup "headers_install (arm64) failed"
	fi
	built=$(date +%s)

	# 2. The tests, static, against the tree's UAPI headers.
	rm -rf "$T"
	mkdir -p "$T"
	make -s -C "$SRC/tools/testing/selftests/dmabuf-heaps" OUTPUT="$T" \
		CROSS_COMPILE="$CROSS" KHDR_INCLUDES="-isystem $B/hdr/include" </dev/null ||
		fail_setup "building upstream's dmabuf-heap failed"
	for t in dma-heap-seed dma-heap-test dma-heap-info dma-heap-fuzz; do
		"${CROSS}gcc" -static -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
			-Wno-clobbered -isystem "$B/hdr/include" \
			-I"$SRC/tools/testing/selftests" -o "$T/$t" "$HERE/$t.c" -lpthread ||
			fail_setup "building $t failed"
	done

	# 3. The initramfs (x86_64; arm64's is packed by the boot phase, with
	# the test module of the KUnit build it boots).
	[ "$SARCH" != x86_64 ] || pack_initramfs
	if [ "$PHASE" = build ]; then
		echo "$NAME: built in $((built - start))s; the boot is SELFTEST_PHASE=boot"
		exit 0
	fi
fi
if [ "$SARCH" = arm64 ]; then
	# The arm64 KUnit kernel (run_kunit.sh builds it after this
	# script's build phase in make test), its test module, and the
	# initramfs with both.
	[ -f "$KB/arch/arm64/boot/Image" ] ||
		fail_setup "no $KB/arch/arm64/boot/Image: KUNIT_ARCHES=arm64 ./run_kunit.sh builds it"
	for o in DMABUF_HEAPS DRM_VGEM VIRTIO_CONSOLE; do
		grep -q "^CONFIG_$o=y" "$KB/.config" ||
			fail_setup "$KB/.config has no CONFIG_$o=y (kunit/arm64-selftest.config)"
	done
	[ -x "$T/dmabuf-heap" ] || fail_setup "no $T/dmabuf-heap (SELFTEST_PHASE=build first)"
	churn_ko=""
	heap_kos=""
	grep -q '^CONFIG_DMABUF_HEAPS_CHURN_TEST=m' "$KB/.config" &&
		churn_ko=$KB/drivers/dma-buf/heaps/dma_heap_churn_test.ko
	[ -n "${SELFTEST_INITRAMFS:-}" ] || pack_initramfs
fi
[ -f "$INITRAMFS" ] || fail_setup "no $INITRAMFS (SELFTEST_PHASE=build first)"

# 4. The boots.  Each serial port goes to a file and stdin is /dev/null, so
# the run needs no terminal (CI has no stdin).
if [ "$SARCH" = arm64 ]; then
	accel=tcg
	cpu=(-cpu cortex-a57)
else
	accel=$(qemu_accel)
	cpu=(-cpu max)
	[ "$accel" = kvm ] && cpu=(-cpu host)
fi
trap - ERR
expect_heaps=""
grep -q '^CONFIG_DMABUF_HEAPS_SYSTEM=y' "$KB/.config" && expect_heaps="$expect_heaps system"
grep -q '^CONFIG_DMABUF_HEAPS_SYSTEM_CONTIG=y' "$KB/.config" && expect_heaps="$expect_heaps system-contig"
grep -q '^CONFIG_DMABUF_HEAPS_CMA=y' "$KB/.config" && expect_heaps="$expect_heaps cma"
grep -q '^CONFIG_DMABUF_HEAPS_CHUNK=y' "$KB/.config" && expect_heaps="$expect_heaps chunk"
grep -q '^CONFIG_DMABUF_HEAPS_CARVEOUT=y' "$KB/.config" && expect_heaps="$expect_heaps carveout"
faults=0
grep -q '^CONFIG_FAULT_INJECTION_DEBUG_FS=y' "$KB/.config" && faults=1
gcov=0
grep -q '^CONFIG_GCOV_KERNEL=y' "$KB/.config" && gcov=1
kmemleak=0
grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$KB/.config" && kmemleak=1

# make_disks RUN-DIR: the two disks of DMA_HEAP_IOCTL_RW_FILE's tests, new
# and sparse for each boot: RUN-DIR/ext2.img, on which /init makes an ext2
# file system (/mnt/ext2), and RUN-DIR/raw.img, read and written raw
# (/dev/vdb).  disks (x86_64: virtio-blk-pci) and disks_mmio (arm64's virt:
# virtio-blk-device) are their QEMU arguments.
make_disks() {
	truncate -s 192M "$1/ext2.img"
	truncate -s 40M "$1/raw.img"
	disks=() disks_mmio=()
	for d in ext2 raw; do
		disks+=(-drive "file=$1/$d.img,format=raw,if=none,id=$d"
			-device "virtio-blk-pci,drive=$d")
		disks_mmio+=(-drive "file=$1/$d.img,format=raw,if=none,id=$d"
			     -device "virtio-blk-device,drive=$d")
	done
}

# qemu_boot RUN-DIR INITRAMFS TIMEOUT EXTRA-CMDLINE: one boot; sets qrc.
qemu_boot() {
	rm -rf "$1"
	mkdir -p "$1"
	make_disks "$1"
	qrc=0
	[ "$SARCH" = x86_64 ] || { qemu_boot_arm64 "$@"; return; }
	timeout -k 10 "$3" qemu-system-x86_64 -accel "$accel" "${cpu[@]}" \
		-m "$MEM" -smp "$SMP" -nodefaults -nographic -no-reboot -monitor none \
		-bios qboot.rom \
		-serial "file:$1/console.log" -serial "file:$1/tests.log" \
		"${disks[@]}" \
		-kernel "$B/arch/x86/boot/bzImage" -initrd "$2" \
		-append "$CMDLINE$4" </dev/null >"$1/qemu.log" 2>&1 || qrc=$?
}

# qemu_boot_arm64 RUN-DIR INITRAMFS TIMEOUT EXTRA-CMDLINE: qemu_boot's on
# arm64.  The virt machine has one PL011, the kernel's console; the tests
# write to a virtio console (/dev/hvc0, selftests/init.sh) in a file of its
# own.  The device tree is scripts/arm64-dtb.sh's (/reserved-memory regions
# for CMA heaps and carveouts) when the repository has that script, made for
# this machine, CPU and memory; else QEMU's own.
qemu_boot_arm64() {
	local machine=(-machine virt -cpu cortex-a57 -m "$MEM" -smp "$SMP") dtb=()

	if [ -x "$REPO/scripts/arm64-dtb.sh" ]; then
		if "$REPO/scripts/arm64-dtb.sh" "$1/virt.dtb" "${machine[@]}" \
			>"$1/arm64-dtb.log" 2>&1; then
			dtb=(-dtb "$1/virt.dtb")
		else
			echo "$NAME: scripts/arm64-dtb.sh failed ($1/arm64-dtb.log)" >&2
			qrc=1
			return
		fi
	fi
	timeout -k 10 "$3" qemu-system-aarch64 -accel "$accel" "${machine[@]}" \
		-nodefaults -nographic -no-reboot -monitor none \
		-serial "file:$1/console.log" \
		-device virtio-serial-device \
		-chardev "file,id=tests,path=$1/tests.log" \
		-device virtconsole,chardev=tests \
		"${disks_mmio[@]}" \
		-kernel "$KB/arch/arm64/boot/Image" "${dtb[@]}" -initrd "$2" \
		-append "$CMDLINE$4" </dev/null >"$1/qemu.log" 2>&1 || qrc=$?
}

# verdict RUN-DIR TESTS TIMEOUT TAP [ARGS...]: the boot's TAP
# (parse-results.py, with ARGS).
verdict() {
	local prc=0 run=$1 tests=$2 timeout=$3 tap=$4

	shift 4
	python3 "$HERE/parse-results.py" --tests "$tests" --heaps "$expect_heaps" \
		--faults "$faults" --gcov "$gcov" --kmemleak "$kmemleak" \
		--qemu-rc "$qrc" --timeout "$timeout" \
		"$@" "$run/tests.log" "$run/console.log" >"$tap" || prc=$?
	[ "$prc" -le 1 ] || { cat "$tap" >&2; fail_setup "parse-results.py failed ($prc)"; }
}

# add_counts TAP: adds TAP's results to the counts of the boot (main or
# swiotlb) that $boot names, counts_main or counts_swiotlb.
add_counts() {
	local p f s a b c var=counts_$boot

	read -r p f s <<<"$("$REPO/scripts/tap-count.py" tap "$1")"
	read -r a b c <<<"${!var}"
	printf -v "$var" '%s %s %s' $((a + p)) $((b + f)) $((c + s))
}

end=$built
counts_main="0 0 0" counts_swiotlb="0 0 0"
if echo " $BOOTS " | grep -q ' main '; then
	boot=main
	t0=$(date +%s)
	echo "$NAME: booting under QEMU ($SARCH, $accel, ${MEM} MiB, $SMP CPUs, timeout ${TIMEOUT}s)"
	qemu_boot "$RUN" "$INITRAMFS" "$TIMEOUT" ""
	end=$(date +%s)
	verdict "$RUN" "$TESTS" "$TIMEOUT" "$RESULTS/$NAME.tap"
	cp "$RUN/console.log" "$RESULTS/$NAME-console.log"
	rm -rf "$RESULTS/gcov/$NAME"
	[ "$gcov" = 0 ] || "$REPO/scripts/gcov-extract.py" "$RUN/tests.log" "$B" \
		"$RESULTS/gcov/$NAME" >/dev/null || true
	cp "$RUN/tests.log" "$RESULTS/$NAME-tests.log"
	add_counts "$RESULTS/$NAME.tap"
	grep '^\(not \)\?ok ' "$RESULTS/$NAME.tap" | sed "s/^/$NAME: /"
	echo "$NAME: the main boot took $((end - t0))s"
	echo "$counts_main" >"$RESULTS/$NAME.counts"
fi
if echo " $BOOTS " | grep -q ' swiotlb ' && [ -n "$SWIOTLB_INITRAMFS" ]; then
	boot=swiotlb
	if [ -f "$SWIOTLB_INITRAMFS" ]; then
		t0=$(date +%s)
		echo "$NAME: the swiotlb boot ($SWIOTLB_ARGS; dmabuf-heap, dma-heap-seed)"
		# Without kmemleak's scans (/tests/no-kmemleak), which took 265 of
		# the boot's 407 s (2026-12-06, five workers on two cores): the
		# main boot checks the same paths for leaks.  Its gcov data is
		# not kept.
		qemu_boot "$RUN-swiotlb" "$SWIOTLB_INITRAMFS" 600 " $SWIOTLB_ARGS"
		verdict "$RUN-swiotlb" "dmabuf-heap dma-heap-seed" 600 "$RESULTS/$NAME-swiotlb.tap" \
			--kmemleak 0 --gcov 0
		cp "$RUN-swiotlb/console.log" "$RESULTS/$NAME-swiotlb-console.log"
		cp "$RUN-swiotlb/tests.log" "$RESULTS/$NAME-swiotlb-tests.log"
		add_counts "$RESULTS/$NAME-swiotlb.tap"
		grep '^\(not \)\?ok ' "$RESULTS/$NAME-swiotlb.tap" | sed "s/^/$NAME-swiotlb: /"
		# The kernel took the argument: every mapping bounced.  And
		# the swiotlb boot's own carveout, where there is a carveout.
		what="swiotlb=65536,force is set up"
		big=1
		if [ "$SARCH" = x86_64 ] && [[ " $expect_heaps " = *" carveout "* ]]; then
			what="$what, with carveout-big"
			grep -q 'dma_heap: carveout carveout-big: ' "$RUN-swiotlb/console.log" || big=0
		fi
		if grep -q 'Kernel command line: .*swiotlb=65536,force' "$RUN-swiotlb/console.log" &&
			grep -q 'software IO TLB: ' "$RUN-swiotlb/console.log" && [ $big = 1 ]; then
			add_counts <(echo "ok 1 $what")
		else
			add_counts <(echo "not ok 1 $what")
			echo "$NAME-swiotlb: not ok - $what"
		fi
		echo "$NAME: the swiotlb boot took $(($(date +%s) - t0))s"
		end=$(date +%s)
	else
		add_counts <(echo "not ok 1 the swiotlb boot: no $SWIOTLB_INITRAMFS")
		echo "$NAME-swiotlb: not ok - no $SWIOTLB_INITRAMFS (SELFTEST_PHASE=build first)"
	fi
	echo "$counts_swiotlb" >"$RESULTS/$NAME-swiotlb.counts"
fi

read -r a b c <<<"$counts_main"
read -r p f s <<<"$counts_swiotlb"
passed=$((a + p)) failed=$((b + f)) skipped=$((c + s))
echo "$NAME: build $((built - start))s, boot and tests $((end - built))s ($accel); TAP in $RESULTS/$OUT.tap, logs in $RUN"
echo "$NAME: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
