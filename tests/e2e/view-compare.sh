#!/bin/bash
# Compares `strata view` with babeltrace2 2.0.4 on the golden traces.
#
#   view-compare.sh STRATA_BINARY GROUP
#
# GROUP is one of the trace groups below (lttng-a, lttng-b, gen-a .. gen-d,
# bt2: golden traces rewritten by babeltrace2's CTF writer at test time)
# or "bad" (malformed traces: strata must fail cleanly, naming the
# file). For every trace and option set, both tools run with the same path
# argument and TZ; stdout and stderr are compared separately with cmp, and
# the first difference is shown as a unified diff excerpt. Exits 77 when
# babeltrace2 is missing.
set -u

strata=${1:?usage: view-compare.sh STRATA_BINARY GROUP}
group=${2:?usage: view-compare.sh STRATA_BINARY GROUP}
name=view-compare
# $strata comes back absolute: the comparisons run from other directories.
source "$(dirname "$0")/view-lib.sh"
traces=$PWD

# A trace marked "+" gets every option set; the others get the short list
# (enough for their own features, and it keeps `make check` fast).
# multi: two paths given together (their clocks must be compatible);
# correlate: paths whose clocks are only compatible with
# --clock-force-correlate.
correlate=()
case $group in
lttng-a)
	list=(+lttng/uid-ctx lttng/pid-two lttng/helpers)
	multi=(lttng/uid-ctx lttng/pid-two)
	;;
lttng-b)
	list=(lttng/multichan lttng/snapshot lttng/discard lttng/lost-packet lttng/may-discard
		lttng/rotation lttng/tracefiles)
	multi=(lttng/discard lttng/lost-packet)
	;;
gen-a)
	list=(+gen/types-le gen/types-be)
	multi=(gen/types-le gen/types-be)
	;;
gen-b)
	list=(+gen/clock-neg gen/clock-odd gen/noclock)
	multi=()
	correlate=(gen/clock-neg gen/clock-odd)
	;;
gen-c)
	list=(gen/implicit-clock gen/minimal gen/packetized-be gen/multi-sc gen/lttng-quirks
		gen/stale-strings gen/stale-nested gen/quirk-after-packet gen/quirk-crash
		gen/quirk-barectf)
	multi=()
	;;
gen-d)
	list=(+gen/compact-wrap gen/merge gen/nohost)
	multi=(gen/merge/t4 gen/merge/t1)
	correlate=(gen/types-le gen/compact-wrap gen/multi-sc)
	;;
bt2)
	# Written by babeltrace2's own CTF writer (sink.ctf.fs) from golden
	# traces, below: metadata and packets laid out as neither LTTng nor
	# our generator lays them out (a clock block per stream class, its own
	# packet contexts and headers).
	list=(+lttng/multichan lttng/discard lttng/lost-packet gen/compact-wrap gen/clock-odd
		gen/noclock gen/multi-sc)
	multi=(lttng/discard lttng/lost-packet)
	;;
bad) list=() ;;
*)
	echo "FAIL: unknown group '$group'"
	exit 1
	;;
esac

# Option sets run with TZ=UTC; the TZ sets below repeat a few in other zones.
option_sets=(
	''
	'--no-delta'
	'--clock-seconds'
	'--clock-date'
	'--clock-gmt'
	'--clock-date --clock-gmt'
	'--clock-seconds --clock-date'
	'--clock-cycles'
	'--clock-cycles --no-delta'
	'-n all'
	'-n none'
	'-n scope'
	'-n header'
	'-n payload'
	'-n context'
	'--names=payload,scope'
	'-n all --clock-cycles --no-delta'
	'-f all'
	'-f trace'
	'-f loglevel'
	'-f callsite'
	'-f emf,trace:domain'
	'--fields=trace:hostname,trace:procname,trace:vpid'
	'-n all -f all'
	'-n none -f all --no-delta'
	'--clock-offset 5'
	'--clock-offset-ns 1500000000'
	'--clock-offset -2 --clock-seconds'
)
short_sets=(
	''
	'--clock-cycles'
	'--clock-seconds'
	'-n all -f all'
	'-n none --no-delta'
	'-f trace'
	'--clock-offset -2 --clock-seconds'
)
tz_sets=(
	'America/Montreal|'
	'America/Montreal|--clock-date'
	'Asia/Kolkata|'
	'Asia/Kolkata|--clock-date'
	'Asia/Kolkata|--clock-gmt'
)

