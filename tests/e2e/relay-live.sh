#!/bin/bash
# SPDX-License-Identifier: MIT
# Live: lttng-sessiond 2.13 -> strata-relayd -> babeltrace2 lttng-live and
# strata view net://, both attached to the same session at once, on two
# hosts streaming at the same time (per-user buffers on one, per-process
# buffers on the other). The viewers print as the events come
# and end when the session is destroyed; what each prints is the same, and
# the same as the trace the relay wrote, read afterwards. The session list
# reads as babeltrace2 prints it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/relay-lib.sh"
relay_require

relay_start relay || finish
host_up north 1 && host_up south 2 || { fail "hosts"; finish; }
session north 1 live1 --live=100000
# south: per-process buffers, whose streams come with the program once the
# viewers are attached, and go with it. (Not two programs in a row: a
# second program's first packets may begin before the beacons of the
# first one's last packets, which babeltrace2 2.0.4's lttng-live refuses:
# "timestamp is less than ... last returned timestamp"; strata view too,
# as it reads the same messages.)
in_host south lttng create live2 --live=200000 --set-url="net://$(host_addr 2):$CTRL:$DATA" >/dev/null &&
	in_host south lttng enable-channel -u --buffers-pid c -s live2 >/dev/null &&
	in_host south lttng enable-event -u -c c 'relaytest:*' -s live2 >/dev/null &&
	in_host south lttng start live2 >/dev/null || fail "session live2 on south"

# The listing, as babeltrace2 prints it.
"$STRATA" view "net://127.0.0.1:$LIVE" >"$TMP/list.st" 2>&1
babeltrace2 --input-format=lttng-live "net://127.0.0.1:$LIVE" >"$TMP/list.bt" 2>&1
same_output "$TMP/list.bt" "$TMP/list.st" "session list"
grep -q "^net://127.0.0.1:$LIVE/host/north/live1 (timer = 100000, " "$TMP/list.st" ||
	fail "live1 not listed: $(cat "$TMP/list.st")"

viewer_start bt_north babeltrace2 north live1 "$TMP/north.bt"
viewer_start st_north strata north live1 "$TMP/north.st"
viewer_start bt_south babeltrace2 south live2 "$TMP/south.bt"
viewer_start st_south strata south live2 "$TMP/south.st"
# Events are read from when a viewer attaches: start the apps once both are.
wait_for 20 viewers_attached live1 2 || fail "the viewers did not attach to live1"
wait_for 20 viewers_attached live2 2 || fail "the viewers did not attach to live2"

in_host north "$APP" north 4000 1000 >/dev/null &
a=$!
in_host south "$APP" south 3000 15000 >/dev/null &
b=$!
PIDS="$PIDS $a $b"
# Live means before the end: the first events show while north still runs (4 s).
wait_for 20 grep -q 'who = "north"' "$TMP/north.st" || fail "strata view printed nothing of north"
kill -0 "$a" 2>/dev/null || fail "strata view printed north's events only once it ended"
apps_wait $a $b
session_end north live1
session_end south live2

viewer_end "$bt_north" "babeltrace2 of north" "$TMP/north.bt"
viewer_end "$st_north" "strata view of north" "$TMP/north.st"
viewer_end "$bt_south" "babeltrace2 of south" "$TMP/south.bt"
viewer_end "$st_south" "strata view of south" "$TMP/south.st"
for n in north south; do
	same_output "$TMP/$n.bt" "$TMP/$n.st" "$n live"
	cmp -s "$TMP/$n.bt.err" "$TMP/$n.st.err" || fail "$n live: the warnings differ"
done
babeltrace2 "$(trace_dir relay north live1)" >"$TMP/north.disk"
same_output "$TMP/north.disk" "$TMP/north.st" "north live against its trace"
babeltrace2 "$(trace_dir relay south live2)" >"$TMP/south.disk"
same_output "$TMP/south.disk" "$TMP/south.st" "south live against its trace"
[ "$(events "$TMP/north.st" north)" = 4000 ] || fail "north: $(events "$TMP/north.st" north) of 4000 events"
[ "$(events "$TMP/south.st" south)" = 3000 ] || fail "south: $(events "$TMP/south.st" south) of 3000 events"
grep -q "Warning\|Error" "$TMP/relay.log" && { fail "the relay complained:"; grep "Warning\|Error" "$TMP/relay.log"; }
relay_stop
finish
