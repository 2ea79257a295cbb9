#!/bin/bash
# SPDX-License-Identifier: MIT
# What a session records beyond event names: exclusions (-x), trackers
# (track/untrack, changed while recording), disabled channels, and rules
# told apart by their exclusions, as with lttng.
# Usage: session-rules.sh STRATA STRATA-SESSIOND HELLO
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
HELLO=$3
. "$(dirname "$0")/session-lib.sh"

require_babeltrace2

# count TRACE PATTERN: records strata view shows (babeltrace2 agrees)
count() {
	local b v
	b=$(babeltrace2 "$1" 2>/dev/null | grep -c "$2")
	v=$("$STRATA" view "$1" 2>/dev/null | grep -c "$2")
	[ "$b" = "$v" ] || fail "$1: babeltrace2 shows $b '$2', strata view $v"
	echo "$v"
}

expect() { # expect N TRACE PATTERN WHAT
	local n
	n=$(count "$2" "$3")
	[ "$n" = "$1" ] || fail "$4: expected $1 '$3' records, found $n"
}

# Exclusions: hello* without hello_gen:* records hello:tptest only.
create_session ex
run 0 enable-event -u 'hello*' -x 'hello_gen:*'
has "$OUT" 'ust event hello* excluding "hello_gen:*" created in channel channel0' "enable -x"
run 1 enable-event -u 'hello:*' -x 'hello:*'
has "$ERR" 'Event hello:*: hello:* excludes all events from hello:*' "superset exclusion"
run 0 enable-event -u 'foo:*' -x 'bar:x'
has "$ERR" 'bar:x does not exclude any events from foo:*' "disjoint exclusion"
run 1 enable-event -u 'hello:tptest' -x 'hello:x'
has "$ERR" "has no '*'" "exclusion without a star"
run 1 enable-event -k 'sched_*' -x 'sched_switch'
has "$ERR" "only available with -u" "kernel exclusion"
# Another rule with the same name but no exclusion is another rule.
run 0 enable-event -u -c other 'hello*'
run 0 list ex
has "$OUT" 'hello* (type: tracepoint) [enabled] [exclusions: hello_gen:*]' "list shows exclusions"
run 0 start
"$HELLO" -n 50 >/dev/null 2>&1 || fail "hello failed"
run 0 stop
expect 100 "$TRACE" 'hello:tptest' "tptest in both channels"
expect 2 "$TRACE" 'hello_gen:' "hello_gen only in the channel without exclusion"
run 0 destroy ex

# Trackers: an app whose virtual uid is left out gets nothing of the session.
create_session tr
run 0 enable-event -u 'hello:*'
run 0 track -u --vuid=12345
has "$OUT" "Added 12345 to the virtual user ID tracker inclusion set" "track"
run 0 start
"$HELLO" -n 10 >/dev/null 2>&1 || fail "hello failed"
# While it records: include the app's uid, by name as well as by number.
run 0 track -u --vuid="$(id -un)"
"$HELLO" -n 7 >/dev/null 2>&1 || fail "hello failed"
run 0 untrack -u --vuid="$(id -u),12345"
run 0 list tr
has "$OUT" "Virtual user IDs:     none" "an emptied inclusion set lists as none"
"$HELLO" -n 5 >/dev/null 2>&1 || fail "hello failed"
run 0 track -u --all --vuid
"$HELLO" -n 3 >/dev/null 2>&1 || fail "hello failed"
run 0 stop
expect 10 "$TRACE" 'hello:tptest' "only the tracked apps' events"
run 1 track -u --uid=0
has "$ERR" "only available with -k" "uid tracker in user space"
run 1 track -u --vpid=abc
has "$ERR" "Invalid virtual process ID 'abc'" "bad tracker value"
run 0 destroy tr

# A disabled channel records nothing, from the moment it is disabled.
create_session dc
run 0 enable-channel -u c1
run 0 enable-event -u -c c1 'hello:*'
run 0 start
"$HELLO" -n 4 >/dev/null 2>&1 || fail "hello failed"
run 0 disable-channel -u c1
has "$OUT" "ust channel c1 disabled for session dc" "disable-channel"
"$HELLO" -n 6 >/dev/null 2>&1 || fail "hello failed"
run 0 enable-channel -u c1
"$HELLO" -n 8 >/dev/null 2>&1 || fail "hello failed"
run 0 stop
expect 12 "$TRACE" 'hello:tptest' "records of an enabled channel only"
run 1 disable-channel -u nosuch
has "$ERR" "Channel 'nosuch' not found" "disable an unknown channel"
run 0 destroy dc
finish
