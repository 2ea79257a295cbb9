#!/bin/bash
# SPDX-License-Identifier: MIT
# The command lines of strata-relayd and `strata view net://`, without peers
# (no root needed): bad URLs and options are refused with a message and
# status 1, an absent relay is status 2, and against a running strata-relayd
# with no session the list is empty and a session that is not there ends
# the reading at once (as babeltrace2 does), with a warning.
STRATA=${1:?usage: $0 STRATA RELAYD}
RELAYD=${2:?}
TMP=$(mktemp -d /tmp/strata-e2e-relay-cli.XXXXXX) || exit 1
FAILS=0
RELAY=
cleanup() {
	[ -n "$RELAY" ] && { kill -KILL "$RELAY" 2>/dev/null; wait "$RELAY" 2>/dev/null; }
	rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

# expect STATUS NEEDLE CMD...: CMD exits STATUS, its stderr holds NEEDLE.
expect() {
	local want=$1 needle=$2 got
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	[ "$got" = "$want" ] || fail "$*: exit $got, expected $want ($(cat "$TMP/err"))"
	grep -qF -- "$needle" "$TMP/err" || fail "$*: '$needle' not in: $(cat "$TMP/err")"
}

expect 1 "Invalid live URL 'net://'" "$STRATA" view net://
expect 1 "no HOSTNAME/SESSION after /host/" "$STRATA" view net://localhost/host/h
expect 1 "unexpected '/' after the session name" "$STRATA" view net://localhost/host/h/s/
expect 1 "'/host/' should follow" "$STRATA" view net://localhost:5344/hosts/h/s
expect 1 "no relay HOST[:PORT]" "$STRATA" view 'net6://[::1'
expect 1 "--begin, --end and --timerange do not apply" "$STRATA" view --begin=1 net://localhost/host/h/s
expect 1 "other inputs do not apply" "$STRATA" view net://localhost/host/h/s /tmp
expect 1 "output formats other than text" "$STRATA" view -o dummy net://localhost/host/h/s

expect 1 "Invalid URL 'udp://x'" "$RELAYD" -o "$TMP/none" -C udp://x
expect 1 "Invalid URL 'tcp://h:99999'" "$RELAYD" -o "$TMP/none" -D tcp://h:99999
expect 1 "Unknown option '--nope'" "$RELAYD" --nope
expect 1 "Unexpected argument 'extra'" "$RELAYD" extra
expect 1 "STRATA_RELAYD_TEST_TIMEOUT_MS='0'" env STRATA_RELAYD_TEST_TIMEOUT_MS=0 "$RELAYD" -o "$TMP/none"
"$RELAYD" --help | grep -q "^Usage: strata-relayd" || fail "strata-relayd --help"
[ ! -e "$TMP/none" ] || fail "refused command lines made the output directory"

# A running relay on free ports (tried until one set binds).
for try in 1 2 3 4 5; do
	base=$((20000 + (RANDOM % 4000) * 10))
	"$RELAYD" -v -o "$TMP/traces" -C "tcp://127.0.0.1:$base" -D "tcp://127.0.0.1:$((base + 1))" \
		-L "tcp://127.0.0.1:$((base + 2))" >"$TMP/relay.log" 2>&1 &
	RELAY=$!
	for i in $(seq 100); do
		grep -q Listening "$TMP/relay.log" && break
		kill -0 "$RELAY" 2>/dev/null || break
		sleep 0.1
	done
	grep -q Listening "$TMP/relay.log" && break
	wait "$RELAY" 2>/dev/null
	RELAY=
done
[ -n "$RELAY" ] || { fail "strata-relayd did not start: $(cat "$TMP/relay.log")"; exit 1; }
live=$((base + 2))
[ -d "$TMP/traces" ] || fail "the output directory was not made"
"$STRATA" view "net://127.0.0.1:$live" >"$TMP/list" 2>&1 || fail "listing failed: $(cat "$TMP/list")"
[ ! -s "$TMP/list" ] || fail "a relay without sessions lists: $(cat "$TMP/list")"
expect 0 "No session 's' of host 'h'" "$STRATA" view "net://127.0.0.1:$live/host/h/s"
[ ! -s "$TMP/out" ] || fail "a session that is not there printed something"
kill -TERM "$RELAY"
wait "$RELAY"
st=$?
RELAY=
[ "$st" = 0 ] || fail "strata-relayd exited $st on SIGTERM"
expect 2 "Cannot connect to the relay daemon at 127.0.0.1:$live" "$STRATA" view "net://127.0.0.1:$live/host/h/s"

[ "$FAILS" = 0 ] || { echo "$FAILS failure(s)"; exit 1; }
echo ok
