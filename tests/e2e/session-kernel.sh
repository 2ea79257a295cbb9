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

require_babeltrace2
require_tools python3 taskset
create_session k
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

# Overwrite (flight recorder): many packets are produced, only the newest
# num_subbuf per CPU stream reach the file at each stop, with the workload's
# last event. Sequence numbers count the dropped packets: the packets of the
# second stop follow a gap, reported as discarded packets (as with LTTng).
create_session ow
run 0 enable-channel -k --overwrite --subbuf-size 4096 --num-subbuf 2 ch
# The mark is a getpgid of a pid that cannot exist, the workload's last
# recorded event. The channel records every process: other processes calling
# getppid or getpgid on CPU 0 after the mark (a parallel session-kernel's
# 50000 getppid) push it out of the 2 kept packets, as they should, so the
# check is on what overwrite promises: the newest events of the stream. The
# workload runs on CPU 0 (stream ch_0) and prints CLOCK_MONOTONIC (the
# events' clock) just before its mark; each cycle begins at a stamp taken
# before its start.
run 0 enable-event -k -c ch --syscall getppid,getpgid
run 0 list ow
has "$OUT" "Event-loss mode:  overwrite" "list of an overwrite channel"
monotonic_ns() {
	python3 -c 'import time; print(time.monotonic_ns())'
}
flight() { # flight MARK: many getppid calls, then getpgid(MARK); prints the time before it
	taskset -c 0 python3 -c 'import os, sys, time
for _ in range(50000):
    os.getppid()
print(time.monotonic_ns(), flush=True)
try:
    os.getpgid(int(sys.argv[1]))
except OSError:
    pass' "$1"
}
cycles=
for cycle in 1 2; do
	begin=$(monotonic_ns)
	run 0 start
	before=$(flight $((2000000000 + cycle)))
	run 0 stop
	cycles="$cycles $begin:$before:$((2000000000 + cycle))"
	for f in "$TRACE"/kernel/ch_*; do
		size=$(stat -c %s "$f")
		[ "$size" -le $((cycle * 8192)) ] ||
			fail "$(basename "$f") holds $size bytes after $cycle stops: more than 2 packets of 4096 per stop"
	done
done
babeltrace2 "$TRACE/kernel" >"$TMP/ow-bt.out" 2>"$TMP/ow-bt.err" || fail "babeltrace2 failed"
"$STRATA" view "$TRACE/kernel" >"$TMP/ow-view.out" 2>"$TMP/ow-view.err" || fail "strata view failed"
cmp -s "$TMP/ow-bt.out" "$TMP/ow-view.out" || fail "strata view stdout differs from babeltrace2"
cmp -s "$TMP/ow-bt.err" "$TMP/ow-view.err" || fail "strata view stderr differs from babeltrace2"
# Per cycle, CPU 0's kept events: the mark, or else only events newer than
# it (it was pushed out, not kept behind older packets), unless CPU 0's ring
# was full at some point and counted discarded events, the mark maybe among
# them (a missing mark with older events kept was seen once in 14 runs,
# under ASan with the session and kernel suites running two at a time; that
# trace was not kept).
babeltrace2 --clock-cycles "$TRACE/kernel" 2>/dev/null | python3 -c '
import re, sys
cycles = [tuple(int(v) for v in c.split(":")) for c in sys.argv[1].split()]
ev = [(int(m.group(1)), m.group(2), m.group(3))
      for m in (re.match(r"\[(\d+)\] \S+ \S+ (\S+): \{ cpu_id = 0 \}, \{ (.*) \}$", l)
                for l in sys.stdin) if m]
# Events the BPF ring could not take are counted, not kept: the mark may be one.
lost = any(re.search(r"discarded \d+ events? .*/ch_0\"", l) for l in open(sys.argv[2]))
bad = 0
for i, (begin, before, mark) in enumerate(cycles):
    end = cycles[i + 1][0] if i + 1 < len(cycles) else float("inf")
    kept = [e for e in ev if begin <= e[0] < end]
    if any(e[1] == "syscall_entry_getpgid" and e[2] == "pid = %d" % mark for e in kept):
        continue
    if not kept:
        print("workload %d: no event of CPU 0 kept at its stop" % (i + 1))
        bad = 1
    elif kept[0][0] <= before and lost:
        print("workload %d: mark not in the trace, and CPU 0 discarded events (the ring was "
              "full: a slow consumer, as under ASan with other tests running)" % (i + 1))
    elif kept[0][0] <= before:
        print("workload %d: its getpgid mark is not in the trace, but %s at %d, older, is"
              % (i + 1, kept[0][1], kept[0][0]))
        bad = 1
    else:
        print("workload %d: mark pushed out by %d newer events of other processes"
              % (i + 1, len(kept)))
sys.exit(bad)' "$cycles" "$TMP/ow-bt.err" || fail "overwrite did not keep the newest events of CPU 0"
n=$(grep -c 'syscall_entry_getppid' "$TMP/ow-bt.out")
[ "$n" -gt 0 ] && [ "$n" -lt 100000 ] || fail "$n getppid entries: expected some, not all"
grep -Eq 'Tracer discarded [0-9]+ packets? ' "$TMP/ow-bt.err" ||
	fail "no discarded packets reported: $(cat "$TMP/ow-bt.err")"
run 0 destroy
finish
