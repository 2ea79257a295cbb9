#!/bin/bash
# SPDX-License-Identifier: MIT
# Faults around strata-relayd, with two hosts streaming live sessions that
# strata view reads:
#  - north's link is cut for 3 s in the middle of its session: the session
#    goes on once the link is back, and all its events reach the viewer;
#  - meanwhile hostile peers send noise to every port, stall in the middle
#    of a message, name sessions and streams to escape the output directory,
#    and drop a data connection in the middle of a packet: each loses its
#    connection (the cut packet is taken back), nothing is written outside
#    the output directory, and south's session is not disturbed: its viewer
#    keeps printing through it all;
#  - the relay is killed and started again on the same ports: new sessions
#    of both hosts stream and are read live as before; a peer stalling in
#    the middle of a message is hung up on.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/relay-lib.sh"
relay_require
command -v python3 >/dev/null || skip "python3 is not installed"
PEER=$here/relay-peer.py

relay_start relay || finish
host_up north 1 && host_up south 2 || { fail "hosts"; finish; }
session north 1 nlive --live=100000
session south 2 slive --live=100000
viewer_start st_north strata north nlive "$TMP/north.st"
viewer_start st_south strata south slive "$TMP/south.st"
wait_for 20 viewers_attached nlive 1 || fail "strata view did not attach to nlive"
wait_for 20 viewers_attached slive 1 || fail "strata view did not attach to slive"

# 6 s of events on each host.
in_host north "$APP" north 1500 250 >/dev/null &
a=$!
in_host south "$APP" south 1500 250 >/dev/null &
b=$!
PIDS="$PIDS $a $b"
wait_for 20 grep -q 'who = "north"' "$TMP/north.st" || fail "nothing of north before the cut"
wait_for 20 grep -q 'who = "south"' "$TMP/south.st" || fail "nothing of south before the cut"

link_set north down
before=$(events "$TMP/south.st" south)
for port in "$CTRL" "$DATA" "$LIVE"; do
	python3 "$PEER" garbage 127.0.0.1 "$port" || fail "noise on port $port"
done
python3 "$PEER" names 127.0.0.1 "$CTRL" || fail "escaping names"
python3 "$PEER" cut 127.0.0.1 "$CTRL" "$DATA" || fail "a packet cut short"
# The cut lasts 3 s (the fault itself, not a wait for something).
sleep 3
wait_for 10 test "$(events "$TMP/south.st" south)" -gt "$before" ||
	fail "south's viewer printed nothing while north was cut off and the peers misbehaved"
link_set north up

apps_wait $a $b
session_end north nlive
session_end south slive
viewer_end "$st_north" "strata view of north" "$TMP/north.st"
viewer_end "$st_south" "strata view of south" "$TMP/south.st"
for n in north south; do
	babeltrace2 "$(trace_dir relay "$n" "${n:0:1}live")" >"$TMP/$n.disk"
	same_output "$TMP/$n.disk" "$TMP/$n.st" "$n live against its trace"
	[ "$(events "$TMP/$n.st" "$n")" = 1500 ] || fail "$n: $(events "$TMP/$n.st" "$n") of 1500 events"
done

# What the hostile peers left: their own host's directory only, the cut
# packet taken back (one packet of 4096 bytes, one index entry).
extra=$(ls "$TMP/relay" | grep -v '^north$\|^south$\|^evil$')
[ -z "$extra" ] || fail "written outside the hosts' directories: $extra"
[ -z "$(find "$TMP" -maxdepth 1 -name '*escape*' -o -maxdepth 1 -name up)" ] || fail "escaped"
cut=$(ls -d "$TMP"/relay/evil/cut-*/ust/uid/0/64-bit 2>/dev/null)
[ -n "$cut" ] && [ "$(stat -c %s "$cut/c_0")" = 4096 ] && [ "$(stat -c %s "$cut/index/c_0.idx")" = 88 ] ||
	fail "the packet cut short was not taken back: $(ls -l "$cut" "$cut/index" 2>&1)"
for what in "Closing control connection" "Closing data connection" "Closing live connection"; do
	grep -q "$what" "$TMP/relay.log" || fail "the relay did not report '$what'"
done

# The relay killed and restarted: new sessions go through it as before.
session north 1 before --live=100000
in_host north "$APP" before 100 0 >/dev/null || fail "app before the kill"
kill -KILL "$RELAY_PID"
wait "$RELAY_PID" 2>/dev/null
# Restarted with short timeouts (not while a link is cut: a packet caught
# in the cut would stall), so that a stalled peer is hung up on quickly.
STRATA_RELAYD_TEST_TIMEOUT_MS=2000 KEEP_PORTS=1 relay_start relay || finish
python3 "$PEER" stall 127.0.0.1 "$CTRL" || fail "a stalled message"
grep -q "a message stalled" "$TMP/relay.log" || fail "the relay did not report a stalled message"
# The session of the killed relay can only be destroyed (lttng says it failed).
timeout 60 nsenter -t "$HOST_PID_north" -n -m -u -p env LTTNG_HOME="$TMP/north" \
	lttng destroy before >/dev/null 2>&1
[ "$?" != 124 ] || fail "destroying the session of the killed relay hung"
"$STRATA" view "$(trace_dir relay north before)" >/dev/null 2>&1
[ "$?" -lt 128 ] || fail "strata view crashed on the trace of the killed relay"
session north 1 nafter --live=100000
session south 2 safter --live=100000
viewer_start st_north strata north nafter "$TMP/north.after"
viewer_start st_south strata south safter "$TMP/south.after"
wait_for 20 viewers_attached nafter 1 || fail "strata view did not attach to nafter"
wait_for 20 viewers_attached safter 1 || fail "strata view did not attach to safter"
in_host north "$APP" north 500 0 >/dev/null || fail "app after the restart"
in_host south "$APP" south 500 0 >/dev/null || fail "app after the restart"
session_end north nafter
session_end south safter
viewer_end "$st_north" "strata view of north after the restart" "$TMP/north.after"
viewer_end "$st_south" "strata view of south after the restart" "$TMP/south.after"
for n in north south; do
	[ "$(events "$TMP/$n.after" "$n")" = 500 ] ||
		fail "$n after the restart: $(events "$TMP/$n.after" "$n") of 500 events"
	babeltrace2 "$(trace_dir relay "$n" "${n:0:1}after")" >"$TMP/$n.disk"
	same_output "$TMP/$n.disk" "$TMP/$n.after" "$n after the restart"
done
relay_stop
finish
