#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Called by prepare-tree.sh --check with $KDIR at the baseline: for each
# patch, run checkpatch --strict on it, apply it and build the KUnit kernel's
# vmlinux and modules (the kselftests' test module; a compiler warning
# fails the build; run_kunit.sh makes the bzImage once), printing TAP.  Exceptions to
# checkpatch are listed, with their reasons, in docs/checkpatch-exceptions:
# "<patch file> <TYPE> <reason>".
set -u
. "$(dirname "$0")/common.sh"

cd "$KDIR" || exit 1
mkdir -p "$KUNIT_BUILD"
frag=$(mktemp)
trap 'rm -f "$frag"' EXIT

# The same options kunit.py builds with: its qemu config's and ours.
python3 - "$REPO/kunit/qemu_x86_64.py" >"$frag" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
print(re.search(r"kconfig='''(.*?)'''", text, re.S).group(1).strip())
PY
cat "$REPO/kunitconfig" >>"$frag"

# A patch whose checks passed before, with the same baseline, compiler,
# config, exceptions, script and every patch up to it, is not checked
# again: its results could not differ.  Only a warm cache has such
# stamps; CI starts without one and checks everything.
stamps=$DMA_HEAPS_CACHE/check-series
mkdir -p "$stamps"
key=$( { git rev-parse HEAD; gcc --version | head -n 1; cat "$frag" \
	"$REPO/docs/checkpatch-exceptions" "$0"; } | sha256sum | cut -c1-64)

base=$(git rev-parse HEAD)
echo "TAP version 13"
echo "1..$((2 * $# + 4))"
n=0
fail=0
for patch in "$@"; do
	name=$(basename "$patch")
	key=$( { echo "$key"; cat "$patch"; } | sha256sum | cut -c1-64)
	if [ -e "$stamps/$key" ] &&
		git -c user.name="${GIT_COMMITTER_NAME:-dma-heaps}" \
			-c user.email="${GIT_COMMITTER_EMAIL:-dma-heaps@invalid}" \
			am -q --committer-date-is-author-date "$patch" >/dev/null 2>&1; then
		echo "ok $((n + 1)) - checkpatch --strict $name (passed before, unchanged)"
		echo "ok $((n + 2)) - build after $name (passed before, unchanged)"
		n=$((n + 2))
		continue
	fi
	ok=1
	ignore=$(awk -v p="$name" '$1 == p { printf "%s%s", sep, $2; sep = "," }' \
		"$REPO/docs/checkpatch-exceptions" 2>/dev/null)
	n=$((n + 1))
	# Debian's python3, which has ply for spdxcheck.py.
	if out=$(PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --quiet --showfile \
		${ignore:+--ignore "$ignore"} "$patch" 2>&1); then
		echo "ok $n - checkpatch --strict $name"
	else
		echo "not ok $n - checkpatch --strict $name"
		sed 's/^/# /' <<<"$out"
		fail=1
		ok=0
	fi

	n=$((n + 1))
	if ! out=$(git -c user.name="${GIT_COMMITTER_NAME:-dma-heaps}" \
		-c user.email="${GIT_COMMITTER_EMAIL:-dma-heaps@invalid}" \
		am -q --committer-date-is-author-date "$patch" 2>&1); then
		echo "not ok $n - git am $name"
		sed 's/^/# /' <<<"$out"
		git am --abort >/dev/null 2>&1
		fail=1
		break
	fi
	cp "$frag" "$KUNIT_BUILD/.config"
	if out=$(make -s ARCH=x86_64 O="$KUNIT_BUILD" "$(cc_make_opt)" olddefconfig 2>&1 &&
		make -s ARCH=x86_64 O="$KUNIT_BUILD" "$(cc_make_opt)" -j"$JOBS" vmlinux modules 2>&1) &&
		! grep -q 'warning:' <<<"$out"; then
		echo "ok $n - build after $name"
		[ $ok = 0 ] || touch "$stamps/$key"
	else
		echo "not ok $n - build after $name"
		tail -n 30 <<<"$out" | sed 's/^/# /'
		fail=1
	fi
done

