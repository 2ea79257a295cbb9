#!/bin/bash
# SPDX-License-Identifier: MIT
# The session control plane end to end: a real strata-sessiond in a private
# run directory (so the user's daemon is never touched), driven by the real
# CLI through create / enable-channel / enable-event / add-context / start /
# stop / list / status / destroy, checking outputs, error messages, exit
# statuses and that refused commands change nothing.
# Usage: session-control.sh STRATA STRATA-SESSIOND
set -u

STRATA=$1
export STRATA_SESSIOND_PATH=$2
. "$(dirname "$0")/session-lib.sh"

# No current session yet: a clear error.
run 1 status
has "$ERR" "Error: No current recording session" "status without session"
has "$ERR" "strata create" "status without session"
[ ! -e "$STRATA_RUNDIR/control.sock" ] || fail "status spawned a daemon before any request"

# create spawns the daemon and makes the session current.
run 0 create demo
has "$OUT" "Spawning a session daemon" "create"
has "$OUT" "Session demo created." "create"
has "$OUT" "Traces will be output to $HOME/strata-traces/demo-" "create"
[ "$(cat "$HOME/.strata/current-session")" = demo ] || fail "current session is not demo"
[ -S "$STRATA_RUNDIR/control.sock" ] || fail "no control socket"
mode=$(stat -c %a "$STRATA_RUNDIR")
# Root's daemon serves every user's apps: its run directory is searchable.
want=700
[ "$(id -u)" = 0 ] && want=755
[ "$mode" = "$want" ] || fail "run directory mode is $mode, expected $want"

# A second daemon refuses to start.
if "$STRATA_SESSIOND_PATH" --daemonize 2>"$TMP/err2"; then
	fail "a second daemon started"
fi
has "$(cat "$TMP/err2")" "A session daemon is already running" "second daemon"

run 1 create demo
has "$ERR" "Error: Session name 'demo' already exists" "duplicate create"

# Another user cannot reach this daemon (0700 run directory, SO_PEERCRED).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$STRATA" list \
		>"$TMP/other.out" 2>"$TMP/other.err"
	[ $? = 1 ] || fail "another user's strata list did not fail"
	has "$(cat "$TMP/other.err")" "Permission denied" "other user"
	[ "$(stat -c %U "$STRATA_RUNDIR/sessiond.pid")" = root ] || fail "pid file changed owner"
fi
run 1 create 'bad/name'
has "$ERR" "Invalid session name 'bad/name'" "bad create"

run 0 create -o "$TMP/out-dir" other
has "$OUT" "Traces will be output to $TMP/out-dir" "create -o"
run 0 create
has "$OUT" "Session auto-" "auto create"
AUTO=$(printf '%s\n' "$OUT" | sed -n 's/^Session \(auto-[0-9-]*\) created\./\1/p')
[ -n "$AUTO" ] || fail "no auto session name in: $OUT"

# Channels.
run 0 enable-channel -u -s demo --subbuf-size 8k --num-subbuf 3 --overwrite chan
has "$OUT" "ust channel chan enabled for session demo" "enable-channel"
has "$ERR" "Warning: The number of subbuffers (3) is rounded to the next power of 2 (4)" \
	"enable-channel rounding"
run 1 enable-channel -s demo chan2
has "$ERR" "Please specify a domain (-u or -k)" "enable-channel without domain"
run 1 enable-channel -u -s demo --subbuf-size 100 chan2
has "$ERR" "Invalid sub-buffer size 100" "enable-channel tiny"
run 1 enable-channel -u -s demo --buffers-pid chan2
has "$ERR" "buffering scheme mismatch" "enable-channel mixed buffers"
run 1 enable-channel -u -s demo chan
has "$ERR" "Channel 'chan' already exists" "enable-channel twice"
run 1 enable-channel -u -s nosuch c
has "$ERR" "Session 'nosuch' not found" "enable-channel unknown session"

