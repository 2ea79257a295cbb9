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

# Filters: refused with a caret under the error and nothing changed;
# evaluated in the app (user space) and in the eBPF program (kernel).
create_session fl
run 1 enable-event -u 'hello:*' --filter 'intfield + 1 == 2'
has "$ERR" "Arithmetic operator '+' is not supported" "arithmetic refused"
has "$ERR" "$(printf 'Error: intfield + 1 == 2\nError:          ^')" "caret under the error"
run 1 enable-event -u 'hello:*' --filter ''
has "$ERR" "Empty filter expression" "empty filter"
run 0 list fl
case "$OUT" in *hello*) fail "a refused filter added a rule: $OUT" ;; esac
run 0 enable-event -u 'hello:*' --filter 'intfield < 3 || stringfield == "nomatch*"'
has "$OUT" "Event hello:*: Filter 'intfield < 3 || stringfield == \"nomatch*\"' successfully set" "filter set"
run 0 enable-event -u -c c2 'hello:*' --filter '$ctx.procname == "hel*" && intfield >= 5'
run 0 enable-event -u -c c2 'hello:*' --filter 'nosuchfield == 1'
kernel=0
if "$STRATA" enable-event -k --syscall openat --filter "filename == \"$TMP/flt-*\"" >"$TMP/k.out" 2>&1; then
	kernel=1
else
	echo "kernel filter part skipped: $(cat "$TMP/k.out")"
fi
run 0 start
"$HELLO" -n 8 >/dev/null 2>&1 || fail "hello failed"
: >"$TMP/flt-a"
cat "$TMP/flt-a" "$TMP/other-file" >/dev/null 2>&1
cat "$TMP/flt-a" >/dev/null
run 0 stop
expect 6 "$TRACE" 'hello:tptest' "3 records of the first rule, 3 of the second (intfield 5..7)"
if [ "$kernel" = 1 ]; then
	n=$(count "$TRACE" 'syscall_entry_openat')
	m=$(count "$TRACE" "filename = \"$TMP/flt-a\"")
	[ "$n" = "$m" ] && [ "$n" -ge 3 ] ||
		fail "kernel filter: $n openat records, $m of $TMP/flt-a (expected only those, 3 at least)"
fi
run 0 destroy fl
finish
