#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export the tree's series (baseline..HEAD) into kernel-patches/, with the
# cover letter made from docs/cover-letter.txt (subject, blank line, body).
set -eu
. "$(dirname "$0")/common.sh"

out="$REPO/kernel-patches"
n=$(git -C "$KDIR" rev-list --count baseline..HEAD)
[ "$n" -gt 0 ] || die "$KDIR has no commits on top of baseline"
[ -z "$(git -C "$KDIR" status --porcelain --untracked-files=no)" ] ||
	die "$KDIR has uncommitted changes"

rm -f "$out"/*.patch
mkdir -p "$out"
git -C "$KDIR" format-patch -q --cover-letter --zero-commit --no-signature \
	--base=baseline -o "$out" baseline..HEAD
python3 - "$out/0000-cover-letter.patch" "$REPO/docs/cover-letter.txt" <<'PY'
import sys
path, text = sys.argv[1], open(sys.argv[2]).read()
subject, _, body = text.partition("\n\n")
letter = open(path).read()
letter = letter.replace("*** SUBJECT HERE ***", subject.strip())
letter = letter.replace("*** BLURB HERE ***", body.strip())
open(path, "w").write(letter)
PY
# The tree now holds exactly the exported series.
stamp=$(find "$out" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' |
	sort | xargs cat | sha256sum | cut -d' ' -f1)
echo "$stamp $(git -C "$KDIR" rev-parse HEAD)" >"$(git -C "$KDIR" rev-parse --git-dir)/dma-heaps-series"
ls "$out"
