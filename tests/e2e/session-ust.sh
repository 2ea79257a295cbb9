#!/bin/bash
# SPDX-License-Identifier: MIT
# User-space tracing through a real strata-sessiond: a traced app (the
# protocol-level session-fake-app) registered before the session starts and
# another one after, per-user and per-process buffers, restart, and the
# trace read back by babeltrace2 (and `strata view`) with every event.
# Usage: session-ust.sh STRATA STRATA-SESSIOND FAKE-APP
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
APP=$3
. "$(dirname "$0")/session-lib.sh"

require_babeltrace2

# start_app K N [THREADS [hold]]: a fake app emitting N events per START
# (from each of THREADS threads), its output on fd 10+K
start_app() {
	local fifo="$TMP/app$1.fifo"
	mkfifo "$fifo"
	"$APP" "$2" "${3:-1}" ${4:+"$4"} >"$fifo" 2>"$TMP/app$1.err" &
	CHILD_PIDS="$CHILD_PIDS $!"
	APP_PID=$!
	eval "exec $((10 + $1))<\"$fifo\""
}

count_events() { # count_events DIR: events babeltrace2 prints
	babeltrace2 "$1" 2>"$TMP/bt.err" | grep -c 'fake:event'
}

reap_apps() {
	for p in $CHILD_PIDS; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	CHILD_PIDS=""
}

create_session demo
run 0 enable-event -u 'fake:*'
run 0 add-context -u -t vpid -t vtid

# Malformed registrations are dropped and leave the daemon serving others.
if command -v python3 >/dev/null; then
	python3 - "$STRATA_RUNDIR/ust.sock" <<'PY' || fail "malformed app messages were not refused"
import socket, struct, sys
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    s.connect(path)
    return s
def closed(s):
    return s.recv(4096) == b''
MAGIC = 0x53545255
def register(kind):
    return struct.pack('<IHHIIHHBBBBIIIII4xQ16s', MAGIC, 1, 0, 72, 1, 2, 0, kind, 64, 0, 0,
                       1, 1, 0, 0, 0, 42, b'evil')
s = conn(); s.send(b'\0' * 7); assert closed(s), 'short message'
s = conn(); s.send(b'\xff' * 72); assert closed(s), 'bad magic'
s = conn(); s.send(register(9)); assert closed(s), 'bad socket kind'
s = conn(); s.send(register(2)); rep = s.recv(4096)
assert len(rep) == 24 and struct.unpack('<i', rep[16:20])[0] == 0, 'valid register refused'
# A tracepoint list claiming more entries than it carries.
s.send(struct.pack('<IHHIIII', MAGIC, 3, 0, 24, 2, 1000, 0)); assert closed(s), 'bad list'
PY
fi
run 0 list -u
has "$OUT" "None" "list -u after malformed apps"

# An app started before `start` is traced from `start` on.
start_app 1 5000
expect_line 11 registered "app 1 registration"
PID1=$APP_PID
run 0 list -u
has "$OUT" "PID: $PID1 - Name: fake-app" "list -u"
has "$OUT" "      fake:event (loglevel: TRACE_DEBUG_LINE (13)) (type: tracepoint)" "list -u"

run 0 start
expect_line 11 "emitted 5000" "app 1 emission"
run 0 stop
n=$(count_events "$TRACE")
[ "$n" = 5000 ] || fail "expected 5000 events after the first run, babeltrace2 shows $n"
[ -f "$TRACE/ust/uid/$(id -u)/64-bit/metadata" ] || fail "no per-UID metadata"
[ -f "$TRACE/ust/uid/$(id -u)/64-bit/index/channel0_0.idx" ] || fail "no index"
first=$(babeltrace2 "$TRACE" 2>/dev/null | head -1)
has "$first" "fake:event: { cpu_id = " "event line"
has "$first" "{ vpid = $PID1, vtid = $PID1 }, { value = 0, msg = \"msg-0\" }" "event fields"
[ -s "$TMP/bt.err" ] && fail "babeltrace2 complained: $(cat "$TMP/bt.err")"

