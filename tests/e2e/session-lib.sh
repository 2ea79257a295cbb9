# SPDX-License-Identifier: MIT
# Shared by the session-*.sh tests (sourced, bash): a private run directory
# and home for a real strata-sessiond, cleanup that always kills and reaps
# it, and small assertion helpers. Set STRATA and STRATA_SESSIOND_PATH first.

TMP=$(mktemp -d /tmp/strata-e2e-session.XXXXXX) || exit 1
export STRATA_RUNDIR="$TMP/run" HOME="$TMP/home"
unset STRATA_HOME XDG_RUNTIME_DIR
mkdir -p "$HOME"
FAILS=0
CHILD_PIDS=""

session_cleanup() {
	local pidfile="$STRATA_RUNDIR/sessiond.pid" pid
	for pid in $CHILD_PIDS; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	if [ -s "$pidfile" ]; then
		pid=$(cat "$pidfile")
		kill -TERM "$pid" 2>/dev/null
		# Not our child: wait for it to exit (bounded), then make sure.
		timeout 10 tail --pid="$pid" -f /dev/null 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap session_cleanup EXIT INT TERM

# Skip (77) when one of the commands a test needs is missing.
require_tools() {
	local tool
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null; then
			echo "$tool is not installed: skipping"
			exit 77
		fi
	done
}

# Skip (77) when the test's reference reader is missing.
require_babeltrace2() {
	require_tools babeltrace2
}

# create_session NAME [ARGS...]: `strata create`, its trace directory in $TRACE.
create_session() {
	run 0 create "$@"
	TRACE=$(printf '%s\n' "$OUT" | sed -n 's/^Traces will be output to //p')
}

# refuse_setting VAR MESSAGE VALUE...: the daemon started with each VALUE of
# the environment variable VAR exits 1 with MESSAGE ("VAR='VALUE': " before it).
refuse_setting() {
	local var=$1 msg=$2 bad st
	shift 2
	for bad in "$@"; do
		env "$var=$bad" "$STRATA_SESSIOND_PATH" >"$TMP/out" 2>"$TMP/err"
		st=$?
		[ "$st" = 1 ] || fail "$var='$bad': the daemon exited $st, expected 1"
		has "$(cat "$TMP/err")" "$var='$bad'$msg" "bad $var"
	done
}

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

# run EXPECTED_STATUS ARGS...: strata's stdout in $OUT, stderr in $ERR
run() {
	local want=$1 got
	shift
	"$STRATA" "$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	if [ "$got" != "$want" ]; then
		fail "strata $* exited $got, expected $want"
		echo "  stdout: $OUT"
		echo "  stderr: $ERR"
	fi
}

has() { # has TEXT NEEDLE WHAT
	case "$1" in
	*"$2"*) ;;
	*) fail "$3: '$2' not found in: $1" ;;
	esac
}

# expect_line FD PATTERN WHAT: read lines from FD (10 s at most) until one
# matches PATTERN (a glob); the line is left in $LINE.
expect_line() {
	local fd=$1 pattern=$2
	while IFS= read -r -t 10 LINE <&"$fd"; do
		case "$LINE" in
		$pattern) return 0 ;;
		esac
	done
	fail "$3: no line matching '$pattern'"
	return 1
}

warned() { # warned FILE: the sum of the "Tracer discarded N event(s)" warnings
	sed -n 's/^WARNING: Tracer discarded \([0-9]*\) events\{0,1\} .*/\1/p' "$1" |
		awk '{ s += $1 } END { print s + 0 }'
}

# trace_check DIR PATTERN EMITTED LOST: the events recorded (lines matching
# the grep regex PATTERN) + the trace's discarded-event warnings
# (events_discarded, up to the last losses after the final packet closed)
# == EMITTED, and the warnings == the daemon's count LOST, for babeltrace2
# and strata view alike.
trace_check() {
	local n w
	n=$(babeltrace2 "$1" 2>"$TMP/bt.err" | grep -c "$2")
	w=$(warned "$TMP/bt.err")
	[ "$((n + w))" = "$3" ] && [ "$w" = "$4" ] ||
		fail "babeltrace2: recorded ($n) + discarded in the trace ($w) should be the $3 emitted, the daemon counted $4"
	n=$("$STRATA" view "$1" 2>"$TMP/view.err" | grep -c "$2")
	w=$(warned "$TMP/view.err")
	[ "$((n + w))" = "$3" ] && [ "$w" = "$4" ] ||
		fail "strata view: recorded ($n) + discarded in the trace ($w) should be the $3 emitted, the daemon counted $4"
}

finish() {
	if [ "$FAILS" -ne 0 ]; then
		echo "$FAILS check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}