# After the last patch: kernel-doc, sparse and W=1 over the files the series
# touches, and dt_binding_check of the bindings it adds.  6.1's kernel-doc has no -Wall; -v adds the warnings for missing
# return descriptions, and every other warning it has is on by default.
static_checks() {
	local files
	files=$(git diff --name-only "$base" HEAD -- '*.c' '*.h')
	n=$((n + 1))
	# A file the baseline has counts only the warnings it did not have
	# there (kernel/dma/contiguous.c has upstream's own), without line
	# numbers, which the series moves.
	out=""
	local f new old tmp
	tmp=$(mktemp -d)
	for f in $files; do
		new=$(./scripts/kernel-doc -none -v "$f" 2>&1 | grep -v ': info: ' |
			grep -v '^[0-9]* warnings\?$' | sed 's/:[0-9]*: /: /')
		if git cat-file -e "$base:$f" 2>/dev/null; then
			mkdir -p "$tmp/$(dirname "$f")"
			git show "$base:$f" >"$tmp/$f"
			old=$(cd "$tmp" && "$KDIR/scripts/kernel-doc" -none -v "$f" 2>&1 |
				grep -v ': info: ' | grep -v '^[0-9]* warnings\?$' |
				sed 's/:[0-9]*: /: /')
			new=$(comm -23 <(sort <<<"$new") <(sort <<<"$old"))
		fi
		[ -z "$new" ] || out="$out${out:+$'\n'}$new"
	done
	rm -rf "$tmp"
	# Every export the series adds is on the driver-api page (listed by
	# name: 6.1's kernel-doc :export: does not see EXPORT_SYMBOL_NS_GPL());
	# the baseline's own, in a file it has, are not the series'.
	# shellcheck disable=SC2086
	for sym in $(git diff "$base" HEAD -- $files |
		sed -n 's/^+EXPORT_SYMBOL[A-Z_]*(\([a-z0-9_]*\).*/\1/p'); do
		grep -qw "$sym" Documentation/driver-api/dma-buf-heaps.rst 2>/dev/null ||
			out="$out${out:+$'\n'}$sym: exported, not in Documentation/driver-api/dma-buf-heaps.rst"
	done
	if [ -n "$files" ] && [ -z "$out" ]; then
		echo "ok $n - kernel-doc -none -v: no warning in $(wc -w <<<"$files") files, every export documented"
	else
		echo "not ok $n - kernel-doc -none -v: warnings"
		head -n 30 <<<"$out" | sed 's/^/# /'
		fail=1
	fi
	# C=2 checks every file of the directory, built or not; W=1 rebuilds.
	# GCC names its warning's option ("[-W...]"), sparse does not; W=1's
	# kernel-doc gives no column.
	out=$(make -s ARCH=x86_64 O="$KUNIT_BUILD" "$(cc_make_opt)" -j"$JOBS" \
		C=2 W=1 drivers/dma-buf/ 2>&1)
	rc=$?
	n=$((n + 1))
	if [ $rc = 0 ] && ! grep -E ':[0-9]+:[0-9]+: (warning|error):' <<<"$out" |
		grep -vq '\[-W'; then
		echo "ok $n - sparse (make C=2) on drivers/dma-buf/: no warning"
	else
		echo "not ok $n - sparse (make C=2) on drivers/dma-buf/: warnings"
		head -n 30 <<<"$out" | sed 's/^/# /'
		fail=1
	fi
	n=$((n + 1))
	if [ $rc = 0 ] && ! grep -Eq 'warning:.*\[-W|^[^ :]+:[0-9]+: warning:' <<<"$out"; then
		echo "ok $n - make W=1 drivers/dma-buf/: no warning"
	else
		echo "not ok $n - make W=1 drivers/dma-buf/: warnings"
		grep -E -A3 'warning:.*\[-W|^[^ :]+:[0-9]+: warning:' <<<"$out" |
			head -n 30 | sed 's/^/# /'
		fail=1
	fi
	# The device-tree bindings the series adds: their schema and examples,
	# with Debian's dt-schema (make dt_binding_check prints nothing when
	# all is well).
	local bindings b
	bindings=$(git diff --name-only --diff-filter=A "$base" HEAD -- \
		'Documentation/devicetree/bindings/*.yaml')
	n=$((n + 1))
	out=""
	rc=0
	for b in $bindings; do
		out+=$(make -s O="$DMA_HEAPS_CACHE/build-dtcheck" dt_binding_check \
			DT_SCHEMA_FILES="${b#Documentation/devicetree/bindings/}" 2>&1) || rc=1
	done
	if [ -n "$bindings" ] && [ $rc = 0 ] && [ -z "$out" ]; then
		echo "ok $n - make dt_binding_check: $(wc -w <<<"$bindings") binding(s), no error"
	else
		echo "not ok $n - make dt_binding_check: ${bindings:-no binding added}"
		head -n 30 <<<"$out" | sed 's/^/# /'
		fail=1
	fi
}
if [ $n = $((2 * $#)) ]; then
	static_checks
else
	for t in kernel-doc sparse W=1 dt_binding_check; do
		n=$((n + 1))
		echo "not ok $n - $t: the series did not apply"
	done
fi
exit $fail
