# SPDX-License-Identifier: MIT
# Shared by the relay-*.sh tests (sourced, bash; arguments STRATA RELAYD APP).
#
# A test host is a network namespace joined to this one by a veth pair
# (host K is 10.N.K.2, this side 10.N.K.1), with its own mount, UTS and PID
# namespaces: its hostname, a private /run/lttng and /dev/shm, and a private
# lttng-sessiond (--no-kernel, LTTNG_HOME in the test's directory) as its
# PID 1, so that stopping it ends everything the host ran. Commands run in
# a host through in_host. Relays (strata-relayd, lttng-relayd) and viewers
# run in this namespace, children of the test, killed and reaped at exit.
#
# Skips (77) with the reason without root, network namespaces, lttng-tools
# or babeltrace2, or when lttng-sessiond cannot run here.

STRATA=$(realpath "${1:?usage: $0 STRATA RELAYD APP}")
RELAYD=$(realpath "${2:?}")
APP=$(realpath "${3:?}")
TMP=$(mktemp -d /tmp/strata-e2e-relay.XXXXXX) || exit 1
chmod 755 "$TMP"
FAILS=0
PIDS="" # children to kill at exit
HOSTS=""
# One /16 of 10.0.0.0/8 per test process, one /24 per host.
NET=10.$((100 + $$ % 150))
TAG=$(printf '%x' $(($$ % 65536)))

relay_cleanup() {
	local pid h
	for h in $HOSTS; do
		host_down "$h"
	done
	for pid in $PIDS; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap relay_cleanup EXIT
trap 'exit 1' INT TERM

skip() {
	echo "skipping: $*"
	exit 77
}

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

finish() {
	if [ "$FAILS" != 0 ]; then
		echo "$FAILS failure(s)"
		exit 1
	fi
	echo "ok"
	exit 0
}

# wait_for SECONDS CMD...: run CMD every 0.1 s until it succeeds; 1 after SECONDS.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# wait_exit SECONDS PID: wait for our child PID to exit; its status in $RC (124: timeout).
wait_exit() {
	local deadline=$((SECONDS + $1))
	while kill -0 "$2" 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			RC=124
			return 1
		fi
		sleep 0.1
	done
	wait "$2"
	RC=$?
}

relay_require() {
	[ "$(id -u)" = 0 ] || skip "test hosts are network namespaces, which need root"
	local t
	for t in ip nsenter unshare lttng lttng-sessiond babeltrace2; do
		command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps)"
	done
	ip netns add "strata-probe-$TAG" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "strata-probe-$TAG"
}

# --- hosts -------------------------------------------------------------------------

# host_up NAME K: start host NAME (hostname NAME) as 10.N.K.2.
host_up() {
	local name=$1 k=$2 ns vo vi keeper inner
	ns="strata-$TAG-$name" vo="sr$TAG$k" vi="sh$TAG$k"
	ip netns add "$ns" || return 1
	ip link add "$vo" type veth peer name "$vi" &&
		ip link set "$vi" netns "$ns" &&
		ip addr add "$NET.$k.1/24" dev "$vo" && ip link set "$vo" up &&
		ip -n "$ns" addr add "$NET.$k.2/24" dev "$vi" && ip -n "$ns" link set "$vi" up &&
		ip -n "$ns" link set lo up || return 1
	mkdir -p "$TMP/$name"
	ip netns exec "$ns" unshare --pid --fork --mount --uts --propagation private --mount-proc \
		sh -c "hostname '$name' && mount -t tmpfs none /run/lttng && mount -t tmpfs none /dev/shm &&
		       exec env LTTNG_HOME='$TMP/$name' lttng-sessiond --no-kernel" \
		>"$TMP/$name.sessiond.log" 2>&1 &
	keeper=$!
	PIDS="$PIDS $keeper"
	HOSTS="$HOSTS $name"
	eval "HOST_KEEPER_$name=$keeper HOST_LINK_$name=$vo HOST_NS_$name=$ns"
	if ! wait_for 10 has_child "$keeper"; then
		cat "$TMP/$name.sessiond.log"
		fail "host $name did not start (its log above)"
		return 1
	fi
	inner=$(awk '{ print $1 }' "/proc/$keeper/task/$keeper/children")
	eval "HOST_PID_$name=$inner"
	if ! wait_for 15 in_host "$name" test -S /run/lttng/client-lttng-sessiond; then
		cat "$TMP/$name.sessiond.log"
		skip "lttng-sessiond does not start here (its log above)"
	fi
}

