#!/bin/bash
# SPDX-License-Identifier: MIT
# lttng-sessiond 2.13 -> strata-relayd: three hosts stream at once (per-user
# buffers live, per-process buffers, a session split in trace files of
# 16 KiB, a snapshot); each trace the relay wrote is read by babeltrace2
# and strata view, which print the same, with every event emitted.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/relay-lib.sh"
relay_require

relay_start relay || finish
host_up alpha 1 && host_up beta 2 && host_up gamma 3 || { fail "hosts"; finish; }

session alpha 1 uid --live=100000
in_host beta lttng create pid --set-url="net://$(host_addr 2):$CTRL:$DATA" >/dev/null &&
	in_host beta lttng enable-channel -u --buffers-pid c -s pid >/dev/null &&
	in_host beta lttng enable-event -u -c c 'relaytest:*' -s pid >/dev/null &&
	in_host beta lttng start pid >/dev/null || fail "session pid on beta"
in_host gamma lttng create files --set-url="net://$(host_addr 3):$CTRL:$DATA" >/dev/null &&
	in_host gamma lttng enable-channel -u --subbuf-size 4096 --num-subbuf 4 \
		--tracefile-size 16384 --tracefile-count 64 c -s files >/dev/null &&
	in_host gamma lttng enable-event -u -c c 'relaytest:*' -s files >/dev/null &&
	in_host gamma lttng start files >/dev/null || fail "session files on gamma"

# All three hosts at once.
in_host alpha "$APP" alpha 3000 0 >"$TMP/alpha.app" &
a=$!
in_host beta "$APP" beta1 500 0 >"$TMP/beta1.app" && in_host beta "$APP" beta2 700 0 >"$TMP/beta2.app" &
b=$!
in_host gamma "$APP" gamma 2000 4000 >"$TMP/gamma.app" &
g=$!
PIDS="$PIDS $a $b $g"
for p in $a $b $g; do
	wait_exit 60 "$p" && [ "$RC" = 0 ] || fail "an app failed ($RC)"
done
session_end alpha uid
session_end beta pid
session_end gamma files

# check HOST SESSION WHO COUNT: the relay's trace of SESSION read by both readers.
check() {
	local dir
	dir=$(trace_dir relay "$1" "$2")
	if [ -z "$dir" ]; then
		fail "no directory for session $2 of $1 below $TMP/relay/$1"
		return
	fi
	babeltrace2 "$dir" >"$TMP/bt.txt" 2>"$TMP/bt.err" || fail "babeltrace2 cannot read $dir"
	"$STRATA" view "$dir" >"$TMP/st.txt" 2>"$TMP/st.err" || fail "strata view cannot read $dir"
	same_output "$TMP/bt.txt" "$TMP/st.txt" "$2 of $1"
	cmp -s "$TMP/bt.err" "$TMP/st.err" || fail "$2 of $1: the warnings differ"
	[ "$(events "$TMP/bt.txt" "$3")" = "$4" ] || fail "$2 of $1: $(events "$TMP/bt.txt" "$3") events of $3, $4 emitted"
}
check alpha uid alpha 3000
check beta pid beta1 500
check beta pid beta2 700
check gamma files gamma 2000
dir=$(trace_dir relay gamma files)
ls "$dir"/ust/uid/0/64-bit/c_[01]_1 >/dev/null 2>&1 || fail "the 16 KiB trace files did not rotate"
[ "$(ls -d "$(trace_dir relay beta pid)"/ust/pid/* | wc -l)" = 2 ] || fail "per-process traces"

# A snapshot recorded to the relay: its own directory in the session's.
in_host alpha lttng create snap --snapshot --set-url="net://$(host_addr 1):$CTRL:$DATA" >/dev/null &&
	in_host alpha lttng enable-event -u 'relaytest:*' -s snap >/dev/null &&
	in_host alpha lttng start snap >/dev/null && in_host alpha "$APP" snap 100 0 >/dev/null &&
	in_host alpha lttng snapshot record -s snap >/dev/null || fail "snapshot record"
session_end alpha snap
snapdir=$(ls -d "$(trace_dir relay alpha snap)"/snapshot-1-* 2>/dev/null)
if [ -z "$snapdir" ]; then
	fail "no snapshot directory"
else
	babeltrace2 "$snapdir" >"$TMP/bt.txt" && "$STRATA" view "$snapdir" >"$TMP/st.txt"
	same_output "$TMP/bt.txt" "$TMP/st.txt" "snapshot"
	[ "$(events "$TMP/bt.txt" snap)" = 100 ] || fail "snapshot: $(events "$TMP/bt.txt" snap) of 100 events"
fi
grep -q "Warning\|Error" "$TMP/relay.log" && { fail "the relay complained:"; grep "Warning\|Error" "$TMP/relay.log"; }
relay_stop
finish
