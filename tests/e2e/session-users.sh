#!/bin/bash
# SPDX-License-Identifier: MIT
# System-wide user space tracing: root's daemon records the apps of another
# user (run with setpriv), into ust/uid/UID/ (per-user buffers) and
# ust/pid/NAME-PID-DATE/ (per-process buffers), in the same sessions as
# root's own apps; that user's own daemon, when there is one, traces only
# that user's apps and sees none of root's sessions.
# Usage: session-users.sh STRATA STRATA-SESSIOND HELLO
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
HELLO=$3
. "$(dirname "$0")/session-lib.sh"

require_babeltrace2
require_tools setpriv
if [ "$(id -u)" != 0 ]; then
	echo "needs root (root's daemon, and setpriv to another user): skipping"
	exit 77
fi
USER_ID=65534
# The other user's apps reach root's registration socket: a searchable path.
chmod 755 "$TMP"
mkdir -p "$TMP/nobody-run" && chown "$USER_ID" "$TMP/nobody-run" && chmod 700 "$TMP/nobody-run"

# as_user CMD...: run CMD as uid/gid 65534, its apps registering with its own
# daemon's run directory and with root's (STRATA_GLOBAL_RUNDIR).
as_user() {
	env STRATA_RUNDIR="$TMP/nobody-run" STRATA_GLOBAL_RUNDIR="$STRATA_RUNDIR" \
		HOME="$TMP/nobody-run" setpriv --reuid="$USER_ID" --regid="$USER_ID" \
		--clear-groups "$@"
}

count() { # count TRACE PATTERN: what both readers show (they must agree)
	local b v
	b=$(babeltrace2 "$1" 2>"$TMP/bt.err" | grep -c "$2")
	[ -s "$TMP/bt.err" ] && fail "babeltrace2 complained on $1: $(head -2 "$TMP/bt.err")"
	v=$("$STRATA" view "$1" 2>/dev/null | grep -c "$2")
	[ "$b" = "$v" ] || fail "$1: babeltrace2 shows $b '$2', strata view $v"
	echo "$b"
}

create_session su
TU=$TRACE
run 0 enable-event -u 'hello:*'
create_session sp
TP=$TRACE
run 0 enable-channel -u --buffers-pid cp
run 0 enable-event -u -c cp 'hello:*'
run 0 start su
run 0 start sp

as_user "$HELLO" -n 300 >"$TMP/user.out" 2>&1 || fail "hello as uid $USER_ID failed: $(cat "$TMP/user.out")"
"$HELLO" -n 200 >/dev/null 2>&1 || fail "hello as root failed"
run 0 stop su
run 0 stop sp

n=$(count "$TU/ust/uid/$USER_ID/64-bit" 'hello:tptest')
[ "$n" = 300 ] || fail "per-user buffers of uid $USER_ID: $n of 300 events"
n=$(count "$TU/ust/uid/0/64-bit" 'hello:tptest')
[ "$n" = 200 ] || fail "per-user buffers of root: $n of 200 events"
n=$(count "$TU" 'hello:tptest')
[ "$n" = 500 ] || fail "the whole per-user trace: $n of 500 events"
n=$(count "$TP" 'hello:tptest')
[ "$n" = 500 ] || fail "the per-process trace: $n of 500 events"
dirs=$(ls "$TP/ust/pid" | wc -l)
[ "$dirs" = 2 ] || fail "expected a per-process trace directory per app, found: $(ls "$TP/ust/pid")"
# The other user's traces are root's files (root's session), none of theirs.
[ "$(stat -c %u "$TU/ust/uid/$USER_ID/64-bit/metadata")" = 0 ] ||
	fail "a trace file of root's session is not root's"

# That user's own daemon: its sessions get its apps only, and it sees none
# of root's sessions.
as_user "$STRATA" create mine -o "$TMP/nobody-run/trace" >"$TMP/out" 2>&1 ||
	fail "the user's own daemon: create failed: $(cat "$TMP/out")"
as_user "$STRATA" enable-event -u 'hello:*' >/dev/null 2>&1 || fail "the user's enable-event failed"
as_user "$STRATA" start >/dev/null 2>&1 || fail "the user's start failed"
run 0 start su
as_user "$HELLO" -n 40 >/dev/null 2>&1 || fail "hello as uid $USER_ID failed"
"$HELLO" -n 30 >/dev/null 2>&1 || fail "hello as root failed"
as_user "$STRATA" stop >/dev/null 2>&1 || fail "the user's stop failed"
run 0 stop su
as_user "$STRATA" list >"$TMP/out" 2>&1
has "$(cat "$TMP/out")" "mine" "the user's list"
grep -q " su " "$TMP/out" && fail "the user's daemon shows root's session su"
n=$(count "$TMP/nobody-run/trace" 'hello:tptest')
[ "$n" = 40 ] || fail "the user's own session: $n of its 40 events (and none of root's)"
n=$(count "$TU" 'hello:tptest')
[ "$n" = 570 ] || fail "root's session after the second run: $n of 570 events"
pid=$(cat "$TMP/nobody-run/sessiond.pid" 2>/dev/null)
[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && timeout 10 tail --pid="$pid" -f /dev/null
finish
