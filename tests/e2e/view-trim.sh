#!/bin/bash
# Compares `strata view --begin/--end/--timerange` with babeltrace2 2.0.4's
# trimmer (filter.utils.trimmer, which `babeltrace2 --begin ...` inserts).
#
#   view-trim.sh [-v] STRATA_BINARY
#
# The bounds come from the traces themselves: event times parsed from
# `babeltrace2 --clock-seconds --no-delta TRACE` (before the first event, the
# first, a middle one exactly and one nanosecond either side, between two
# events, the last, after the last) and the ranges of its discarded-events
# and discarded-packets warnings (a bound inside a range: babeltrace2 prints
# the range cut at the bound, as "may have discarded"). Each bound is given
# in the formats of the trimmer: seconds since the epoch, date and time,
# time of day (on the date of the first message), date only, in UTC and in
# other zones with and without --clock-gmt, and through --timerange in both
# of its syntaxes. Both tools run with the same arguments and TZ; stdout and
# stderr are compared separately (the first difference shown as a unified
# diff excerpt), and where the bounds are event times, babeltrace2 must keep
# the events the test meant. With -v, the number of lines babeltrace2 keeps
# is printed for every case.
#
# Also: invalid bounds (strata must fail with its one "Error: " line naming
# the option; babeltrace2's log text is not compared) and the traces
# babeltrace2's trimmer refuses (strata must fail as well, stdout as empty
# as babeltrace2's). Exits 77 when babeltrace2 is missing.
set -u

verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
strata=${1:?usage: view-trim.sh [-v] STRATA_BINARY}
name=view-trim
# Both tools run from the traces' directory with relative trace paths (the
# paths they print in warnings come from the argument).
source "$(dirname "$0")/view-lib.sh"
traces=$PWD
# Per trace: how many of its cases keep no line, every line, or some.
n_empty=0
n_full=0
n_part=0
full_lines=0
leak_check=1