# Restart: the app emits again; an app started while active joins at once.
run 0 start
expect_line 11 "emitted 5000" "app 1 second emission"
start_app 2 100
expect_line 12 registered "app 2 registration"
expect_line 12 "emitted 100" "app 2 emission"
run 0 stop
n=$(count_events "$TRACE")
[ "$n" = 10100 ] || fail "expected 10100 events after the second run, babeltrace2 shows $n"

if "$STRATA" view "$TRACE" >"$TMP/view.out" 2>"$TMP/view.err"; then
	n=$(grep -c 'fake:event' "$TMP/view.out")
	[ "$n" = 10100 ] || fail "strata view shows $n events, expected 10100"
else
	fail "strata view failed: $(cat "$TMP/view.err")"
fi

# Per-process buffers: a trace directory per app.
run 0 create pidsess
PTRACE=$(printf '%s\n' "$OUT" | sed -n 's/^Traces will be output to //p')
run 0 enable-channel -u --buffers-pid chan
run 0 enable-event -u -c chan -a
run 0 start
start_app 3 10
expect_line 13 registered "app 3 registration"
expect_line 13 "emitted 10" "app 3 emission"
run 0 stop
dir=$(ls -d "$PTRACE"/ust/pid/fake-app-"$APP_PID"-* 2>/dev/null)
[ -n "$dir" ] || fail "no per-PID trace directory for pid $APP_PID"
n=$(count_events "$dir")
[ "$n" = 10 ] || fail "expected 10 events in the per-PID trace, found $n"

# Tiny buffers in discard mode: every event is either recorded or counted
# as discarded, exactly. The app holds its first record until the end, so
# its buffer fills up whatever the consumer's speed.
reap_apps
run 0 create tiny
TTRACE=$(printf '%s\n' "$OUT" | sed -n 's/^Traces will be output to //p')
run 0 enable-channel -u --subbuf-size 4096 --num-subbuf 2 small
run 0 enable-event -u -c small 'fake:*'
run 0 start
start_app 4 50000 1 hold
expect_line 14 registered "app 4 registration"
expect_line 14 "emitted 50000" "app 4 emission"
run 0 list tiny
live=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p')
[ "${live:-0}" -gt 0 ] || fail "an active session's listing shows no discarded events"
run 0 stop
run 0 list tiny
lost=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p')
[ "${lost:-0}" -gt 0 ] || fail "tiny buffers discarded nothing"
trace_check "$TTRACE" fake:event 50000 "$lost"

# Concurrent writers at full speed, losses racing with sub-buffer closes
# (the held record blocks one buffer until the first thread ends, the
# others keep writing): the trace's per-packet counts still add up exactly.
reap_apps
run 0 create multi
MTRACE=$(printf '%s\n' "$OUT" | sed -n 's/^Traces will be output to //p')
run 0 enable-channel -u --subbuf-size 16384 --num-subbuf 4 mt
run 0 enable-event -u -c mt 'fake:*'
run 0 add-context -u -c mt -t vtid
run 0 start
start_app 6 150000 3 hold
expect_line 16 registered "app 6 registration"
expect_line 16 "emitted 450000" "app 6 emission"
run 0 stop
run 0 list multi
lost=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p')
[ "${lost:-0}" -gt 0 ] || fail "concurrent writers on small buffers discarded nothing"
trace_check "$MTRACE" fake:event 450000 "$lost"

run 0 destroy -a

# A daemon told to exit flushes the sessions still recording.
reap_apps
run 0 create term
XTRACE=$(printf '%s\n' "$OUT" | sed -n 's/^Traces will be output to //p')
run 0 enable-event -u 'fake:*'
run 0 start
start_app 5 300
expect_line 15 registered "app 5 registration"
expect_line 15 "emitted 300" "app 5 emission"
DPID=$(cat "$STRATA_RUNDIR/sessiond.pid")
kill -TERM "$DPID"
timeout 10 tail --pid="$DPID" -f /dev/null || fail "the daemon did not exit on SIGTERM"
n=$(count_events "$XTRACE")
[ "$n" = 300 ] || fail "expected 300 events flushed at daemon exit, found $n"
[ -e "$STRATA_RUNDIR/control.sock" ] && fail "control socket left behind"
finish