if [ "$group" = bt2 ]; then
	for entry in "${list[@]}"; do
		t=${entry#+}
		if ! babeltrace2 "$traces/$t" -o ctf -w "$work/bt2/$t" >/dev/null 2>"$work/conv.err"; then
			echo "FAIL: babeltrace2 cannot convert $t to CTF:"
			head -n 5 "$work/conv.err"
			exit 1
		fi
	done
	traces=$work/bt2
fi

# run_pair TZ "OPTIONS" DIR PATH...: one comparison, both tools run in DIR.
run_pair() {
	local tz=$1 opts=$2 dir=$3
	shift 3
	local -a o
	read -r -a o <<<"$opts"
	local what="TZ=$tz ${opts:-(default)} $*"
	(cd "$dir" && TZ=$tz exec babeltrace2 "${o[@]}" "$@") >"$work/bt.out" 2>"$work/bt.err"
	local bt_rc=$?
	# LeakSanitizer's exit scan costs a third of a run: keep it for the
	# default options (each trace gets one), skip it for the variants.
	local asan=${ASAN_OPTIONS:-}
	[ -z "$opts" ] || asan=${asan:+$asan:}detect_leaks=0
	(cd "$dir" && TZ=$tz ASAN_OPTIONS=$asan exec "$strata" view "${o[@]}" "$@") \
		>"$work/st.out" 2>"$work/st.err"
	local st_rc=$?
	local ok=1
	if [ "$bt_rc" != 0 ]; then
		echo "FAIL: babeltrace2 itself failed (rc=$bt_rc): $what"
		head -n 5 "$work/bt.err"
		fail=$((fail + 1))
		return
	fi
	if [ "$st_rc" != "$bt_rc" ]; then
		echo "FAIL: exit status strata=$st_rc babeltrace2=$bt_rc: $what"
		head -n 5 "$work/st.err"
		ok=0
	fi
	local stream
	for stream in out err; do
		if ! cmp -s "$work/bt.$stream" "$work/st.$stream"; then
			[ "$ok" = 0 ] || echo "FAIL: std$stream differs: $what"
			[ "$ok" = 0 ] && echo "      std$stream differs too"
			ok=0
			cmp "$work/bt.$stream" "$work/st.$stream" 2>&1 | head -n 1 | sed 's/^/      /'
			diff -u --label "babeltrace2 std$stream" --label "strata std$stream" \
				"$work/bt.$stream" "$work/st.$stream" | head -n 12 | cut -c1-400
		fi
	done
	if [ "$ok" = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
}

# --decode-only decodes everything and prints nothing, like the dummy sink.
check_decode_only() {
	local path=$1
	babeltrace2 "$path" -c sink.utils.dummy >/dev/null 2>&1
	local bt_rc=$?
	"$strata" view --decode-only "$path" >"$work/st.out" 2>"$work/st.err"
	local st_rc=$?
	if [ "$st_rc" != "$bt_rc" ] || [ -s "$work/st.out" ]; then
		echo "FAIL: --decode-only: rc=$st_rc (babeltrace2 dummy: $bt_rc)," \
			"$(wc -c <"$work/st.out") bytes on stdout: $path"
		head -n 5 "$work/st.err"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}

# check_bad PATH NEEDLE: strata must fail, name the file, and not crash.
check_bad() {
	local path=$1 needle=$2
	# (babeltrace2 2.0.4 crashes on huge-sequence; keep bash's report quiet.)
	{ babeltrace2 "$path" >/dev/null 2>"$work/bt.err"; } 2>/dev/null
	local bt_rc=$?
	"$strata" view "$path" >"$work/st.out" 2>"$work/st.err"
	local st_rc=$?
	local why=''
	if [ "$st_rc" = 0 ]; then
		why='exited 0'
	elif [ "$st_rc" -ge 128 ]; then
		why="killed by signal $((st_rc - 128))"
	elif grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$work/st.err"; then
		why='sanitizer report'
	elif ! grep -qF -- "$needle" "$work/st.err"; then
		why="error message does not name '$needle'"
	elif [ "$bt_rc" = 0 ]; then
		why='babeltrace2 accepted it (the corpus is stale?)'
	fi
	if [ -n "$why" ]; then
		echo "FAIL: $path: $why (strata rc=$st_rc, babeltrace2 rc=$bt_rc); strata stderr:"
		head -n 8 "$work/st.err" | cut -c1-300 | sed 's/^/      /'
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}

# check_stops PATH [OPTS]: babeltrace2 prints events, then fails; strata
# prints the same events and exits 3 (malformed trace).
check_stops() {
	local path=$1
	shift
	if [ "${1:-}" = --decode-only ]; then
		{ babeltrace2 "$path" -c sink.utils.dummy >"$work/bt.out" 2>/dev/null; } 2>/dev/null
	else
		{ babeltrace2 "$path" >"$work/bt.out" 2>/dev/null; } 2>/dev/null
	fi
	local bt_rc=$?
	"$strata" view "$@" "$path" >"$work/st.out" 2>"$work/st.err"
	local st_rc=$?
	if [ "$bt_rc" = 0 ] || [ "$st_rc" != 3 ] || ! cmp -s "$work/bt.out" "$work/st.out"; then
		echo "FAIL: $path $*: babeltrace2 exit $bt_rc, strata exit $st_rc (expected 3 and the same stdout)"
		diff "$work/bt.out" "$work/st.out" | head -n 5
		fail=$((fail + 1))
	else
		echo "PASS: $path $*: stops after the $(wc -l <"$work/st.out") lines babeltrace2 prints, exit 3"
		pass=$((pass + 1))
	fi
}

if [ "$group" = bad ]; then
	for t in truncated content-gt-packet packet-beyond-file bad-magic unknown-event-id \
		string-past-content event-past-content huge-sequence variant-no-option; do
		check_bad "$traces/bad/$t" "$t/channel0_0"
	done
	for t in metadata-syntax no-signature; do
		check_bad "$traces/bad/$t" "$t/metadata"
	done
	for t in time-back time-back-barectf; do
		check_bad "$traces/bad/$t" "$t/channel0_0"
		check_stops "$traces/bad/$t"
		check_stops "$traces/bad/$t" --decode-only
	done
	mkdir "$work/empty-trace-dir"
	check_bad "$work/empty-trace-dir" "empty-trace-dir"
	check_bad "$work/does-not-exist" "does-not-exist"
else
	for entry in "${list[@]}"; do
		t=${entry#+}
		path=$traces/$t
		if [ "$entry" != "$t" ]; then
			for opts in "${option_sets[@]}"; do
				run_pair UTC "$opts" "$traces" "$path"
			done
			for tzo in "${tz_sets[@]}"; do
				run_pair "${tzo%%|*}" "${tzo#*|}" "$traces" "$path"
			done
		else
			for opts in "${short_sets[@]}"; do
				run_pair UTC "$opts" "$traces" "$path"
			done
			run_pair America/Montreal '--clock-date' "$traces" "$path"
		fi
		check_decode_only "$path"
	done
	# The same trace given through a relative path and with a trailing slash
	# (trace names and stream paths are derived from the argument).
	first=${list[0]#+}
	run_pair UTC '-f all' "$traces" "$first/"
	run_pair UTC '-f trace -n all' "$traces/$first/.." "$(basename "$first")"
	# Several paths on one command line are merged into one timeline.
	if [ "${#multi[@]}" -gt 0 ]; then
		run_pair UTC '' "$traces" "$traces/${multi[0]}" "${multi[1]}"
		run_pair UTC '-n all -f all' "$traces" "${multi[@]}"
	fi
	if [ "${#correlate[@]}" -gt 0 ]; then
		run_pair UTC '--clock-force-correlate' "$traces" "${correlate[@]}"
		run_pair UTC '--clock-force-correlate --clock-cycles -f trace' "$traces" "${correlate[@]}"
	fi
fi

echo "view-compare $group: $pass passed, $fail failed"
[ "$fail" = 0 ]
