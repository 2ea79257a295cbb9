#!/bin/bash
# SPDX-License-Identifier: MIT
# The filter oracle: lttng-ust 2.13 and strata's lib/filter must record the
# same events for every expression of expressions.txt.
#
#   oracle.sh ORACLE_CHECK FO_APP EXPRESSIONS [STRATA STRATA_SESSIOND FO_APP_STRATA]
#
# lttng side: a private lttng-sessiond (LTTNG_HOME in a temporary directory,
# --no-kernel; run as 'nobody' when root, since a root sessiond ignores
# LTTNG_HOME for its sockets) records FO_APP's events, one channel per
# expression with `enable-event -u fo:ev --filter EXPR`; babeltrace2 reads
# each channel's streams and lists the row indexes (field i) recorded.
# strata side: ORACLE_CHECK runs the same expressions on the same values;
# with the last three arguments, also end to end: a real strata-sessiond
# records FO_APP_STRATA (the same events, through libstrata-ust) with
# `strata enable-event -u fo:ev --filter EXPR`, one channel per expression,
# and strata view reads each channel.
# Exit 77 (skip) when lttng-sessiond, lttng or babeltrace2 cannot run.
set -uo pipefail

check=${1:?usage: oracle.sh ORACLE_CHECK FO_APP EXPRESSIONS [STRATA STRATA_SESSIOND FO_APP_STRATA]}
app=${2:?}
exprs=${3:?}
strata=${4:-}
export STRATA_SESSIOND_PATH=${5:-}
sapp=${6:-}

for t in lttng lttng-sessiond babeltrace2; do
	command -v "$t" >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done

work=$(mktemp -d /tmp/strata-filter-oracle.XXXXXX) || exit 1
home=$work/home
mkdir -p "$home"
run_as=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || { echo "SKIP: root without setpriv"; exit 77; }
	chown -R nobody:nogroup "$work"
	chmod 755 "$work"
	run_as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