# has_child PID: PID (ours) has a child (/proc's children files have no size).
has_child() {
	[ -n "$(cat "/proc/$1/task/$1/children" 2>/dev/null)" ]
}

# in_host NAME CMD...: run CMD on host NAME.
in_host() {
	local name=$1 pid
	shift
	eval "pid=\$HOST_PID_$name"
	nsenter -t "$pid" -n -m -u -p env LTTNG_HOME="$TMP/$name" "$@"
}

host_down() {
	local name=$1 pid keeper ns link
	eval "pid=\$HOST_PID_$name keeper=\$HOST_KEEPER_$name ns=\$HOST_NS_$name link=\$HOST_LINK_$name"
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
	[ -n "$keeper" ] && { wait_exit 10 "$keeper" || kill -KILL "$pid" "$keeper" 2>/dev/null; }
	[ -n "$link" ] && ip link del "$link" 2>/dev/null
	[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
	eval "HOST_PID_$name= HOST_KEEPER_$name= HOST_NS_$name= HOST_LINK_$name="
}

# host_addr K: this namespace's address as host K sees it.
host_addr() {
	echo "$NET.$1.1"
}

# link_set NAME up|down: cut or restore host NAME's link.
link_set() {
	local link
	eval "link=\$HOST_LINK_$1"
	ip link set "$link" "$2"
}

# --- relays ------------------------------------------------------------------------

# relay_start NAME [ARGS...]: strata-relayd (-v) writing below $TMP/NAME,
# control/data on every address, live on 127.0.0.1; ports in $CTRL $DATA $LIVE
# (chosen here, or kept from a previous start of the same NAME).
relay_start() {
	local name=$1 try base pid
	shift
	for try in 1 2 3 4 5; do
		if [ -z "${KEEP_PORTS:-}" ]; then
			base=$((20000 + (RANDOM % 4000) * 10))
			CTRL=$base DATA=$((base + 1)) LIVE=$((base + 2))
		fi
		"$RELAYD" -v -o "$TMP/$name" -C "tcp://0.0.0.0:$CTRL" -D "tcp://0.0.0.0:$DATA" \
			-L "tcp://127.0.0.1:$LIVE" "$@" >>"$TMP/$name.log" 2>&1 &
		pid=$!
		PIDS="$PIDS $pid"
		if wait_for 10 grep -q Listening "$TMP/$name.log"; then
			RELAY_PID=$pid
			return 0
		fi
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		[ -z "${KEEP_PORTS:-}" ] || break
	done
	cat "$TMP/$name.log"
	fail "strata-relayd did not start"
	return 1
}

# relay_stop: SIGTERM to the strata-relayd started last; it must exit 0
# (in the ASan build, that is also its leak check).
relay_stop() {
	kill -TERM "$RELAY_PID"
	wait_exit 10 "$RELAY_PID" || fail "strata-relayd did not exit on SIGTERM"
	[ "$RC" = 0 ] || { fail "strata-relayd exited $RC"; tail -20 "$TMP/relay.log"; }
}

# lttng_relay_start NAME: the same with lttng-relayd.
lttng_relay_start() {
	local name=$1 try base pid
	for try in 1 2 3 4 5; do
		base=$((20000 + (RANDOM % 4000) * 10))
		CTRL=$base DATA=$((base + 1)) LIVE=$((base + 2))
		LTTNG_HOME="$TMP" lttng-relayd -o "$TMP/$name" -C "tcp://0.0.0.0:$CTRL" \
			-D "tcp://0.0.0.0:$DATA" -L "tcp://127.0.0.1:$LIVE" >"$TMP/$name.log" 2>&1 &
		pid=$!
		PIDS="$PIDS $pid"
		if wait_for 10 listening "$LIVE"; then
			RELAY_PID=$pid
			return 0
		fi
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	fail "lttng-relayd did not start"
	return 1
}

# listening PORT: something listens on 127.0.0.1:PORT.
listening() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# --- sessions ------------------------------------------------------------------------

# session HOST K NAME [CREATE ARGS...]: an lttng session on HOST streaming to
# the relay, relaytest:* enabled, started.
session() {
	local host=$1 k=$2 name=$3
	shift 3
	in_host "$host" lttng create "$name" --set-url="net://$(host_addr "$k"):$CTRL:$DATA" "$@" \
		>"$TMP/$host-$name.create" 2>&1 &&
		in_host "$host" lttng enable-event -u 'relaytest:*' -s "$name" >/dev/null &&
		in_host "$host" lttng start "$name" >/dev/null ||
		{
			cat "$TMP/$host-$name.create"
			fail "session $name on $host could not start"
			return 1
		}
}

# session_end HOST NAME: stop and destroy (bounded).
session_end() {
	timeout 60 nsenter -t "$(eval echo "\$HOST_PID_$1")" -n -m -u -p env LTTNG_HOME="$TMP/$1" \
		lttng destroy "$2" >/dev/null 2>&1 || fail "destroying session $2 on $1 failed or hung"
}

# viewer_start VAR READER HOST SESSION OUT: READER (strata or babeltrace2)
# reads net://127.0.0.1:$LIVE/host/HOST/SESSION live into OUT (its stderr
# into OUT.err), in the background; its pid in $VAR.
viewer_start() {
	local var=$1 reader=$2 url="net://127.0.0.1:$LIVE/host/$3/$4" out=$5
	if [ "$reader" = strata ]; then
		"$STRATA" view "$url" >"$out" 2>"$out.err" &
	else
		babeltrace2 --input-format=lttng-live "$url" >"$out" 2>"$out.err" &
	fi
	PIDS="$PIDS $!"
	eval "$var=$!"
}

# viewer_end PID WHAT OUT: the viewer ends within 60 s, with status 0.
viewer_end() {
	if ! wait_exit 60 "$1"; then
		fail "$2 did not end"
	elif [ "$RC" != 0 ]; then
		fail "$2 exited $RC: $(cat "$3.err")"
	fi
}

# apps_wait PID...: every app (our children) exits 0 within 60 s.
apps_wait() {
	local p
	for p in "$@"; do
		wait_exit 60 "$p" && [ "$RC" = 0 ] || fail "an app failed ($RC)"
	done
}

# viewers_attached NAME COUNT: the live list shows COUNT clients of session NAME.
viewers_attached() {
	"$STRATA" view "net://127.0.0.1:$LIVE" | grep -q "/$1 (.*, $2 client(s) connected)"
}

# trace_dir RELAY HOST NAME: the session directory a relay wrote.
trace_dir() {
	local d
	for d in "$TMP/$1/$2/$3"-*; do
		[ -d "$d" ] && echo "$d"
	done
}

# same_output A B WHAT: the two files are identical and not empty.
same_output() {
	if [ ! -s "$1" ]; then
		fail "$3: no output"
	elif ! cmp -s "$1" "$2"; then
		fail "$3: outputs differ"
		diff "$1" "$2" | head -5
	fi
}

# events FILE WHO: the number of relaytest:event lines of WHO.
events() {
	grep -c "relaytest:event: .*who = \"$2\"" "$1"
}
