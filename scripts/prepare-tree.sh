#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make $KDIR a git tree of Debian's linux-source-6.1 with upstream's
# dma-heaps removed (tag "baseline"), then put kernel-patches/ on top of it
# on branch "series".  Running it again resets the tree to baseline + series;
# files that the series does not touch keep their timestamps, so the next
# build is incremental.  Commits made in the tree that are not in the series
# are kept on a backup branch first.
#
#   --check   apply the series to a fresh baseline one patch at a time; run
#             checkpatch --strict on each patch and build the KUnit kernel
#             after each, writing TAP to $RESULTS/check-patches.tap
set -eu
. "$(dirname "$0")/common.sh"

check=0
[ "${1:-}" = "--check" ] && check=1

"$REPO/scripts/install-deps.sh"

tarball=$(dpkg -L linux-source-6.1 | grep -m1 '/linux-source-6\.1\.tar\.xz$') ||
	die "linux-source-6.1 has no tarball"
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)

bgit() {
	GIT_AUTHOR_NAME="$BASELINE_IDENT_NAME" GIT_AUTHOR_EMAIL="$BASELINE_IDENT_EMAIL" \
	GIT_COMMITTER_NAME="$BASELINE_IDENT_NAME" GIT_COMMITTER_EMAIL="$BASELINE_IDENT_EMAIL" \
	GIT_AUTHOR_DATE="$BASELINE_DATE" GIT_COMMITTER_DATE="$BASELINE_DATE" \
		git -C "$1" "${@:2}"
}

make_baseline() {
	local tmp="$KDIR.tmp"

	echo "extracting $tarball ($version) into $KDIR"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xf "$tarball" -C "$tmp" --strip-components=1
	git -C "$tmp" init -q -b import
	git -C "$tmp" config core.autocrlf false
	git -C "$tmp" config gc.auto 0
	git -C "$tmp" add -A -f
	bgit "$tmp" commit -q -m "Debian linux-source-6.1 $version" \
		-m "Extracted from $(basename "$tarball") of the Debian package linux-source-6.1, version $version."
	git -C "$tmp" tag debian
	(cd "$tmp" && sh "$REPO/scripts/remove-upstream-heaps.sh")
	git -C "$tmp" add -A
	bgit "$tmp" commit -q -m "dma-buf: remove upstream's DMA-BUF heaps" \
		-m "Made by scripts/remove-upstream-heaps.sh: our series adds its own framework and heaps. tools/testing/selftests/dmabuf-heaps/ is kept as the conformance test."
	git -C "$tmp" tag baseline
	rm -rf "$KDIR"
	mv "$tmp" "$KDIR"
}

if ! git -C "$KDIR" rev-parse -q --verify baseline >/dev/null 2>&1; then
	make_baseline
fi

g() { git -C "$KDIR" "$@"; }

if [ -n "$(g status --porcelain --untracked-files=no)" ] && [ "${FORCE:-0}" != 1 ] &&
	[ "${CI:-}" != true ]; then
	g status --short --untracked-files=no | head
	die "$KDIR has uncommitted changes: commit them (and make patches) or rerun with FORCE=1"
fi

# Whatever is still uncommitted under drivers/ and include/ (new files too)
# would be lost by the reset below: keep it in a stash first.
if [ -n "$(g status --porcelain -- drivers include)" ]; then
	g -c user.name=dma-heaps -c user.email=dma-heaps@invalid \
		stash push -q -u -m "prepare-tree $(date +%Y%m%d-%H%M%S)" -- drivers include
	echo "kept the tree's uncommitted changes in: $(g stash list | head -1)"
fi

mapfile -t patches < <(find "$REPO/kernel-patches" -name '[0-9][0-9][0-9][0-9]-*.patch' \
	! -name '0000-cover-letter.patch' | sort)
stamp=$(cat "${patches[@]}" /dev/null | sha256sum | cut -d' ' -f1)
stampfile="$(g rev-parse --git-dir)/dma-heaps-series"
head=$(g rev-parse HEAD)

if [ $check = 0 ] && [ -f "$stampfile" ] && [ "$(cat "$stampfile")" = "$stamp $head" ] &&
	[ "$(g rev-parse --abbrev-ref HEAD)" = series ]; then
	echo "$KDIR: baseline + ${#patches[@]} patches, up to date"
	exit 0
fi

if g rev-parse -q --verify series >/dev/null &&
	[ -n "$(g rev-list baseline..series)" ] &&
	! { [ -f "$stampfile" ] && [ "$(cut -d' ' -f2 "$stampfile")" = "$(g rev-parse series)" ]; }; then
	backup="backup/$(date +%Y%m%d-%H%M%S)"
	g branch -f "$backup" series
	echo "kept the tree's own commits on branch $backup"
fi

g checkout -q -f -B series baseline
g clean -q -fd -- drivers include
am() {
	g -c user.name="${GIT_COMMITTER_NAME:-dma-heaps}" \
		-c user.email="${GIT_COMMITTER_EMAIL:-dma-heaps@invalid}" \
		am -q --committer-date-is-author-date "$@"
}
if [ $check = 0 ]; then
	[ ${#patches[@]} = 0 ] || am "${patches[@]}"
else
	mkdir -p "$RESULTS"
	"$REPO/scripts/check-series.sh" "${patches[@]}" | tee "$RESULTS/check-patches.tap"
	[ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
echo "$stamp $(g rev-parse HEAD)" >"$stampfile"
echo "$KDIR: baseline + ${#patches[@]} patches"
exit "${status:-0}"
