#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-regions-console.sh CONSOLE: the console of an arm64 boot with the
# regions of kunit/arm64-regions.dtsi (make mutate's arm64 stage) holds
# kunit/arm64-regions.expected: scripts/check-regions.py, whose KTAP is
# the console's own (kunit.py's test.log has the KTAP lines it reads).
# Prints what does not hold and exits 1 when something does not.
set -u
. "$(dirname "$0")/common.sh"

out=$("$REPO/scripts/check-regions.py" arm64 "$1" "$1" \
	"$REPO/kunit/arm64-regions.expected") ||
	{ echo "scripts/check-regions.py failed"; exit 1; }
bad=$(sed -n 's/^0 //p' <<<"$out")
[ -z "$bad" ] || { echo "$bad"; exit 1; }