as_user() {
	env -i PATH="$PATH" HOME="$home" LTTNG_HOME="$home" ASAN_OPTIONS=detect_leaks=0 \
		"${run_as[@]}" "$@"
}
sessiond_pid=
cleanup() {
	if [ -s "$work/run/sessiond.pid" ]; then
		kill -TERM "$(cat "$work/run/sessiond.pid")" 2>/dev/null
		timeout 10 tail --pid="$(cat "$work/run/sessiond.pid")" -f /dev/null 2>/dev/null
	fi
	if [ -n "$sessiond_pid" ]; then
		as_user lttng destroy -a >/dev/null 2>&1
		kill -TERM "$sessiond_pid" 2>/dev/null
		timeout 10 tail --pid="$sessiond_pid" -f /dev/null 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT

mapfile -t list < <(grep -v '^#' "$exprs" | grep -v '^$')
echo "${#list[@]} expressions"
[ "${#list[@]}" -ge 40 ] || { echo "FAIL: the table needs at least 40 expressions"; exit 1; }

# strata's answers first: every expression must compile.
"$check" "$exprs" >"$work/strata.txt" || { echo "FAIL: oracle-check failed"; exit 1; }

if ! as_user lttng-sessiond --daemonize --no-kernel >"$work/sessiond.log" 2>&1; then
	echo "SKIP: lttng-sessiond cannot start: $(tail -n 1 "$work/sessiond.log")"
	exit 77
fi
sessiond_pid=$(cat "$home/.lttng/lttng-sessiond.pid" 2>/dev/null)
[ -n "$sessiond_pid" ] || { echo "SKIP: lttng-sessiond left no pid file"; exit 77; }

as_user lttng create fo --output="$work/trace" >/dev/null || { echo "FAIL: lttng create"; exit 1; }
for k in "${!list[@]}"; do
	as_user lttng enable-channel -u "c$k" --subbuf-size=8192 --num-subbuf=2 >/dev/null ||
		{ echo "FAIL: lttng enable-channel c$k"; exit 1; }
	if ! as_user lttng enable-event -u -c "c$k" fo:ev --filter "${list[$k]}" >"$work/ee.log" 2>&1; then
		echo "FAIL: lttng refused '${list[$k]}':"
		cat "$work/ee.log"
		exit 1
	fi
done
as_user lttng start >/dev/null || { echo "FAIL: lttng start"; exit 1; }
as_user "$app" || { echo "FAIL: $app exited $?"; exit 1; }
as_user lttng stop >/dev/null || { echo "FAIL: lttng stop"; exit 1; }
as_user lttng destroy fo >/dev/null

chan_dir=$(dirname "$(find "$work/trace" -name metadata | head -n 1)")
[ -d "$chan_dir" ] || { echo "FAIL: no lttng trace in $work/trace"; exit 1; }
: >"$work/lttng.txt"
for k in "${!list[@]}"; do
	d=$work/c$k
	mkdir "$d"
	cp "$chan_dir/metadata" "$d/"
	cp "$chan_dir/c${k}_"* "$d/" 2>/dev/null
	if ! babeltrace2 "$d" >"$d/out.txt" 2>"$d/err.txt" || [ -s "$d/err.txt" ]; then
		echo "FAIL: babeltrace2 on channel c$k:"
		cat "$d/err.txt"
		exit 1
	fi
	rows=$(sed -n 's/.*{ i = \([0-9]*\),.*/\1/p' "$d/out.txt" | sort -n | tr '\n' ' ')
	rows=${rows% }
	echo "${rows:-none}" >>"$work/lttng.txt"
done

# rows RESULT DIR: the rows (field i) of fo:ev events in each channel cK's
# streams of DIR, read with READER, one line per expression into RESULT.
rows() {
	local out=$1 dir=$2 reader=$3 k d rows
	: >"$out"
	for k in "${!list[@]}"; do
		d=$work/$(basename "$out" .txt)-c$k
		mkdir "$d"
		cp "$dir/metadata" "$d/"
		cp "$dir/c${k}_"* "$d/" 2>/dev/null
		if ! $reader "$d" >"$d/out.txt" 2>"$d/err.txt" || [ -s "$d/err.txt" ]; then
			echo "FAIL: $reader on channel c$k:"
			cat "$d/err.txt"
			exit 1
		fi
		rows=$(sed -n 's/.*{ i = \([0-9]*\),.*/\1/p' "$d/out.txt" | sort -n | tr '\n' ' ')
		rows=${rows% }
		echo "${rows:-none}" >>"$out"
	done
}

# strata end to end: the daemon, libstrata-ust's probe filling the filter
# arguments, the app validating, linking and running each filter.
if [ -n "$strata" ]; then
	export STRATA_RUNDIR=$work/run HOME=$work/shome
	mkdir -p "$HOME"
	"$strata" create fo -o "$work/strace" >/dev/null || { echo "FAIL: strata create"; exit 1; }
	for k in "${!list[@]}"; do
		"$strata" enable-channel -u "c$k" --subbuf-size=4096 --num-subbuf=2 >/dev/null ||
			{ echo "FAIL: strata enable-channel c$k"; exit 1; }
		if ! "$strata" enable-event -u -c "c$k" fo:ev --filter "${list[$k]}" >"$work/see.log" 2>&1; then
			echo "FAIL: strata refused '${list[$k]}':"
			cat "$work/see.log"
			exit 1
		fi
	done
	"$strata" start >/dev/null || { echo "FAIL: strata start"; exit 1; }
	"$sapp" || { echo "FAIL: $sapp exited $?"; exit 1; }
	"$strata" stop >/dev/null || { echo "FAIL: strata stop"; exit 1; }
	sdir=$(dirname "$(find "$work/strace" -name metadata | head -n 1)")
	[ -d "$sdir" ] || { echo "FAIL: no strata trace in $work/strace"; exit 1; }
	rows "$work/strata-e2e.txt" "$sdir" "$strata view"
fi

fail=0
mapfile -t want <"$work/lttng.txt"
mapfile -t got <"$work/strata.txt"
[ -n "$strata" ] && mapfile -t e2e <"$work/strata-e2e.txt"
for k in "${!list[@]}"; do
	if [ "${want[$k]}" != "${got[$k]}" ]; then
		echo "DIFF '${list[$k]}': lttng records [${want[$k]}], lib/filter [${got[$k]}]"
		fail=1
	fi
	if [ -n "$strata" ] && [ "${want[$k]}" != "${e2e[$k]}" ]; then
		echo "DIFF '${list[$k]}': lttng records [${want[$k]}], strata [${e2e[$k]}]"
		fail=1
	fi
done
[ $fail = 0 ] && echo "${#list[@]} expressions: strata records the same events as lttng-ust${strata:+ (lib/filter and end to end)}"
exit $fail