# ns_of "[-]S.NNNNNNNNN": nanoseconds since the epoch, in REPLY.
ns_of() {
	local s=$1 sign=1
	if [ "${s#-}" != "$s" ]; then
		sign=-1
		s=${s#-}
	fi
	REPLY=$((sign * (10#${s%.*} * 1000000000 + 10#${s#*.})))
}

# sec NS: the bound as "[-]SEC.NNNNNNNNN" (the sign applies to both parts).
sec() {
	local ns=$1 sign=''
	if ((ns < 0)); then
		sign=-
		ns=$((-ns))
	fi
	printf -v REPLY '%s%d.%09d' "$sign" $((ns / 1000000000)) $((ns % 1000000000))
}

# wall TZ FORMAT NS: NS (>= 0) as date(1) FORMAT in TZ, "%N" standing for the
# nine-digit nanoseconds.
wall() {
	local tz=$1 fmt=$2 ns=$3 frac
	printf -v frac '%09d' $((ns % 1000000000))
	REPLY=$(TZ=$tz date -d "@$((ns / 1000000000))" "+${fmt//%N/$frac}")
}

# load_times [OPTION...] PATH...: event times (ns, in the merged order, so
# sorted) in times[], the ranges of the discarded-items warnings in drop_lo[]
# and drop_hi[], and the number of lines of the untrimmed listing in
# full_lines. Exits when babeltrace2 cannot list the trace.
load_times() {
	if ! TZ=UTC babeltrace2 --clock-seconds --no-delta "$@" >"$work/list.out" \
		2>"$work/list.err"; then
		echo "FAIL: babeltrace2 cannot list $*:"
		head -n 5 "$work/list.err"
		exit 1
	fi
	times=()
	drop_lo=()
	drop_hi=()
	local s lo hi
	while read -r s; do
		ns_of "$s"
		times+=("$REPLY")
	done < <(grep -oE '^\[-?[0-9]+\.[0-9]{9}\]' "$work/list.out" | tr -d '[]')
	while read -r lo hi; do
		ns_of "$lo"
		drop_lo+=("$REPLY")
		ns_of "$hi"
		drop_hi+=("$REPLY")
	done < <(sed -nE 's/.* between \[(-?[0-9.]+)\] and \[(-?[0-9.]+)\].*/\1 \2/p' "$work/list.err")
	full_lines=$(wc -l <"$work/list.out")
	if [ "${#times[@]}" -lt 4 ]; then
		echo "FAIL: $* has ${#times[@]} events with a time, the cases need 4"
		exit 1
	fi
	# The first comparison of each trace keeps LeakSanitizer's exit scan.
	leak_check=1
}

# expect LO HI: babeltrace2 must keep the events of times[] within [LO, HI]
# in the next run_case (REPLY is left alone).
want=''
expect() {
	local t n=0
	for t in "${times[@]}"; do
		((t >= $1 && t <= $2)) && n=$((n + 1))
	done
	want=$n
}

# run_case TZ [OPTION...] PATH...: one comparison, both tools run in
# $traces. With $want set, babeltrace2 must keep that many events (lines
# starting with "["): the case is the one intended. Few processes per case:
# forks are most of this test's time.
run_case() {
	local tz=$1
	shift
	local what="TZ=$tz $*"
	TZ=$tz babeltrace2 "$@" >"$work/bt.out" 2>"$work/bt.err"
	local bt_rc=$?
	# LeakSanitizer's exit scan costs a third of a run: keep it for the
	# first case of each trace only.
	local asan=${ASAN_OPTIONS:-}
	[ "$leak_check" = 1 ] || asan=${asan:+$asan:}detect_leaks=0
	leak_check=0
	TZ=$tz ASAN_OPTIONS=$asan "$strata" view "$@" >"$work/st.out" 2>"$work/st.err"
	local st_rc=$?
	local -a out
	mapfile -t out <"$work/bt.out"
	local lines=${#out[@]} kept=0 l
	[ "$verbose" = 1 ] && printf '  %4d lines: %s\n' "$lines" "$what"
	if [ "$bt_rc" != 0 ]; then
		echo "FAIL: babeltrace2 itself failed (rc=$bt_rc): $what"
		grep -m 3 -E '^(CAUSED BY|  )' "$work/bt.err" | cut -c1-200
		fail=$((fail + 1))
		want=''
		return
	fi
	if [ -n "$want" ]; then
		for l in "${out[@]}"; do
			[[ $l == \[* ]] && kept=$((kept + 1))
		done
		if [ "$kept" != "$want" ]; then
			echo "FAIL: babeltrace2 keeps $kept events, the test meant $want: $what"
			fail=$((fail + 1))
			want=''
			return
		fi
	fi
	want=''
	if [ "$lines" = 0 ]; then
		n_empty=$((n_empty + 1))
	elif [ "$lines" = "$full_lines" ]; then
		n_full=$((n_full + 1))
	else
		n_part=$((n_part + 1))
	fi
	local ok=1
	if [ "$st_rc" != "$bt_rc" ]; then
		echo "FAIL: exit status strata=$st_rc babeltrace2=$bt_rc: $what"
		head -n 5 "$work/st.err"
		ok=0
	fi
	local stream a b
	for stream in out err; do
		# cmp(1) only for the report: the outputs are text (no NUL), which
		# read -d '' takes whole, without a process per case.
		IFS= read -r -d '' a <"$work/bt.$stream"
		IFS= read -r -d '' b <"$work/st.$stream"
		if [ "$a" != "$b" ]; then
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

# trace_done NAME: the cases of one trace must not all be empty or all full.
trace_done() {
	if [ "$n_part" = 0 ]; then
		echo "FAIL: $1: no case keeps part of the trace" \
			"($n_empty empty, $n_full full): the bounds are wrong"
		fail=$((fail + 1))
	fi
	[ "$verbose" = 1 ] && echo "  $1: $n_empty empty, $n_full full, $n_part partial"
	n_empty=0
	n_full=0
	n_part=0
}

# seconds_cases PATH...: bounds from times[] (loaded for PATH...) in the
# seconds format, begin only, end only and both.
seconds_cases() {
	local n=${#times[@]}
	local first=${times[0]} last=${times[n - 1]} mid=${times[n / 2]}
	local q3=${times[3 * n / 4]}
	# Between two events: the first gap of more than 1 ns after the first third.
	local i between=''
	for ((i = n / 3; i + 1 < n; i++)); do
		if ((times[i + 1] - times[i] > 1)); then
			between=$(((times[i] + times[i + 1]) / 2))
			break
		fi
	done
	[ -n "$between" ] || between=$mid
	local b e
	for b in $((first - 1)) "$first" $((mid - 1)) "$mid" $((mid + 1)) \
		"$between" "$last" $((last + 1)); do
		sec "$b"
		expect "$b" $((last + 1))
		run_case UTC "--begin=$REPLY" "$@"
	done
	for e in $((first - 1)) "$first" $((mid - 1)) "$mid" $((mid + 1)) "$between" "$last" \
		$((last + 1)); do
		sec "$e"
		expect $((first - 1)) "$e"
		run_case UTC "--end=$REPLY" "$@"
	done
	local pair
	for pair in "$mid $mid" "$((mid - 1)) $((mid + 1))" "$((mid + 1)) $((q3 - 1))" \
		"$between $q3" "$((first - 1)) $((last + 1))"; do
		read -r b e <<<"$pair"
		sec "$b"
		local sb=$REPLY
		sec "$e"
		expect "$b" "$e"
		run_case UTC "--begin=$sb" "--end=$REPLY" "$@"
	done
	sec "$mid"
	local smid=$REPLY
	sec "$last"
	expect "$mid" "$last"
	run_case UTC "--timerange=$smid,$REPLY" "$@"
	sec $((first - 1))
	expect $((first - 1)) "$mid"
	run_case UTC "--timerange=[$REPLY,$smid]" "$@"
	# Inside and at the edges of the first two discarded ranges.
	local k
	for ((k = 0; k < ${#drop_lo[@]} && k < 2; k++)); do
		local dlo=${drop_lo[k]} dhi=${drop_hi[k]} dmid=$(((drop_lo[k] + drop_hi[k]) / 2))
		sec "$dmid"
		local sd=$REPLY
		run_case UTC "--begin=$sd" "$@"
		run_case UTC "--end=$sd" "$@"
		sec $((dmid + 1))
		run_case UTC --clock-seconds "--begin=$sd" "--end=$REPLY" "$@"
		sec "$dlo"
		run_case UTC --clock-seconds "--begin=$REPLY" "$@"
		sec "$dhi"
		run_case UTC --clock-seconds "--end=$REPLY" "$@"
		((dhi - dlo > 2)) || continue
		sec $((dlo + 1))
		local s1=$REPLY
		sec $((dhi - 1))
		run_case UTC --clock-seconds "--timerange=[$s1,$REPLY]" "$@"
	done
}

# wall_cases PATH...: the date and time-of-day formats (times >= 0 only).
wall_cases() {
	local n=${#times[@]}
	local first=${times[0]} last=${times[n - 1]} mid=${times[n / 2]}
	local q1=${times[n / 4]}
	local tz
	for tz in UTC America/Montreal; do
		wall "$tz" '%Y-%m-%d %H:%M:%S.%N' "$mid"
		run_case "$tz" "--begin=$REPLY" "$@"
		wall "$tz" '%H:%M:%S.%N' "$mid"
		run_case "$tz" "--end=$REPLY" "$@"
		local tod=$REPLY
		wall "$tz" '%H:%M:%S.%N' "$q1"
		run_case "$tz" --clock-date "--timerange=$REPLY,$tod" "$@"
		# The zone's wall time read as UTC by --clock-gmt, and the other way.
		wall UTC '%Y-%m-%d %H:%M:%S.%N' "$mid"
		run_case "$tz" --clock-gmt "--begin=$REPLY" "$@"
		wall UTC '%H:%M:%S.%N' "$mid"
		run_case "$tz" --clock-gmt "--end=$REPLY" "$@"
		[ "$tz" = UTC ] || run_case "$tz" "--end=$REPLY" "$@"
	done
	# Coarser forms: minutes, seconds, date only.
	wall UTC '%Y-%m-%d %H:%M' "$mid"
	run_case UTC "--begin=$REPLY" "$@"
	wall UTC '%H:%M:%S' "$last"
	run_case UTC "--end=$REPLY" "$@"
	wall UTC '%H:%M' "$mid"
	run_case UTC "--end=$REPLY" "$@"
	wall UTC '%Y-%m-%d' "$first"
	run_case UTC "--begin=$REPLY" "$@"
	run_case UTC "--end=$REPLY" "$@"
	wall UTC '%Y-%m-%d' $((last + 86400000000000))
	local day_after=$REPLY
	run_case UTC "--end=$day_after" "$@"
	run_case America/Montreal --clock-gmt "--begin=$day_after" "$@"
	wall America/Montreal '%Y-%m-%d' "$first"
	run_case America/Montreal "--timerange=$REPLY,$day_after" "$@"
	# A zone where the first event's date may not be UTC's (gen/types-le).
	wall Asia/Kolkata '%Y-%m-%d %H:%M:%S.%N' "$mid"
	run_case Asia/Kolkata --clock-date "--begin=$REPLY" "$@"
	wall Asia/Kolkata '%H:%M:%S.%N' "$mid"
	run_case Asia/Kolkata "--begin=$REPLY" "$@"
	wall UTC '%H:%M:%S.%N' "$mid"
	run_case Asia/Kolkata --clock-gmt "--end=$REPLY" "$@"
	# Out-of-range fields are normalized as mktime(3) does: 25:00 is
	# 01:00 the next day.
	run_case UTC --begin=25:00 "$@"
}

# option_cases PATH...: other view options with bounds.
option_cases() {
	local n=${#times[@]}
	local mid=${times[n / 2]} q3=${times[3 * n / 4]}
	sec "$mid"
	local smid=$REPLY
	sec "$q3"
	local sq3=$REPLY
	run_case UTC --clock-cycles "--begin=$smid" "$@"
	run_case UTC --clock-cycles --no-delta "--end=$smid" "$@"
	run_case UTC --no-delta "--timerange=$smid,$sq3" "$@"
	run_case UTC --clock-seconds "--end=$sq3" "$@"
	run_case UTC --clock-date -n all -f all "--begin=$smid" "--end=$sq3" "$@"
	# --clock-offset moves the times the bounds apply to: the bounds come
	# from a listing with the same offset.
	local off
	for off in '--clock-offset=-2' '--clock-offset-ns=1500000000'; do
		load_times "$off" "$@"
		n=${#times[@]}
		sec "${times[n / 2]}"
		expect "${times[n / 2]}" "${times[n - 1]}"
		run_case UTC "$off" --clock-seconds "--begin=$REPLY" "$@"
		expect "${times[0]}" "${times[n / 2]}"
		run_case UTC "$off" "--end=$REPLY" "$@"
	done
	load_times "$@"
}

# syntax_cases PATH...: the other spellings of the options.
syntax_cases() {
	local n=${#times[@]}
	sec "${times[n / 2]}"
	local smid=$REPLY
	sec "${times[3 * n / 4]}"
	local sq3=$REPLY
	run_case UTC -b "$smid" -e "$sq3" "$@"
	run_case UTC --begin "$smid" --end "$sq3" "$@"
	run_case UTC --timerange "[$smid,$sq3]" "$@"
	run_case UTC "--timerange=[$smid,$sq3]trailing" "$@"
	# babeltrace2 takes a --begin, --end or --timerange after --timerange
	# as replacing what it sets (--begin twice, or --timerange after
	# --begin or --end, is an error).
	sec "${times[0]}"
	local sfirst=$REPLY
	run_case UTC "--timerange=$smid,$sq3" "--begin=$sfirst" "$@"
	sec "${times[n - 1]}"
	run_case UTC "--timerange=$smid,$sq3" "--end=$REPLY" "$@"
	run_case UTC "--timerange=$smid,$sq3" "--timerange=$sfirst,$smid" "$@"
}

# short_cases PATH...: a few bounds for the traces that do not get all.
short_cases() {
	local n=${#times[@]}
	local first=${times[0]} last=${times[n - 1]} mid=${times[n / 2]}
	sec "$mid"
	local smid=$REPLY
	expect "$mid" "$last"
	run_case UTC "--begin=$smid" "$@"
	expect "$first" "$mid"
	run_case UTC "--end=$smid" "$@"
	sec $((mid + 1))
	expect $((mid + 1)) "$last"
	run_case UTC "--begin=$REPLY" "$@"
	sec $((mid - 1))
	expect "$first" $((mid - 1))
	run_case UTC "--end=$REPLY" "$@"
	sec "${times[n / 4]}"
	expect "${times[n / 4]}" "$mid"
	run_case UTC --clock-cycles "--timerange=[$REPLY,$smid]" "$@"
	if ((first >= 0)); then
		wall America/Montreal '%H:%M:%S.%N' "$mid"
		expect "$mid" "$last"
		run_case America/Montreal "--begin=$REPLY" "$@"
	fi
	local k
	for ((k = 0; k < ${#drop_lo[@]} && k < 2; k++)); do
		sec $(((drop_lo[k] + drop_hi[k]) / 2))
		run_case UTC "--begin=$REPLY" "$@"
		run_case UTC "--end=$REPLY" "$@"
	done
}

# A trace marked "+" gets every case, the others the short list; the date
# and time-of-day formats are tried on two that span days.
wall_list=' gen/clock-odd gen/types-le '
list=(+lttng/discard +lttng/lost-packet +gen/clock-odd +gen/types-le +gen/compact-wrap
	+gen/clock-neg lttng/may-discard lttng/multichan lttng/pid-two lttng/uid-ctx lttng/snapshot
	lttng/tracefiles lttng/rotation gen/merge gen/multi-sc gen/lttng-quirks gen/stale-strings
	gen/implicit-clock gen/types-be)
for entry in "${list[@]}"; do
	t=${entry#+}
	load_times "$t"
	if [ "$entry" != "$t" ]; then
		seconds_cases "$t"
		[[ $wall_list == *" $t "* ]] && wall_cases "$t"
		option_cases "$t"
		[ "$t" = gen/clock-odd ] && syntax_cases "$t"
	else
		short_cases "$t"
	fi
	trace_done "$t"
done
# Daylight saving time: gen/clock-odd moved onto the days Montreal's clocks
# change (2022-03-13 02:00 EST becomes 03:00 EDT; 2022-11-06 02:00 EDT
# becomes 01:00 EST). The fields of a time go to mktime() as written, as
# babeltrace2 hands them, so 03:00 on the first day is 07:00 UTC.
load_times --clock-offset=-2845800 gen/clock-odd
for b in --begin=03:00 --end=03:00 '--begin=2022-03-13 03:03:21' --begin=02:30 \
	'--timerange=01:59:99,03:01:00'; do
	run_case America/Montreal --clock-offset=-2845800 "$b" gen/clock-odd
done
load_times --clock-offset=17713800 gen/clock-odd
for b in --begin=02:00 --end=01:30 '--begin=2022-11-06 01:03:21'; do
	run_case America/Montreal --clock-offset=17713800 "$b" gen/clock-odd
done
trace_done "gen/clock-odd on DST days"

# Several paths merged into one timeline, bounded together; then traces
# whose clocks only correlate with --clock-force-correlate (one before the
# epoch).
for paths in 'lttng/discard lttng/lost-packet' 'gen/merge/t4 gen/merge/t1' \
	'--clock-force-correlate gen/clock-neg gen/clock-odd'; do
	read -r -a p <<<"$paths"
	load_times "${p[@]}"
	short_cases "${p[@]}"
	trace_done "$paths"
done
# Traces rewritten by babeltrace2's own CTF writer (as in view-bt2): other
# packet contexts, discarded events and packets.
for t in lttng/discard gen/compact-wrap; do
	if ! babeltrace2 "$t" -o ctf -w "$work/bt2/$t" >/dev/null 2>"$work/conv.err"; then
		echo "FAIL: babeltrace2 cannot convert $t to CTF:"
		head -n 5 "$work/conv.err"
		exit 1
	fi
	load_times "$work/bt2/$t"
	short_cases "$work/bt2/$t"
	trace_done "$t (rewritten)"
done

# check_failure TZ NEEDLE OPTION... PATH: babeltrace2 fails (an invalid
# bound, or a trace its trimmer refuses; else the case is stale). strata must
# exit non-zero without a signal, print what babeltrace2 printed on stdout
# (nothing, in every case here) and its one error line on stderr, naming
# one of NEEDLE's '|'-separated words if not empty: "Error: ...", followed for a usage error by the hint
# line below, as the CLI reports every error. babeltrace2's log text is not
# compared.
err_hint="See 'strata help view'."
check_failure() {
	local tz=$1 needle=$2
	shift 2
	local what="TZ=$tz $*"
	# (babeltrace2 2.0.4 aborts or crashes on some: keep bash's report quiet.)
	{ TZ=$tz babeltrace2 "$@" >"$work/bt.out" 2>/dev/null; } 2>/dev/null
	local bt_rc=$?
	TZ=$tz "$strata" view "$@" >"$work/st.out" 2>"$work/st.err"
	local st_rc=$?
	local why=''
	if [ "$bt_rc" = 0 ]; then
		why='babeltrace2 accepts it (the case is stale?)'
	elif [ "$st_rc" = 0 ]; then
		why='strata exited 0'
	elif [ "$st_rc" -ge 128 ]; then
		why="strata was killed by signal $((st_rc - 128))"
	elif ! cmp -s "$work/bt.out" "$work/st.out"; then
		why="stdout differs ($(wc -l <"$work/bt.out") lines from babeltrace2, $(wc -l <"$work/st.out") from strata)"
	else
		local -a err
		mapfile -t err <"$work/st.err"
		if [ "${#err[@]}" -gt 2 ] || [ "${#err[@]}" = 0 ] ||
			{ [ "${#err[@]}" = 2 ] && [ "${err[1]}" != "$err_hint" ]; }; then
			why="strata printed ${#err[@]} lines on stderr, not one error (and the hint)"
		elif [ "${err[0]#Error: }" = "${err[0]}" ]; then
			why="strata's error does not start with 'Error: '"
		else
			local word named=0
			local -a words
			IFS='|' read -r -a words <<<"$needle"
			for word in "${words[@]}"; do
				[[ ${err[0]} == *"$word"* ]] && named=1
			done
			[ "$named" = 1 ] || [ -z "$needle" ] ||
				why="strata's error does not name '$needle'"
		fi
	fi
	[ "$verbose" = 1 ] &&
		echo "  fails (babeltrace2 rc=$bt_rc, $(wc -l <"$work/bt.out") lines): $what"
	if [ -n "$why" ]; then
		echo "FAIL: $why (strata rc=$st_rc, babeltrace2 rc=$bt_rc): $what"
		head -n 3 "$work/st.err" | cut -c1-300 | sed 's/^/      /'
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}

# Invalid bounds (babeltrace2 exits 1; it aborts on the 20-digit seconds).
t=gen/clock-odd
for bad in '15:16:16.' '5:16:16' ' 15:16' '15:16 ' '15:16:16.1234567890' '1.1234567890' '+5' '' \
	'abc' '1e3' '1.' '.5' '--1' '2022-4-15' '2022-04-15T05:33' '2022-04-15  05:33' \
	'99999999999999999999'; do
	check_failure UTC --begin "--begin=$bad" "$t"
done
for bad in '15:16:16.' '+5' '' '2022-04-15T05:33' '99999999999999999999'; do
	check_failure UTC --end "--end=$bad" "$t"
done
check_failure UTC --timerange "--timerange=1650000801" "$t"
check_failure UTC --timerange "--timerange=1650000801," "$t"
check_failure UTC --timerange "--timerange=,1650000802" "$t"
check_failure UTC --timerange "--timerange=[,]" "$t"
check_failure UTC --timerange "--timerange=[1650000801,]" "$t"
# A bad bound in --timerange may be reported as the end it sets.
tr='--timerange|--begin|--end'
check_failure UTC "$tr" "--timerange=1650000801, 1650000802" "$t"
check_failure UTC "$tr" "--timerange= [1650000801,1650000802]" "$t"
check_failure UTC "$tr" "--timerange=1650000801,1650000802,3" "$t"
check_failure UTC "$tr" "--timerange=[1650000802,1650000801]" "$t"
check_failure UTC --begin --begin=1650000802 --end=1650000801 "$t"
check_failure UTC --begin '--begin=2022-04-15 05:33:21.5' '--end=2022-04-15 05:33:21.4' "$t"
# babeltrace2 refuses a second --begin or --end, and --timerange after
# either (--timerange given again, or followed by them, is legal: above).
check_failure UTC --begin --begin=1650000801 --begin=1650100001 "$t"
check_failure UTC --end --end=1650000801 --end=1650100001 "$t"
check_failure UTC '--timerange|--begin' --begin=1650000801 --timerange=1650000801,1650000802 "$t"
check_failure UTC '--timerange|--end' --end=1650000802 --timerange=1650000801,1650000802 "$t"
# Times of day are placed once the first packet is read.
check_failure America/Montreal '--begin|time range' --begin=02:00 --end=01:00 "$t"

# Traces babeltrace2's trimmer refuses: exit 1 with nothing on stdout
# (gen/minimal with --begin: SIGSEGV, nothing on stdout).
# No clock: the trimmer cannot seek (--begin) nor place the stream (--end).
check_failure UTC '' --begin=0 gen/noclock
check_failure UTC '' --end=4000000000 gen/noclock
check_failure UTC '' --timerange=0,4000000000 gen/noclock
# No packet context, so no packet timestamps ("packets have no beginning
# clock snapshot"); babeltrace2 2.0.4 crashes with --begin.
check_failure UTC '' --end=1000000000 gen/minimal
check_failure UTC '' --begin=1000000000 gen/minimal
check_failure UTC '' '--timerange=[1000000000,1000003000]' gen/minimal
# The first message is before the epoch: babeltrace2 cannot date it for a
# time of day, nor for a date-time before the epoch (which it takes as
# midnight of the first message's date; strata refuses that one outright).
check_failure UTC '' --begin=00:00:00.5 gen/clock-neg
check_failure UTC '' --end=00:00:00.5 gen/clock-neg
check_failure UTC '' '--begin=1969-12-31 23:59:58' gen/clock-neg

echo "view-trim: $pass passed, $fail failed"
[ "$fail" = 0 ]
