#!/bin/bash
# SPDX-License-Identifier: MIT
# `strata analyze entry-return` on generated traces whose deltas are known
# (tests/gen/entry-return-trace.py): exact means and standard deviations,
# interleaved threads, recursion, a migrated pair, an entry without return,
# a return without entry, --baseline, and the errors.
# Usage: analyze-entry-return.sh STRATA
set -u
STRATA=$1
TMP=$(mktemp -d /tmp/strata-analyze.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}
GEN="$(dirname "$0")/../gen/entry-return-trace.py"
python3 "$GEN" "$TMP" || { echo "generator failed"; exit 1; }

# compare WHICH FILE: the JSON in FILE is expected.json's WHICH, keys exactly.
compare() {
	python3 - "$TMP/expected.json" "$1" "$2" <<'EOF' || fail "$1: $(cat "$2")"
import json, math, sys
want = json.load(open(sys.argv[1]))[sys.argv[2]]
got = json.loads(open(sys.argv[3]).read())
ok = list(got) == ['pairs', 'migrated', 'unmatched', 'fields']
ok = ok and all(got[k] == want[k] for k in ('pairs', 'migrated', 'unmatched'))
ok = ok and sorted(got['fields']) == sorted(want['fields'])
for name, st in got['fields'].items():
    ok = ok and list(st) == ['mean', 'stddev', 'min', 'max']
    for k, v in st.items():
        ok = ok and math.isclose(v, want['fields'][name][k], rel_tol=1e-12, abs_tol=1e-9)
if not ok:
    print('expected', json.dumps(want))
    sys.exit(1)
EOF
}

"$STRATA" analyze entry-return "$TMP/trace" --entry fn_entry --return fn_return --json \
	>"$TMP/out.json" 2>"$TMP/err" || fail "analyze --json exited $?: $(cat "$TMP/err")"
compare trace "$TMP/out.json"

"$STRATA" analyze entry-return "$TMP/baseline" --entry calibrate_entry \
	--return calibrate_return --json >"$TMP/base.json" || fail "analyze of the baseline"
compare baseline "$TMP/base.json"

"$STRATA" analyze entry-return "$TMP/trace" --entry fn_entry --return fn_return \
	--baseline "$TMP/baseline" --json >"$TMP/sub.json" || fail "analyze --baseline"
compare subtracted "$TMP/sub.json"

# The text table: the article's columns, the counts spelled out.
"$STRATA" analyze entry-return "$TMP/trace" --entry fn_entry --return fn_return >"$TMP/out.txt" ||
	fail "analyze (text)"
grep -q 'Average     Std.Dev.' "$TMP/out.txt" || fail "text table header: $(cat "$TMP/out.txt")"
grep -q '9 pairs on one CPU; 1 migrated between CPUs (left out); 2 unmatched (1 entries without return, 1 returns without entry)' \
	"$TMP/out.txt" || fail "text counts: $(cat "$TMP/out.txt")"
grep -Eq '^ +perf_cpu_page_fault: +9 +11\.778 +11\.432 +2\.000 +36\.000$' "$TMP/out.txt" ||
	fail "text row: $(cat "$TMP/out.txt")"
"$STRATA" analyze entry-return "$TMP/trace" --entry fn_entry --return fn_return \
	--baseline "$TMP/baseline" >"$TMP/sub.txt" || fail "analyze --baseline (text)"
grep -q 'Baseline: the means of 4 calibrate_entry/calibrate_return pairs' "$TMP/sub.txt" ||
	fail "baseline line: $(cat "$TMP/sub.txt")"

# No pair: zero counts, no fields.
"$STRATA" analyze entry-return "$TMP/trace" --entry nope_entry --return nope_return --json \
	>"$TMP/none.json" || fail "analyze without pairs"
[ "$(cat "$TMP/none.json")" = '{"pairs": 0, "migrated": 0, "unmatched": 0, "fields": {}}' ] ||
	fail "no pair: $(cat "$TMP/none.json")"

# Errors: no thread context, no trace, a baseline without calibrate pairs, usage.
"$STRATA" analyze entry-return "$TMP/notid" --entry fn_entry --return fn_return >/dev/null \
	2>"$TMP/err"
[ $? = 1 ] && grep -q "has no tid or vtid context" "$TMP/err" || fail "no tid: $(cat "$TMP/err")"
"$STRATA" analyze entry-return "$TMP/nothing-here" --entry a --return b >/dev/null 2>"$TMP/err"
[ $? = 2 ] || fail "missing trace: $(cat "$TMP/err")"
"$STRATA" analyze entry-return "$TMP/trace" --entry fn_entry --return fn_return \
	--baseline "$TMP/trace" >/dev/null 2>"$TMP/err"
[ $? = 1 ] && grep -q "no calibrate_entry/calibrate_return pair" "$TMP/err" ||
	fail "baseline without calibrate: $(cat "$TMP/err")"
"$STRATA" analyze entry-return "$TMP/trace" --entry fn_entry >/dev/null 2>&1
[ $? = 1 ] || fail "missing --return accepted"
"$STRATA" analyze nonsense >/dev/null 2>&1
[ $? = 1 ] || fail "unknown analysis accepted"

if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS check(s) failed"
	exit 1
fi
echo "all checks passed"