# Events and contexts on the current session (the auto one now): switch back.
run 0 create cur
run 0 enable-event -u 'hello:*'
has "$OUT" "ust event hello:* created in channel channel0" "enable-event"
run 0 enable-event -u foo:bar,foo:baz --loglevel TRACE_INFO
has "$OUT" "ust event foo:bar created in channel channel0" "enable-event list"
has "$OUT" "ust event foo:baz created in channel channel0" "enable-event list"
run 1 enable-event -u 'hello:*'
has "$ERR" "Warning: Event hello:*: ust event already enabled" "enable-event twice"
run 1 enable-event -u -a x:y
has "$ERR" "mutually exclusive" "enable-event -a with names"
run 1 enable-event -u --loglevel BOGUS x:y
has "$ERR" "Unknown log level 'BOGUS'" "enable-event bad loglevel"
run 1 enable-event -u --syscall open
has "$ERR" "--syscall is only available with -k" "enable-event -u --syscall"
run 0 enable-event -u -a -c second
has "$ERR" "" "enable-event -a"
has "$OUT" "All ust events are enabled in channel second" "enable-event -a"
run 0 add-context -u -t vpid -t procname
has "$OUT" "ust context vpid added to all channels" "add-context"
run 1 add-context -u -t bogus
has "$ERR" "Unknown context type 'bogus'" "add-context bogus"
run 1 add-context -u -t vtid -t vpid
has "$ERR" "Context 'vpid' is already in channel" "add-context duplicate"
run 0 disable-event -u foo:baz
has "$OUT" "ust event foo:baz disabled in channel channel0 for session cur" "disable-event"
run 1 disable-event -u nosuch
has "$ERR" "Event 'nosuch' not found in channel 'channel0'" "disable-event unknown"

# The refused commands above changed nothing: the listing is exact.
run 0 list cur
has "$OUT" "Recording session cur: [inactive]" "list cur"
has "$OUT" "      hello:* (type: tracepoint) [enabled]" "list cur"
has "$OUT" "      foo:bar (loglevel <= TRACE_INFO (6)) (type: tracepoint) [enabled]" "list cur"
has "$OUT" "      foo:baz (loglevel <= TRACE_INFO (6)) (type: tracepoint) [disabled]" "list cur"
has "$OUT" "      * (type: tracepoint) [enabled]" "list cur"
n=$(printf '%s\n' "$OUT" | grep -c '^      vpid$')
[ "$n" = 2 ] || fail "vpid should be in both channels, found $n"
n=$(printf '%s\n' "$OUT" | grep -c 'vtid')
[ "$n" = 0 ] || fail "a refused add-context left vtid behind"
n=$(printf '%s\n' "$OUT" | grep -c '^- ')
[ "$n" = 2 ] || fail "expected 2 channels, found $n"

run 0 list
has "$OUT" "Available recording sessions:" "list"
has "$OUT" "demo [inactive]" "list"
has "$OUT" "cur [inactive] (current)" "list"
has "$OUT" "$AUTO [inactive]" "list"

# Start / stop.
run 0 start
has "$OUT" "Tracing started for session cur" "start"
run 1 start
has "$ERR" "Warning: Tracing already started for session cur" "start twice"
run 0 status
has "$OUT" "Recording session cur: [active]" "status"
run 1 add-context -u -t vtid
has "$ERR" "contexts are fixed once a session has been started" "add-context after start"
run 1 enable-channel -u late
has "$ERR" "channels are fixed once a session has been started" "enable-channel after start"
run 0 enable-event -u late:event
has "$OUT" "ust event late:event created in channel channel0" "enable-event while active"
run 0 stop
has "$OUT" "Tracing stopped for session cur" "stop"
run 1 stop
has "$ERR" "Warning: Tracing already stopped for session cur" "stop twice"

run 0 list -u
has "$OUT" "UST events:" "list -u"

# Destroy.
run 0 destroy
has "$OUT" "Session cur destroyed" "destroy"
[ ! -e "$HOME/.strata/current-session" ] || fail "destroyed session still current"
run 1 destroy cur
has "$ERR" "Session 'cur' not found" "destroy twice"
run 0 destroy -a
has "$OUT" "Session demo destroyed" "destroy -a"
has "$OUT" "Session other destroyed" "destroy -a"
run 0 list
has "$OUT" "Currently no available recording session" "list after destroy"

# Usage errors.
run 1 create a b
has "$ERR" "Too many arguments" "create a b"
run 0 create --help
has "$OUT" "Usage: strata create" "create --help"

finish
