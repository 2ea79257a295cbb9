#!/bin/bash
# SPDX-License-Identifier: MIT
# The hello example (libstrata-ust) traced by a real strata-sessiond: every
# event emitted is in the trace, babeltrace2 reads it without complaint and
# `strata view` prints exactly what babeltrace2 prints. Apps that register
# and exit at once while the session records must not disturb the daemon.
# Usage: session-hello.sh STRATA STRATA-SESSIOND HELLO
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
HELLO=$3
. "$(dirname "$0")/session-lib.sh"

require_babeltrace2

create_session hello
run 0 enable-event -u 'hello:*'
run 0 add-context -u -t vpid -t vtid -t procname
run 0 start
# Short-lived apps: they register and exit while commands are in flight.
for i in 1 2 3 4 5; do
	"$HELLO" --no-such-option >/dev/null 2>&1
done
"$HELLO" -n 2000 >"$TMP/hello.out" 2>&1 || fail "hello failed: $(cat "$TMP/hello.out")"
"$HELLO" -n 500 >/dev/null 2>&1 &
CHILD_PIDS="$CHILD_PIDS $!"
wait $! || fail "second hello failed"
run 0 stop
has "$OUT" "Tracing stopped for session hello" "stop after short-lived apps"

babeltrace2 "$TRACE" >"$TMP/bt.out" 2>"$TMP/bt.err" || fail "babeltrace2 failed"
[ -s "$TMP/bt.err" ] && fail "babeltrace2 complained: $(head -3 "$TMP/bt.err")"
n=$(grep -c 'hello:tptest' "$TMP/bt.out")
[ "$n" = 2500 ] || fail "expected 2500 hello:tptest events, babeltrace2 shows $n"
line=$(grep -m1 'hello:tptest' "$TMP/bt.out")
has "$line" 'procname = "hello" }, { intfield = 0, intfield2 = 0x0' "first event"
has "$line" 'arrfield2 = "test"' "first event"

if "$STRATA" view "$TRACE" >"$TMP/view.out" 2>"$TMP/view.err"; then
	cmp -s "$TMP/bt.out" "$TMP/view.out" ||
		fail "strata view differs from babeltrace2: $(diff "$TMP/bt.out" "$TMP/view.out" | head -5)"
else
	fail "strata view failed: $(head -3 "$TMP/view.err")"
fi

# `strata view` with no path reads the current session, `strata view NAME`
# the named one, as `lttng view` does.
for args in "" "hello"; do
	# shellcheck disable=SC2086
	"$STRATA" view $args >"$TMP/view-s.out" 2>"$TMP/view-s.err" ||
		fail "strata view $args failed: $(head -3 "$TMP/view-s.err")"
	cmp -s "$TMP/bt.out" "$TMP/view-s.out" || fail "strata view '$args' differs from babeltrace2"
done
run 2 view no-such-session
has "$ERR" "no-such-session" "view of an unknown session names it"

run 0 destroy

# Kernel and user space in one session, on one timeline (root, eBPF only).
run 0 create both
BTRACE=$(printf '%s\n' "$OUT" | sed -n 's/^Traces will be output to //p')
run 0 enable-event -u 'hello:*'
if "$STRATA" enable-event -k --syscall write >/dev/null 2>&1; then
	run 0 add-context -k -t procname
	run 0 start
	"$HELLO" -n 20 >/dev/null 2>&1 || fail "hello failed"
	run 0 stop
	babeltrace2 "$BTRACE" >"$TMP/bt2.out" 2>"$TMP/bt2.err" || fail "babeltrace2 failed"
	n=$(grep -c 'hello:tptest' "$TMP/bt2.out")
	[ "$n" = 20 ] || fail "expected 20 hello events in the combined trace, found $n"
	grep -q 'syscall_entry_write: .*procname = "hello"' "$TMP/bt2.out" ||
		fail "no write system call of hello in the combined trace"
	"$STRATA" view "$BTRACE" >"$TMP/view2.out" 2>/dev/null || fail "strata view failed"
	cmp -s "$TMP/bt2.out" "$TMP/view2.out" || fail "combined: strata view differs from babeltrace2"
else
	echo "kernel domain unavailable: combined trace not checked"
fi
run 0 destroy
finish
