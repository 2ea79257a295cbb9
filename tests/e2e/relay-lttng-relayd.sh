#!/bin/bash
# SPDX-License-Identifier: MIT
# Live from lttng-relayd: lttng-sessiond 2.13 -> lttng-relayd 2.13 ->
# strata view net://, two hosts at once. What strata view prints while the
# sessions run is what babeltrace2 prints of the traces lttng-relayd wrote;
# its session list is babeltrace2's.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/relay-lib.sh"
relay_require
command -v lttng-relayd >/dev/null || skip "lttng-relayd is not installed"

lttng_relay_start lttng || finish
host_up east 1 && host_up west 2 || { fail "hosts"; finish; }
session east 1 ea --live=100000
session west 2 we --live=100000

"$STRATA" view "net://127.0.0.1:$LIVE" >"$TMP/list.st" 2>&1
babeltrace2 --input-format=lttng-live "net://127.0.0.1:$LIVE" >"$TMP/list.bt" 2>&1
same_output "$TMP/list.bt" "$TMP/list.st" "lttng-relayd's session list"

viewer_start st_east strata east ea "$TMP/east.st"
viewer_start st_west strata west we "$TMP/west.st"
wait_for 20 viewers_attached ea 1 || fail "strata view did not attach to ea"
wait_for 20 viewers_attached we 1 || fail "strata view did not attach to we"
in_host east "$APP" east 3000 1000 >/dev/null &
a=$!
in_host west "$APP" west 2000 0 >/dev/null &
b=$!
PIDS="$PIDS $a $b"
wait_for 20 grep -q 'who = "east"' "$TMP/east.st" || fail "strata view printed nothing of east"
kill -0 "$a" 2>/dev/null || fail "strata view printed east's events only once it ended"
apps_wait $a $b
session_end east ea
session_end west we

viewer_end "$st_east" "strata view of east" "$TMP/east.st"
viewer_end "$st_west" "strata view of west" "$TMP/west.st"
for s in east/ea west/we; do
	n=${s%/*}
	dir=$(trace_dir lttng "$n" "${s#*/}")
	babeltrace2 "$dir" >"$TMP/$n.disk" 2>"$TMP/$n.disk.err" || fail "babeltrace2 cannot read $dir"
	same_output "$TMP/$n.disk" "$TMP/$n.st" "$n live from lttng-relayd against its trace"
done
[ "$(events "$TMP/east.st" east)" = 3000 ] || fail "east: $(events "$TMP/east.st" east) of 3000 events"
finish
