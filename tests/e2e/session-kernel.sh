#!/bin/bash
# SPDX-License-Identifier: MIT
# Kernel tracing through a real strata-sessiond and CLI (root, eBPF): a
# workload with known system calls, traced with contexts, read back by
# babeltrace2. Skips (77) where the kernel domain is unavailable.
# Usage: session-kernel.sh STRATA STRATA-SESSIOND
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
. "$(dirname "$0")/session-lib.sh"

if ! command -v babeltrace2 >/dev/null; then
	echo "babeltrace2 is not installed: skipping"
	exit 77
fi
run 0 create k
TRACE=$(printf '%s\n' "$OUT" | sed -n 's/^Traces will be output to //p')
"$STRATA" enable-event -k sched_switch >"$TMP/out" 2>"$TMP/err"
if [ $? -ne 0 ]; then
	echo "kernel domain unavailable, skipping: $(cat "$TMP/err")"
	exit 77
fi
has "$(cat "$TMP/out")" "kernel event sched_switch created in channel channel0" "enable-event -k"
# Names are checked against the kernel's events before anything changes.
run 1 enable-event -k sched_switch,no_such_tracepoint
has "$ERR" "Kernel event 'no_such_tracepoint' not found" "unknown kernel event"
run 1 enable-event -k --syscall no_such_syscall
has "$ERR" "Kernel system call 'no_such_syscall' not found" "unknown syscall"
run 0 list k
n=$(printf '%s\n' "$OUT" | grep -c '(type: ')
[ "$n" = 1 ] || fail "refused enable-event changed the rules ($n rules)"
run 0 enable-event -k --syscall openat,getppid
has "$OUT" "kernel syscall openat created in channel channel0" "enable-event --syscall"
run 0 add-context -k -t pid -t procname -t tid -t ppid
has "$OUT" "kernel context procname added to all channels" "add-context -k"
run 1 add-context -u -t pid
has "$ERR" "Unknown context type 'pid' in the user space domain" "user space pid"
run 0 list -k
has "$OUT" "      sched_switch (type: tracepoint)" "list -k"

run 0 start
# The workload: a process with a known name opening a known missing file.
WL="$TMP/strata-kwl"
cp "$(command -v cat)" "$WL"
"$WL" "$TMP/no-such-file-$$" 2>/dev/null
run 0 stop

bt=$(babeltrace2 "$TRACE/kernel" 2>"$TMP/bt.err")
line=$(printf '%s\n' "$bt" | grep 'syscall_entry_openat' | grep "no-such-file-$$" | head -1)
[ -n "$line" ] || fail "no syscall_entry_openat of the workload's file in the trace"
has "$line" 'procname = "strata-kwl"' "workload procname"
has "$line" "ppid = $$" "workload ppid"
n=$(printf '%s\n' "$bt" | grep -c 'sched_switch')
[ "$n" -gt 0 ] || fail "no sched_switch event"
grep -q 'ERROR' "$TMP/bt.err" && fail "babeltrace2 errors: $(cat "$TMP/bt.err")"

run 0 destroy
finish
