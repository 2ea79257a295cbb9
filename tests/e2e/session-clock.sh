#!/bin/bash
# SPDX-License-Identifier: MIT
# User-space timestamps taken from the TSC through strata-sessiond's clock
# page are CLOCK_MONOTONIC: two apps (two threads each, sharing the per-UID
# buffers) record events for over a second (several page refreshes), each
# carrying the CLOCK_MONOTONIC value the app read just before it; every
# record's timestamp must lie between its own stamp and the next event's
# (within TOL_NS, the calibration error bound), and increase per stream.
# Usage: session-clock.sh STRATA STRATA-SESSIOND CLOCK-APP
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
APP=$3
. "$(dirname "$0")/session-lib.sh"

require_tools babeltrace2 python3
if ! grep -qw constant_tsc /proc/cpuinfo; then
	echo "no invariant TSC: the daemon publishes no clock page; skipping"
	exit 77
fi

create_session clock
run 0 enable-event -u 'ustbench:ev'
run 0 add-context -u -t vtid
run 0 start
STRATA_UST_DEBUG=1 "$APP" 2 2000 400 >"$TMP/app1.out" 2>"$TMP/app1.err" &
p1=$!
CHILD_PIDS="$CHILD_PIDS $p1"
STRATA_UST_DEBUG=1 "$APP" 2 2000 400 >"$TMP/app2.out" 2>"$TMP/app2.err" &
p2=$!
CHILD_PIDS="$CHILD_PIDS $p2"
wait $p1 || fail "app 1 failed: $(tail -3 "$TMP/app1.err")"
wait $p2 || fail "app 2 failed: $(tail -3 "$TMP/app2.err")"
run 0 stop
for i in 1 2; do
	grep -q 'clock page mapped' "$TMP/app$i.err" || fail "app $i did not map the clock page"
done

babeltrace2 --clock-cycles "$TRACE" >"$TMP/bt.out" 2>"$TMP/bt.err" || fail "babeltrace2 failed"
[ -s "$TMP/bt.err" ] && fail "babeltrace2 complained: $(head -3 "$TMP/bt.err")"
python3 - "$TMP/bt.out" <<'PY' || fail "timestamps do not interleave with CLOCK_MONOTONIC"
import re, sys
TOL_NS = 2000
line_re = re.compile(r'^\[(\d+)\].*vtid = (\d+) \}, \{ a = (\d+), b = (\d+) \}')
by_thread = {}
n = 0
for line in open(sys.argv[1]):
    m = line_re.match(line)
    if not m:
        continue
    ts, vtid, a, b = (int(x) for x in m.groups())
    by_thread.setdefault(vtid, []).append((a & 0xffffffff, b, ts))
    n += 1
if n != 8000:
    sys.exit(f"expected 8000 events, found {n}")
worst_lo = worst_hi = 0
bad = 0
for vtid, evs in by_thread.items():
    evs.sort()
    for k, (i, b, ts) in enumerate(evs):
        if i != k:
            sys.exit(f"vtid {vtid}: event {k} missing")
        nxt = evs[k + 1][1] if k + 1 < len(evs) else None
        worst_lo = max(worst_lo, b - ts)
        if nxt is not None:
            worst_hi = max(worst_hi, ts - nxt)
        if ts + TOL_NS < b or (nxt is not None and ts > nxt + TOL_NS):
            bad += 1
            if bad <= 5:
                print(f"vtid {vtid} event {k}: stamp {b}, timestamp {ts}, next stamp {nxt}")
print(f"{n} events; timestamp before its stamp by at most {worst_lo} ns, "
      f"after the next stamp by at most {worst_hi} ns (tolerance {TOL_NS} ns)")
sys.exit(1 if bad else 0)
PY
run 0 destroy
finish
