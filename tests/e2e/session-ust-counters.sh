#!/bin/bash
# SPDX-License-Identifier: MIT
# Per-thread perf counters in user space (add-context -u -t perf:thread:NAME):
# every pf:entry/pf:exit pair around a call that touches K fresh pages shows
# at least K page faults (strata analyze entry-return), on every thread; a
# counter this machine cannot open is refused at add-context, nothing
# changed; sessions one after another each use another counter.
# Usage: session-ust-counters.sh STRATA STRATA-SESSIOND PF-APP
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
APP=$3
. "$(dirname "$0")/session-lib.sh"

require_babeltrace2
K=8

create_session pf
run 0 enable-event -u 'pf:*'
run 0 add-context -u -t vtid -t perf:thread:page-fault -t perf:thread:task-clock
run 0 start
"$APP" 50 "$K" 3 || fail "pf-app failed"
run 0 stop
run 0 analyze entry-return "$TRACE" --entry pf:entry --return pf:exit --json
json=$OUT
pairs=$(printf '%s' "$json" | sed -n 's/.*"pairs": *\([0-9]*\).*/\1/p')
migrated=$(printf '%s' "$json" | sed -n 's/.*"migrated": *\([0-9]*\).*/\1/p')
# A pair whose thread moved to another CPU is left out (and counted).
[ "$((pairs + migrated))" = 150 ] && [ "$pairs" -ge 100 ] ||
	fail "expected 150 pairs (3 threads x 50), migrated ones included: $json"
min=$(printf '%s' "$json" | sed -n 's/.*"perf_thread_page_fault": *{[^}]*"min": *\([0-9.]*\).*/\1/p')
mean=$(printf '%s' "$json" | sed -n 's/.*"perf_thread_page_fault": *{[^}]*"mean": *\([0-9.]*\).*/\1/p')
awk -v m="${min:-0}" -v k="$K" 'BEGIN { exit !(m >= k) }' ||
	fail "a call of $K fresh pages showed ${min:-?} page faults: $json"
awk -v m="${mean:-0}" -v k="$K" 'BEGIN { exit !(m >= k && m < k + 4) }' ||
	fail "page faults per call: mean ${mean:-?}, expected $K plus a small constant: $json"
tc=$(printf '%s' "$json" | sed -n 's/.*"perf_thread_task_clock": *{[^}]*"mean": *\([0-9.]*\).*/\1/p')
awk -v t="${tc:-0}" 'BEGIN { exit !(t > 0) }' || fail "task-clock did not count: $json"
# Both readers read the counters' fields alike.
n=$(babeltrace2 "$TRACE" 2>/dev/null | grep -c 'perf_thread_page_fault = ')
[ "$n" = 300 ] || fail "babeltrace2 shows $n records with the counter, expected 300"
run 0 destroy pf

# A counter this machine cannot open: refused at add-context, nothing changed.
create_session hw
run 0 enable-event -u 'pf:*'
if "$STRATA" add-context -u -t perf:thread:cpu-cycles >"$TMP/out" 2>"$TMP/err"; then
	echo "this machine counts cpu-cycles: refusal check skipped"
else
	has "$(cat "$TMP/err")" "perf:thread:cpu-cycles" "the refusal names the context"
	run 0 list hw
	case "$OUT" in *cpu-cycles*) fail "a refused context was added: $OUT" ;; esac
fi
run 1 add-context -u -t perf:thread:no-such-counter
run 1 add-context -u -t perf:cpu:page-fault
has "$ERR" "per-thread counters, perf:thread:page-fault" "per-CPU counter in user space"
run 0 destroy hw

# Sessions one after another, each with another counter: all record it.
for c in page-fault task-clock cpu-clock context-switches minor-faults major-faults \
	cpu-migrations alignment-faults emulation-faults cs faults; do
	create_session "c-$c"
	run 0 enable-event -u 'pf:*'
	run 0 add-context -u -t "perf:thread:$c"
	run 0 start
	"$APP" 3 1 || fail "pf-app failed ($c)"
	run 0 stop
	f=perf_thread_$(printf '%s' "$c" | tr '-' '_')
	n=$("$STRATA" view "$TRACE" 2>/dev/null | grep -c "$f = ")
	[ "$n" = 6 ] || fail "session with $c: $n records carry $f, expected 6"
	run 0 destroy "c-$c"
done
finish
