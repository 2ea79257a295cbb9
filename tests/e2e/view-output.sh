#!/bin/bash
# `strata view -w/--output=PATH` against `babeltrace2 -w PATH`: the file
# holds what stdout would, warnings still go to stderr, stdout stays empty.
# Then what babeltrace2 does badly (it crashes on a path it cannot open):
# strata must exit 4 with one error line on an unwritable path or a full
# disk (/dev/full), and leave the file alone when the trace cannot be read.
#
#   view-output.sh STRATA_BINARY
set -u

strata=${1:?usage: view-output.sh STRATA_BINARY}
name=view-output
source "$(dirname "$0")/view-lib.sh"

same_as_babeltrace2() {
	local opt=$1
	shift
	babeltrace2 -w "$work/bt.txt" "$@" >"$work/bt.out" 2>"$work/bt.err"
	"$strata" view "$opt$work/st.txt" "$@" >"$work/st.out" 2>"$work/st.err"
	local rc=$? what="$opt $*"
	if [ "$rc" != 0 ]; then
		echo "FAIL: strata exits $rc: $what"
		head -n 3 "$work/st.err"
		return 1
	fi
	if [ ! -s "$work/bt.txt" ]; then
		echo "FAIL: babeltrace2 wrote nothing, the case is stale: $what"
		return 1
	fi
	if ! cmp -s "$work/bt.txt" "$work/st.txt"; then
		echo "FAIL: the files differ: $what"
		diff "$work/bt.txt" "$work/st.txt" | head -n 6
		return 1
	fi
	if ! cmp -s "$work/bt.err" "$work/st.err" || [ -s "$work/st.out" ]; then
		echo "FAIL: stderr differs or stdout is not empty: $what"
		diff "$work/bt.err" "$work/st.err" | head -n 4
		return 1
	fi
	echo "PASS: $what"
}

check same_as_babeltrace2 -w lttng/discard
check same_as_babeltrace2 --output= gen/stale-strings
check same_as_babeltrace2 -w --clock-seconds -n all lttng/helpers
check same_as_babeltrace2 --output= --begin=1796310976.7 --end=1796310976.8 lttng/discard
check fails 4 "$work/no/such/dir" -w "$work/no/such/dir/x.txt" lttng/discard
check fails 4 'No space left' -w /dev/full lttng/discard
# A trace that cannot be read leaves the file as it was.
echo kept >"$work/kept.txt"
check fails 2 "$work/none" -w "$work/kept.txt" "$work/none"
if [ "$(cat "$work/kept.txt")" = kept ]; then
	pass=$((pass + 1))
else
	echo "FAIL: -w truncated its file although the trace could not be read"
	fail=$((fail + 1))
fi

echo "view-output: $pass passed, $fail failed"
[ "$fail" = 0 ]
