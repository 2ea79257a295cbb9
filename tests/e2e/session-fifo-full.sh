#!/bin/bash
# SPDX-License-Identifier: MIT
# The user-space consumer's full FIFO (src/sessiond/trace-ust.c), with a real
# daemon and the hello app: the daemon's queue is 8 KiB
# (STRATA_SESSIOND_QUEUE_MAX) and its writer is held at a gate
# (STRATA_SESSIOND_TEST_WRITE_GATE, a named pipe we keep open without
# writing) while hello, pinned to CPU 0, writes 20000 events into 2 x 4 KiB
# sub-buffers. Then:
#   - hello is not blocked: it exits; the daemon answers `list`, which
#     counts discarded events; no packet reached the files; short hello
#     runs follow until one adds discarded events (the ring is full);
#   - once the gate opens, the writer drains the FIFO and the reader goes
#     back to the ring before `stop`: short hello runs (3 events) follow
#     until `list` shows one added no discarded event, which can only be
#     once the ring was read (bounded: 100 runs), and the trace ends with
#     its events. The reader polls once an hour
#     (STRATA_SESSIOND_TEST_POLL_MS) and the full ring closes no sub-buffer
#     to wake it: only the writer's kick, once it has made room, can;
#   - every stream's packets are whole, in order and written once (index:
#     contiguous offsets, increasing sequence numbers and timestamps), each
#     run's events are in order, and recorded + discarded in the trace ==
#     emitted, discarded == the daemon's count, for babeltrace2 and strata
#     view alike.
# Bad STRATA_SESSIOND_QUEUE_MAX and STRATA_SESSIOND_TEST_POLL_MS values stop
# the daemon with a message.
# Usage: session-fifo-full.sh STRATA STRATA-SESSIOND HELLO
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
HELLO=$3
. "$(dirname "$0")/session-lib.sh"

require_tools babeltrace2 python3 taskset

refuse_setting STRATA_SESSIOND_QUEUE_MAX ': expected a number of bytes from 4096' \
	'' 0 4095 1073741825 12k ' 8192' -8192 99999999999999999999999
refuse_setting STRATA_SESSIOND_TEST_POLL_MS ': expected milliseconds from 1' \
	'' 0 3600001 1s ' 5' -5 99999999999999999999999

mkfifo "$TMP/gate"
export STRATA_SESSIOND_QUEUE_MAX=8192 STRATA_SESSIOND_TEST_WRITE_GATE="$TMP/gate"
export STRATA_SESSIOND_TEST_POLL_MS=3600000

create_session fifo
# Once the daemon runs (it must not inherit the fd: the gate would never
# see end of file); read-write, so that opening does not wait for it.
exec 9<>"$TMP/gate"
run 0 enable-channel -u --subbuf-size 4096 --num-subbuf 2 small
run 0 enable-event -u -c small -a
run 0 add-context -u -c small -t vpid
run 0 start
DIR="$TRACE/ust/uid/$(id -u)/64-bit"

# Phase A: the writer is held; the FIFO fills, then the ring.
timeout 60 taskset -c 0 "$HELLO" -n 20000 >/dev/null 2>&1 ||
	fail "hello (20000 events) did not finish with the writer held: blocked by the daemon?"
run 0 list fifo
held=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p')
[ "${held:-0}" -gt 0 ] || fail "no event discarded with the FIFO full: $OUT"
size=$(stat -c %s "$DIR/small_0" 2>/dev/null)
[ "$size" = 0 ] || fail "$size bytes of packets written while the writer was held"
# The reader may have run late and emptied the ring into a FIFO with room
# left; it holds packets now, so short runs fill the ring again, until one
# adds discarded events (bounded: 200 runs): the FIFO is full and the ring
# too, and the reader waits for the writer's kick.
emitted=20002 before=$held runs=0 full=
while [ "$runs" -lt 200 ] && [ -z "$full" ]; do
	timeout 60 taskset -c 0 "$HELLO" -n 1 >/dev/null 2>&1 || fail "hello (1 event) failed"
	emitted=$((emitted + 3)) runs=$((runs + 1))
	run 0 list fifo
	now=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p')
	[ "$now" != "$before" ] && full=1
	before=$now
done
[ -n "$full" ] || fail "the ring never filled again: $runs runs of hello all recorded"
held=$before

