#!/bin/bash
# SPDX-License-Identifier: MIT
# A switch timer (enable-channel --switch-timer) closes partly filled
# sub-buffers while the session records: a few events of hello reach the
# disk, readable, before `stop`, in per-process buffers. Then the session is
# destroyed while it records (its buffers leave the running consumer) and
# the daemon goes on serving. tests/stress/tsan-sessiond.sh runs it too:
# the reader thread closes the sub-buffers here.
# Usage: session-switch-timer.sh STRATA STRATA-SESSIOND HELLO
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
HELLO=$3
. "$(dirname "$0")/session-lib.sh"

require_babeltrace2
create_session sw
run 0 enable-channel -u --buffers-pid --switch-timer 100000 swc
run 0 enable-event -u -c swc 'hello:*'
run 0 start
"$HELLO" -n 5 >/dev/null 2>&1 || fail "hello failed"
dir=$(ls -d "$TRACE"/ust/pid/hello-* 2>/dev/null | head -n 1)
[ -n "$dir" ] || fail "no per-process trace directory"
# Bounded wait for the timer (100 ms) and the consumer: 10 s.
for _ in $(seq 100); do
	[ -n "$(find "$dir" -maxdepth 1 -name 'swc_*' -size +0c)" ] && break
	sleep 0.1
done
n=$(babeltrace2 "$dir" 2>"$TMP/bt.err" | grep -c 'hello:tptest')
[ "$n" = 5 ] || fail "$n of 5 events on disk while recording: $(head -c 300 "$TMP/bt.err")"
run 0 destroy sw
run 0 list
has "$OUT" "Currently no available recording session" "list after destroying a recording session"
finish
