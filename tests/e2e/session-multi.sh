#!/bin/bash
# SPDX-License-Identifier: MIT
# Several sessions and channels record the same user-space events at once:
# each gets every event (one record per enabled channel per event, as LTTng
# does), whatever their buffering (per-user and per-process mixed), and each
# trace is read whole by babeltrace2 and `strata view`.
# Usage: session-multi.sh STRATA STRATA-SESSIOND HELLO
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
HELLO=$3
. "$(dirname "$0")/session-lib.sh"

require_babeltrace2

# count DIR PATTERN: records babeltrace2 and strata view both show (must agree)
count() {
	local b v
	b=$(babeltrace2 "$1" 2>"$TMP/bt.err" | grep -c "$2")
	[ -s "$TMP/bt.err" ] && fail "babeltrace2 complained on $1: $(head -2 "$TMP/bt.err")"
	v=$("$STRATA" view "$1" 2>"$TMP/view.err" | grep -c "$2")
	[ "$b" = "$v" ] || fail "$1: babeltrace2 shows $b '$2', strata view $v"
	echo "$b"
}

# expect DIR PATTERN N WHAT
expect() {
	local n
	n=$(count "$1" "$2")
	[ "$n" = "$3" ] || fail "$4: expected $3 '$2' records, found $n"
}

create_session s1
T1=$TRACE
run 0 enable-event -u -s s1 'hello:*'
run 0 add-context -u -s s1 -t vpid

create_session s2
T2=$TRACE
run 0 enable-channel -u -s s2 --buffers-pid chp
run 0 enable-event -u -s s2 -c chp 'hello:tptest'

create_session s3
T3=$TRACE
run 0 enable-channel -u -s s3 ca
run 0 enable-channel -u -s s3 cb
run 0 enable-event -u -s s3 -c ca 'hello:*'
run 0 enable-event -u -s s3 -c cb 'hello:tptest'
run 0 add-context -u -s s3 -c cb -t vtid -t procname

for s in s1 s2 s3; do
	run 0 start "$s"
done
"$HELLO" -n 3000 >"$TMP/hello.out" 2>&1 || fail "hello failed: $(cat "$TMP/hello.out")"
"$HELLO" -n 1000 >"$TMP/hello2.out" 2>&1 || fail "second hello failed"
for s in s1 s2 s3; do
	run 0 stop "$s"
done

expect "$T1" 'hello:tptest' 4000 "session s1 (per-user buffers)"
expect "$T2" 'hello:tptest' 4000 "session s2 (per-process buffers)"
expect "$T3" 'hello:tptest' 8000 "session s3 (two channels, one record each)"
expect "$T3" 'hello:tptest.*vtid = .*procname = "hello"' 4000 "session s3, channel cb"

finish