# Phase B: the gate opens for good (end of file); the reader must resume.
exec 9>&-
runs=0 resumed=
while [ "$runs" -lt 100 ] && [ -z "$resumed" ]; do
	timeout 60 taskset -c 0 "$HELLO" -n 1 >/dev/null 2>&1 || fail "hello (1 event) failed"
	emitted=$((emitted + 3)) runs=$((runs + 1))
	run 0 list fifo
	now=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p')
	[ "$now" = "$before" ] && resumed=1
	before=$now
done
[ -n "$resumed" ] || fail "the reader never went back to the ring: $runs runs of hello all discarded"
timeout 60 "$STRATA" stop >"$TMP/out" 2>"$TMP/err" || fail "stop failed or hung: $(cat "$TMP/err")"
run 0 list fifo
lost=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p')

# Packets whole, in order and once, per stream (index format 1.1). CPU 0's
# stream holds at most what the queue (3 packets of ~4 KiB: one more is
# queued while under 8 KiB) and the ring (2) held when the writer was
# released, the runs of phase B (a packet per ~40 events, in their own
# sub-buffers) and a final count: more means the reader went past the bound.
max0=$((3 + 2 + 1 + runs * 3 / 40 + 1))
python3 - "$DIR" "$max0" <<'PY' || fail "packets out of order, written twice, or more than the queue held"
import glob, os, struct, sys
d = sys.argv[1]
bad = 0
n0 = (os.path.getsize(d + '/index/small_0.idx') - 16) // 72
if n0 > int(sys.argv[2]):
    print('small_0: %d packets, at most %s expected' % (n0, sys.argv[2]))
    bad += 1
for idx in sorted(glob.glob(d + '/index/*.idx')):
    data = open(idx, 'rb').read()
    magic, major, minor, elen = struct.unpack('>IIII', data[:16])
    entries = [struct.unpack('>9Q', data[o:o + 72]) for o in range(16, len(data), elen)]
    off = 0
    prev = None
    for e in entries:
        offset, psize, csize, tb, te, disc, sid, inst, seq = e
        why = None
        if offset != off:
            why = 'offset %d, expected %d' % (offset, off)
        elif te < tb:
            why = 'ends before it begins'
        elif prev and seq <= prev[8]:
            why = 'sequence number %d after %d' % (seq, prev[8])
        elif prev and (tb < prev[3] or te < prev[4] or disc < prev[5]):
            why = 'timestamps or discarded count going back'
        if why:
            print('%s packet %d: %s' % (os.path.basename(idx), len(entries), why))
            bad += 1
        off = offset + psize // 8
        prev = e
    stream = os.path.join(d, os.path.basename(idx)[:-4])
    if os.path.getsize(stream) != off:
        print('%s: %d bytes, the index covers %d' % (stream, os.path.getsize(stream), off))
        bad += 1
sys.exit(1 if bad else 0)
PY

"$STRATA" view "$TRACE" >"$TMP/view.out" 2>"$TMP/view.err" || fail "strata view failed"
# Each run's events in order (intfield counts from 0 in each process).
awk '/hello:tptest/ { match($0, /vpid = [0-9]+/); pid = substr($0, RSTART + 7, RLENGTH - 7)
		match($0, /intfield = -?[0-9]+/); v = substr($0, RSTART + 11, RLENGTH - 11) + 0
		if (pid in prev && v <= prev[pid]) { print "pid " pid ": intfield " v " after " prev[pid]; bad = 1 }
		prev[pid] = v }
	END { exit bad }' "$TMP/view.out" || fail "events out of order or repeated"
tail -n 3 "$TMP/view.out" >"$TMP/last"
grep -q 'hello_gen:start' "$TMP/last" && grep -q 'intfield = 0,' "$TMP/last" &&
	grep -q 'hello_gen:stop' "$TMP/last" ||
	fail "the trace does not end with the last run's 3 events: $(head -c 600 "$TMP/last")"
# hello:tptest, and a hello_gen:start and :stop per run.
trace_check "$TRACE" 'hello:tptest\|hello_gen:' "$emitted" "${lost:-x}"
echo "$held events discarded with the writer held, $lost in all, $runs run(s) of hello to see the reader back; $(wc -l <"$TMP/view.out") recorded in $(($(cat "$DIR"/index/*.idx | wc -c) / 72)) packets"
run 0 destroy fifo
finish
