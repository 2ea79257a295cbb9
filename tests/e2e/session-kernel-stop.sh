#!/bin/bash
# SPDX-License-Identifier: MIT
# A kernel record in flight at `stop` (kernel_channel_stop() in
# src/sessiond/kernel/kernel.c). STRATA_SESSIOND_TEST_RECORD_DELAY makes the
# recorder hold each getpgid entry record 500 ms between reading that the
# channel records and committing the record to the ring. A workload calls
# getpgid(MARK) and, while its record is held, `strata stop` runs. The mark
# must be in the trace that stop leaves: not delivered after it, which the
# next start and stop would show (a record stamped before that start), nor
# lost. A mark in neither means stop came first (the workload was not
# scheduled in time): the attempt is repeated (at most 3).
# Bad STRATA_SESSIOND_TEST_RECORD_DELAY values stop the daemon with a message.
# Usage: session-kernel-stop.sh STRATA STRATA-SESSIOND
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
. "$(dirname "$0")/session-lib.sh"

require_tools babeltrace2 python3

refuse_setting STRATA_SESSIOND_TEST_RECORD_DELAY '' \
	'' getpgid getpgid: getpgid:0 getpgid:1001 :5 getpgid:5ms getpgid:-5 no_such_syscall:5

export STRATA_SESSIOND_TEST_RECORD_DELAY=getpgid:500
create_session late
"$STRATA" enable-event -k --syscall getpgid >"$TMP/out" 2>"$TMP/err"
if [ $? -ne 0 ]; then
	echo "kernel domain unavailable, skipping: $(cat "$TMP/err")"
	exit 77
fi
monotonic_ns() {
	python3 -c 'import time; print(time.monotonic_ns())'
}
# mark_ts MARK: the timestamp (ns) of the mark's entry record in the trace, if any
mark_ts() {
	babeltrace2 --clock-cycles "$TRACE/kernel" 2>/dev/null |
		sed -n "s/^\[0*\([0-9]*\)\] .* syscall_entry_getpgid: .* pid = $1 }\$/\1/p"
}
mkfifo "$TMP/ready"
attempt=0 done=
while [ -z "$done" ] && [ "$attempt" -lt 3 ]; do
	attempt=$((attempt + 1))
	mark=$((2000000000 + attempt))
	run 0 start
	python3 -c 'import os, sys
print("ready", flush=True)
try:
    os.getpgid(int(sys.argv[1]))
except OSError:
    pass' "$mark" >"$TMP/ready" &
	wl=$!
	CHILD_PIDS="$CHILD_PIDS $wl"
	exec 8<"$TMP/ready"
	expect_line 8 ready "workload"
	run 0 stop
	wait "$wl" || fail "the workload failed"
	exec 8<&-
	in_stop=$(mark_ts "$mark")
	next=$(monotonic_ns)
	run 0 start
	run 0 stop
	in_next=$(mark_ts "$mark")
	if [ -n "$in_stop" ]; then
		echo "attempt $attempt: the record in flight at stop is in that stop's trace"
		done=1
	elif [ -n "$in_next" ] && [ "$in_next" -lt "$next" ]; then
		fail "the mark recorded at $in_next ns, before the next start ($next), came after its stop"
		done=1
	else
		echo "attempt $attempt: the mark was not recorded (stop came first), again"
	fi
done
[ -n "$done" ] || fail "no attempt had the mark in flight at stop"
run 0 destroy
finish
