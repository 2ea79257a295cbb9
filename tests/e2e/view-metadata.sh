#!/bin/bash
# `strata view -o/--output-format` against babeltrace2 -o:
# - ctf-metadata on every trace directory of tests/traces: where babeltrace2
#   prints the metadata, strata prints the same bytes and nothing on stderr;
#   where babeltrace2 refuses, strata either refuses too (exit 3) or, when it
#   could read the text but not parse it, prints the text and one warning.
#   Then -w, a directory above one trace, and the failures.
# - dummy: nothing printed, warnings included, as babeltrace2's
#   sink.utils.dummy; a malformed trace still fails.
#
#   view-metadata.sh STRATA_BINARY
set -u

strata=${1:?usage: view-metadata.sh STRATA_BINARY}
name=view-metadata
source "$(dirname "$0")/view-lib.sh"

# metadata_like_babeltrace2 DIR [OPTION...]: see the header.
metadata_like_babeltrace2() {
	local dir=$1
	shift
	babeltrace2 -o ctf-metadata "$@" "$dir" >"$work/bt.out" 2>/dev/null
	local brc=$?
	"$strata" view -o ctf-metadata "$@" "$dir" >"$work/st.out" 2>"$work/st.err"
	local rc=$? what="$* $dir"
	if [ "$brc" = 0 ]; then
		if [ "$rc" != 0 ] || ! cmp -s "$work/bt.out" "$work/st.out" || [ -s "$work/st.err" ]; then
			echo "FAIL: not babeltrace2's metadata (exit $rc): $what"
			diff "$work/bt.out" "$work/st.out" | head -n 4
			head -n 2 "$work/st.err"
			return 1
		fi
		echo "PASS: same metadata: $what"
		return 0
	fi
	if [ "$rc" = 3 ] && [ ! -s "$work/st.out" ] &&
		[ "$(grep -c '^Error: Malformed trace: ' "$work/st.err")" = 1 ]; then
		echo "PASS: both refuse: $what"
		return 0
	fi
	if [ "$rc" = 0 ] && [ -s "$work/st.out" ] &&
		[ "$(grep -c "^Warning: The metadata does not parse" "$work/st.err")" = 1 ]; then
		echo "PASS: babeltrace2 refuses, strata shows the text and warns: $what"
		return 0
	fi
	echo "FAIL: babeltrace2 refuses, strata exits $rc: $what"
	head -n 2 "$work/st.err"
	return 1
}


n_dirs=0
while read -r meta; do
	n_dirs=$((n_dirs + 1))
	check metadata_like_babeltrace2 "$(dirname "$meta")"
done < <(find . -name metadata -type f | sort)
if [ "$n_dirs" -lt 30 ]; then
	echo "FAIL: only $n_dirs trace directories under tests/traces"
	fail=$((fail + 1))
fi
# Options that change events change nothing here, as in babeltrace2.
check metadata_like_babeltrace2 gen/types-be --clock-seconds -n all --begin=0

# The text of a trace that does not parse is the file's, as read.
"$strata" view -o ctf-metadata bad/metadata-syntax >"$work/st.out" 2>"$work/st.err"
{ cat bad/metadata-syntax/metadata; echo; } >"$work/want.out"
if cmp -s "$work/want.out" "$work/st.out" && grep -q 'metadata:8: ' "$work/st.err"; then
	echo "PASS: unparsable metadata printed as it is, the warning names line 8"
	pass=$((pass + 1))
else
	echo "FAIL: unparsable metadata not printed as it is, or no line in the warning"
	fail=$((fail + 1))
fi

# A directory above exactly one trace: that trace's metadata.
one=lttng/discard/ust/uid/0/64-bit
babeltrace2 -o ctf-metadata "$one" >"$work/bt.out" 2>/dev/null
"$strata" view -o ctf-metadata lttng/discard >"$work/st.out" 2>"$work/st.err"
if [ $? = 0 ] && cmp -s "$work/bt.out" "$work/st.out" && [ ! -s "$work/st.err" ]; then
	echo "PASS: the one trace below lttng/discard"
	pass=$((pass + 1))
else
	echo "FAIL: the one trace below lttng/discard is not printed as babeltrace2 prints it"
	fail=$((fail + 1))
fi

# -w: the file holds what babeltrace2's does, stdout stays empty.
babeltrace2 -o ctf-metadata -w "$work/bt.txt" "$one" >/dev/null 2>&1
"$strata" view -o ctf-metadata -w "$work/st.txt" "$one" >"$work/st.out" 2>"$work/st.err"
if [ $? = 0 ] && [ -s "$work/bt.txt" ] && cmp -s "$work/bt.txt" "$work/st.txt" &&
	[ ! -s "$work/st.out" ] && [ ! -s "$work/st.err" ]; then
	echo "PASS: -w"
	pass=$((pass + 1))
else
	echo "FAIL: -w does not write babeltrace2's file"
	fail=$((fail + 1))
fi

check fails 1 'holds 12 traces' -o ctf-metadata lttng
check fails 1 'give one path, not 2' -o ctf-metadata "$one" "$one"
check fails 2 "$work/none" -o ctf-metadata "$work/none"
check fails 2 'No trace' -o ctf-metadata "$work"
check fails 3 'signature' -o ctf-metadata bad/no-signature
mkdir -p "$work/dirmeta/metadata"
check fails 2 'Failed to read metadata' -o ctf-metadata "$work/dirmeta"
check fails 4 'No space left' -o ctf-metadata -w /dev/full "$one"
check fails 4 "$work/no/dir" -o ctf-metadata -w "$work/no/dir/x.txt" "$one"
check fails 1 "Invalid --output-format 'ctf'" -o ctf -w "$work/out" "$one"

# dummy: every event decoded, nothing printed; text: the default.
"$strata" view -o dummy lttng/discard >"$work/st.out" 2>"$work/st.err"
rc=$?
"$strata" view lttng/discard 2>&1 >/dev/null | grep -q '^WARNING: Tracer discarded'
warned=$?
if [ "$rc" = 0 ] && [ ! -s "$work/st.out" ] && [ ! -s "$work/st.err" ] && [ "$warned" = 0 ]; then
	echo "PASS: -o dummy prints nothing where the text has warnings"
	pass=$((pass + 1))
else
	echo "FAIL: -o dummy printed something or failed (exit $rc)"
	fail=$((fail + 1))
fi
check fails 3 'past the end of the packet content' -o dummy bad/truncated
if babeltrace2 -o dummy bad/truncated >/dev/null 2>&1; then
	echo "FAIL: babeltrace2 reads bad/truncated: the case is stale"
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
"$strata" view -o text gen/types-le >"$work/a.out" 2>&1
"$strata" view gen/types-le >"$work/b.out" 2>&1
if [ -s "$work/a.out" ] && cmp -s "$work/a.out" "$work/b.out"; then
	echo "PASS: -o text is the default"
	pass=$((pass + 1))
else
	echo "FAIL: -o text differs from the default output"
	fail=$((fail + 1))
fi

echo "view-metadata: $pass passed, $fail failed"
[ "$fail" = 0 ]
