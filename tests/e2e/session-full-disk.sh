#!/bin/bash
# SPDX-License-Identifier: MIT
# A full disk under a recording session: `strata stop` says so, the trace
# on disk ends on a whole packet (readable by `strata view` and babeltrace2
# alike, no "malformed" error), and packets written once space is back are
# in it; the kernel domain likewise where eBPF tracing works. Needs root
# (2 MiB tmpfs file systems are mounted for the traces).
# Usage: session-full-disk.sh STRATA STRATA-SESSIOND HELLO
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
HELLO=$3
. "$(dirname "$0")/session-lib.sh"

require_babeltrace2
mkdir -p "$TMP/full" "$TMP/kfull"
if ! mount -t tmpfs -o size=2m tmpfs "$TMP/full" 2>"$TMP/mount.err"; then
	echo "cannot mount a tmpfs (needs root): $(cat "$TMP/mount.err"): skipping"
	exit 77
fi
full_cleanup() {
	umount -l "$TMP/full" 2>/dev/null
	umount -l "$TMP/kfull" 2>/dev/null
	session_cleanup
}
trap full_cleanup EXIT INT TERM

# readable SESSION TRACE: both readers read the whole trace, alike; the
# events in $TMP/view.out.
readable() {
	local st
	"$STRATA" view "$1" >"$TMP/view.out" 2>"$TMP/view.err"
	st=$?
	[ "$st" = 0 ] || fail "strata view $1 exited $st: $(head -c 600 "$TMP/view.err")"
	babeltrace2 "$2" >"$TMP/bt.out" 2>"$TMP/bt.err"
	st=$?
	[ "$st" = 0 ] || fail "babeltrace2 ($1) exited $st: $(head -c 600 "$TMP/bt.err")"
	cmp -s "$TMP/view.out" "$TMP/bt.out" ||
		fail "strata view and babeltrace2 print different events ($1)"
}

# Leave about 1 MiB free: less than the events below need.
dd if=/dev/zero of="$TMP/full/ballast" bs=64k count=16 status=none

run 0 create full -o "$TMP/full/trace"
run 0 enable-event -u 'hello:*'
run 0 start
"$HELLO" -n 100000 >/dev/null 2>&1 || fail "hello (first run) failed"
# Give the consumer time to hit the wall, then make room again.
sleep 1
rm -f "$TMP/full/ballast"
"$HELLO" -n 7 >/dev/null 2>&1 || fail "hello (second run) failed"
run 1 stop
has "$ERR" "No space left on device" "stop's error"
has "$ERR" "$TMP/full/trace" "stop's error names the trace"

readable full "$TMP/full/trace"
n=$(wc -l <"$TMP/view.out")
[ "$n" -gt 0 ] && [ "$n" -lt 100007 ] || fail "$n events in the trace: expected some, not all"
# The second run's last event (intfield counts from 0) came after the space.
tail -n 1 "$TMP/view.out" | grep -q 'intfield = 6,' ||
	fail "the events written once space was back are missing: $(tail -n 1 "$TMP/view.out" | head -c 300)"
# Nothing lost without a count: the records of every packet the disk
# refused are discarded events in the trace and in `strata list`.
run 0 list full
lost=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p' | head -n 1)
[ "${lost:-0}" -gt 0 ] || fail "the daemon counted no discarded event: $OUT"
trace_check "$TMP/full/trace" 'hello:tptest' 100007 "${lost:-0}"
run 0 destroy full

# Kernel events (system calls of a dd copying byte by byte) into a full disk.
mount -t tmpfs -o size=2m tmpfs "$TMP/kfull" || fail "cannot mount a second tmpfs"
run 0 create kfull -o "$TMP/kfull/trace"
"$STRATA" enable-event -k --syscall read,write >"$TMP/out" 2>"$TMP/err"
if [ $? != 0 ]; then
	echo "kernel part skipped: $(cat "$TMP/err")"
else
	run 0 start
	dd if=/dev/zero of=/dev/null bs=1 count=300000 status=none
	run 1 stop
	has "$ERR" "No space left on device" "stop's error (kernel)"
	readable kfull "$TMP/kfull/trace"
	k=$(wc -l <"$TMP/view.out")
	[ "$k" -gt 0 ] || fail "no kernel event kept"
	# The refused packets' events are counted by the daemon, and in the trace
	# by every packet written after them (the disk stays full to the end
	# here: what came after the last packet that fitted has nowhere to go).
	run 0 list kfull
	klost=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p' | head -n 1)
	kw=$(warned "$TMP/bt.err")
	[ "${klost:-0}" -gt 0 ] && [ "$kw" -le "$klost" ] ||
		fail "kernel: the daemon counted ${klost:-?} discarded events, the trace $kw"
	echo "kernel: $k events kept"
fi
run 0 destroy kfull

[ "$FAILS" = 0 ] && echo "all checks passed ($n events kept)"
[ "$FAILS" = 0 ]
