#!/bin/bash
# SPDX-License-Identifier: MIT
# The switch timer under load: two apps record for a fraction of a second each into
# per-user buffers whose sub-buffers a 2 ms switch timer keeps closing,
# RUNS times. A packet the consumer closes must end after every record in
# it and before every record of the next one: both readers read every trace
# whole (no "times go back") with every event.
# Usage: session-switch-load.sh STRATA STRATA-SESSIOND HELLO [RUNS]
set -u
STRATA=$1
export STRATA_SESSIOND_PATH=$2
HELLO=$3
RUNS=${4:-20}
. "$(dirname "$0")/session-lib.sh"

require_babeltrace2
for run in $(seq "$RUNS"); do
	create_session "sw$run"
	run 0 enable-channel -u --switch-timer 2000 --subbuf-size 16384 --num-subbuf 8 swc
	run 0 enable-event -u -c swc 'hello:*'
	run 0 start
	"$HELLO" -n 5000 -d 40 >/dev/null 2>&1 &
	p1=$!
	"$HELLO" -n 5000 -d 40 >/dev/null 2>&1 || fail "run $run: hello failed"
	wait "$p1" || fail "run $run: the other hello failed"
	run 0 stop
	run 0 list "sw$run"
	lost=$(printf '%s\n' "$OUT" | sed -n 's/^ *Discarded events: //p' | head -n 1)
	babeltrace2 "$TRACE" >"$TMP/bt.out" 2>"$TMP/bt.err" ||
		fail "run $run: babeltrace2 failed: $(head -c 300 "$TMP/bt.err")"
	"$STRATA" view "$TRACE" >"$TMP/view.out" 2>"$TMP/view.err" ||
		fail "run $run: strata view failed: $(head -c 300 "$TMP/view.err")"
	cmp -s "$TMP/bt.out" "$TMP/view.out" || fail "run $run: strata view differs from babeltrace2"
	n=$(grep -c 'hello:tptest' "$TMP/bt.out")
	w=$(warned "$TMP/bt.err")
	[ "$((n + w))" = 10000 ] && [ "$w" = "${lost:-0}" ] ||
		fail "run $run: $n recorded + $w discarded in the trace, the daemon counted ${lost:-?} lost; 10000 emitted"
	run 0 destroy "sw$run"
	if [ "$FAILS" -ne 0 ]; then
		[ -n "${KEEP_FAILED:-}" ] && cp -r "$TRACE" "$KEEP_FAILED"
		break
	fi
done
finish
