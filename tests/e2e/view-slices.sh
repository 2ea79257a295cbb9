#!/bin/bash
# SPDX-License-Identifier: MIT
# Traces read in slices of their timeline (strata_ctf_reader_slice(), what
# `strata view --decode-only --threads=N` runs on N threads) must give what
# one reader gives: slice-compare prints both readings as text and compares
# them, on every golden trace, random traces (tests/gen/randtrace.py) and
# the traces of tests/gen/slice-traces.py, whose cuts fall on ties and
# whose times go back or past their packet's end (slices give up there, and
# the trace is read whole). Then the CLI: --threads changes nothing that is
# printed, nor the exit status.
#
#   view-slices.sh STRATA SLICE_COMPARE
strata=$1
compare=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
name=view-slices
# shellcheck source=view-lib.sh
. "$(dirname "$0")/view-lib.sh"
gen=$(cd ../gen && pwd)

# sliced N PATH [-r]: slice-compare agrees (and slices when -r).
sliced() {
	local n=$1 path=$2 out
	out=$("$compare" $3 "$n" "$path")
	local rc=$?
	if [ $rc != 0 ]; then
		echo "FAIL: slice-compare $3 $n $path (exit $rc): $out"
		return 1
	fi
}

# gives_up PATH: the slices give up (the trace is then read whole).
gives_up() {
	local out
	out=$("$compare" 3 "$1")
	case $out in
	*"read whole (Operation not supported)"*) return 0 ;;
	esac
	echo "FAIL: slices of $1 should give up: $out"
	return 1
}

# same_cli PATH OPTS...: --threads N prints what --threads 1 prints.
same_cli() {
	local path=$1
	shift
	"$strata" view "$@" -j 1 "$path" >"$work/a.out" 2>"$work/a.err"
	local a=$?
	for j in 2 3 8; do
		"$strata" view "$@" -j $j "$path" >"$work/b.out" 2>"$work/b.err"
		local b=$?
		if [ $a != $b ] || ! cmp -s "$work/a.out" "$work/b.out" ||
			! cmp -s "$work/a.err" "$work/b.err"; then
			echo "FAIL: strata view $* -j $j $path differs from -j 1 (exit $b, $a)"
			diff "$work/a.err" "$work/b.err" | head -n 5
			return 1
		fi
	done
}

traces=$(find lttng gen bad -name metadata -printf '%h\n' | sort)
for t in $traces; do
	for n in 2 3 7; do
		case $t in
		lttng/*) check sliced $n "$t" -r ;;
		*) check sliced $n "$t" ;;
		esac
	done
	check same_cli "$t" --decode-only
	check same_cli "$t" -o dummy
done
echo "PASS: $(echo "$traces" | wc -l) golden traces read in 2, 3 and 7 slices"
# Several traces merged into one timeline: the cuts span them all.
for t in lttng/pid-two lttng/rotation gen/merge lttng; do
	check sliced 3 "$t" -r
	check same_cli "$t" --decode-only
done

for seed in $(seq 1 25); do
	python3 "$gen/randtrace.py" "$seed" "$work/rand-$seed" >/dev/null || {
		echo "FAIL: randtrace.py $seed"
		fail=$((fail + 1))
		continue
	}
	check sliced 2 "$work/rand-$seed" -r
	check sliced 5 "$work/rand-$seed" -r
	check same_cli "$work/rand-$seed" --decode-only
	rm -rf "$work/rand-$seed"
done
echo "PASS: random traces 1-25 read in 2 and 5 slices"

python3 "$gen/slice-traces.py" "$work/sl" || exit 1
for n in 2 3 5 11; do
	check sliced $n "$work/sl/ties" -r
done
check same_cli "$work/sl/ties" --decode-only
for t in past-end backwards end-back; do
	check gives_up "$work/sl/$t"
	check same_cli "$work/sl/$t" --decode-only
done

for bad in 0 65 x 2x; do
	check fails 1 "Invalid --threads '$bad'" --decode-only -j "$bad" lttng/discard
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
