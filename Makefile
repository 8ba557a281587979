# SPDX-License-Identifier: GPL-2.0
# DMA-BUF heaps: the series in kernel-patches/, its KUnit and kselftest runs.
# The kernel tree and build directories live outside this repository, under
# $(DMA_HEAPS_CACHE) (default ~/.cache/dma-heaps); KDIR= overrides the tree.

SHELL := /bin/bash
export KDIR DMA_HEAPS_CACHE
RESULTS_DIR = $(shell . scripts/common.sh && echo "$$RESULTS")

.PHONY: all tree patches check-patches kunit selftest selftest-arm64 coverage mutate bench bench-load test summary clean-results help

all: help

help:
	@echo "make tree           extract the baseline and apply kernel-patches/"
	@echo "make patches        export the tree's commits into kernel-patches/"
	@echo "make check-patches  checkpatch --strict and a build after each patch"
	@echo "make kunit          run the KUnit suites under QEMU, x86_64, i386, arm64 and arm64 with 64 KiB pages (./run_kunit.sh)"
	@echo "make selftest       run the userspace kselftests in a QEMU boot"
	@echo "make selftest-arm64 the same on arm64, in the arm64 KUnit kernel (after make kunit)"
	@echo "make coverage       gcov of our code from the KUnit and kselftest boots: docs/coverage.md"
	@echo "make test           all of the above checks; ends with the summary"
	@echo "make mutate         break the series' code one change at a time: docs/mutation.md (not in test)"
	@echo "make bench          allocation benchmark, upstream's heaps vs ours, then bench-load (not in test)"
	@echo "make bench-load     loading files into a buffer: RW_FILE vs read(), read()+memcpy(), O_DIRECT (not in test)"

tree:
	scripts/prepare-tree.sh

patches:
	scripts/export-patches.sh

check-patches:
	scripts/prepare-tree.sh --check

kunit:
	SKIP_PREPARE=$${SKIP_PREPARE:-0} ./run_kunit.sh

selftest:
	selftests/run-selftests.sh

# Boots the arm64 KUnit kernel that run_kunit.sh built last
# (KUNIT_ARCHES=arm64 ./run_kunit.sh, or make kunit): it builds none.
selftest-arm64:
	SELFTEST_ARCH=arm64 selftests/run-selftests.sh

# The boots' gcov data, from make test, or from the boots run here first;
# then one boot per KUnit suite and per kselftest binary, for which test
# reaches each error return (not in make test: they take a while).
coverage:
	scripts/coverage.sh --run --attribute --docs

# Not part of test: hours for every mutant (scripts/mutate.sh says how to
# run it in parts: MUTATE_FILES=, MUTATE_LIMIT=; results are cached).
mutate:
	scripts/mutate.sh

# Not part of test: it measures, it does not judge.
bench:
	selftests/run-bench.sh
	SKIP_PREPARE=1 selftests/run-bench-load.sh

bench-load:
	selftests/run-bench-load.sh

# Every stage runs even when an earlier one failed; the summary counts them
# all and fails when any stage failed or left no results.  The x86_64
# kselftest main boot, the longest stage, starts first, as soon as its
# kernel is built, and keeps about one CPU busy; beside it run the KUnit
# runs (x86_64, i386, arm64, arm64-64k) and the maintainer's plain
# kunit.py run (scripts/kunit-plain.sh), then the x86_64 kselftest swiotlb
# boot.  The arm64 kselftest boot boots the arm64 KUnit kernel (no kernel
# build of its own): as soon as the arm64 KUnit run has built and booted
# that kernel, its tests are built and it boots, in the background, beside
# the arm64-64k KUnit run and the plain run.  The kselftest boots' output
# is printed once all are done.  Last, the sample of the mutation run
# (scripts/mutate-sample.sh): a killed mutant made again and booted.
test: clean-results
	@rc=0; log=$(RESULTS_DIR)/selftest-boot.log; mkdir -p $(RESULTS_DIR); \
	logs=$(RESULTS_DIR)/selftest-swiotlb-boot.log; \
	log64=$(RESULTS_DIR)/selftest-arm64-boot.log; \
	scripts/prepare-tree.sh --check || rc=1; \
	SELFTEST_PHASE=build selftests/run-selftests.sh || rc=1; \
	{ SELFTEST_PHASE=boot SELFTEST_BOOTS=main selftests/run-selftests.sh >"$$log" 2>&1; \
	  echo $$? >"$$log.rc"; } & \
	SKIP_PREPARE=1 KUNIT_ARCHES=x86_64 ./run_kunit.sh || rc=1; \
	SKIP_PREPARE=1 KUNIT_APPEND=1 KUNIT_ARCHES=i386 ./run_kunit.sh || rc=1; \
	SKIP_PREPARE=1 KUNIT_APPEND=1 KUNIT_ARCHES=arm64 ./run_kunit.sh || rc=1; \
	{ SELFTEST_PHASE=build SELFTEST_ARCH=arm64 selftests/run-selftests.sh >"$$log64" 2>&1 && \
	  SELFTEST_PHASE=boot SELFTEST_ARCH=arm64 selftests/run-selftests.sh >>"$$log64" 2>&1; \
	  echo $$? >"$$log64.rc"; } & \
	SKIP_PREPARE=1 KUNIT_APPEND=1 KUNIT_ARCHES=arm64-64k ./run_kunit.sh || rc=1; \
	scripts/kunit-plain.sh || rc=1; \
	SELFTEST_PHASE=boot SELFTEST_BOOTS=swiotlb selftests/run-selftests.sh >"$$logs" 2>&1 || rc=1; \
	wait; cat "$$log" "$$logs" "$$log64"; [ "$$(cat "$$log.rc")" = 0 ] || rc=1; \
	[ "$$(cat "$$log64.rc")" = 0 ] || rc=1; \
	scripts/coverage.sh || rc=1; \
	scripts/mutate-sample.sh || rc=1; \
	scripts/summary.sh || rc=1; \
	exit $$rc

summary:
	@scripts/summary.sh

clean-results:
	@scripts/summary.sh --clean
