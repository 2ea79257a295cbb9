#!/bin/bash
# Re-creates the golden LTTng traces under tests/traces/lttng/ with the real
# lttng-tools 2.13 + lttng-ust (run by hand as root, never at test time):
#
#   tests/gen/lttng/make-traces.sh [NAME...]     (default: every trace)
#
# Each trace is recorded into a temporary directory, then copied (session
# directory layout kept) to tests/traces/lttng/NAME. Regenerating changes
# timestamps, pids and addresses, so the e2e tests compare strata with
# babeltrace2 rather than with stored output.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dest=$root/tests/traces/lttng
work=$(mktemp -d /tmp/strata-lttng-gen.XXXXXX)
trap 'lttng destroy -a >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
pgrep -x lttng-sessiond >/dev/null || lttng-sessiond -d

cc -O2 -Wall -Wextra -I"$here" -o "$work/rtest-app" \
	"$here/rtest-app.c" "$here/rtest-tp.c" -llttng-ust -ldl -lm
cc -O1 -Wall -Wextra -finstrument-functions -o "$work/helpers-app" "$here/helpers-app.c" \
	-llttng-ust -ldl -lpthread
# A second binary name gives the per-PID trace two procnames.
cp "$work/rtest-app" "$work/rtest-other"
app=$work/rtest-app

session() { # NAME [lttng create options...]
	local name=$1
	shift
	lttng create "$name" --output="$work/out-$name" "$@" >/dev/null
}

finish() { # NAME: stop, destroy and install the session output as NAME
	local name=$1
	lttng stop "$name" >/dev/null 2>&1 || true
	lttng destroy "$name" >/dev/null
	rm -rf "${dest:?}/$name"
	mkdir -p "$dest"
	cp -r "$work/out-$name" "$dest/$name"
	chmod -R u+rwX,go+rX "$dest/$name"
}

ctx_basic=(-t vpid -t vtid -t procname)

# A: per-UID, contexts vpid/vtid/procname/pthread_id/ip, one app per CPU so
# both stream files hold events that interleave.
trace_uid_ctx() {
	session uid-ctx
	lttng enable-event -u 'rtest:*' >/dev/null
	lttng add-context -u "${ctx_basic[@]}" -t pthread_id -t ip >/dev/null
	lttng start >/dev/null
	taskset -c 0 "$app" paced 2 2000 &
	taskset -c 1 "$app" paced 2 2000 &
	wait
	finish uid-ctx
}

# B: per-PID buffers, two applications with different names → two traces
# (two metadata files), env carries procname and vpid.
trace_pid_two() {
	session pid-two
	lttng enable-channel -u --buffers-pid channel0 >/dev/null
	lttng enable-event -u -c channel0 'rtest:ints,rtest:string,rtest:enums,rtest:empty' >/dev/null
	lttng start >/dev/null
	taskset -c 0 "$app" all 1
	taskset -c 1 "$work/rtest-other" all 1
	finish pid-two
}

# C: tiny sub-buffers and a burst → discarded events (cumulative counters).
trace_discard() {
	session discard
	lttng enable-channel -u --subbuf-size 4096 --num-subbuf 2 chd >/dev/null
	lttng enable-event -u -c chd 'rtest:load,rtest:empty' >/dev/null
	lttng add-context -u -c chd "${ctx_basic[@]}" >/dev/null
	lttng start >/dev/null
	taskset -c 0 "$app" burst 2500
	taskset -c 0 "$app" paced 1 0 >/dev/null 2>&1 || true
	taskset -c 0 "$app" burst 1200
	finish discard
}

# Several packets per stream file on CPU 0 (small sub-buffers, paced app).
multi_packet_session() { # NAME
	session "$1"
	lttng enable-channel -u --subbuf-size 4096 --num-subbuf 4 chp >/dev/null
	lttng enable-event -u -c chp 'rtest:*' >/dev/null
	lttng add-context -u -c chp "${ctx_basic[@]}" >/dev/null
	lttng start >/dev/null
	for _ in 1 2 3 4 5 6; do
		taskset -c 0 "$app" all 1
	done
	finish "$1"
}

# D: a middle packet removed → packet_seq_num gap ("discarded 1 packet").
trace_lost_packet() {
	multi_packet_session lost-packet
	local dir=$dest/lost-packet/ust/uid/0/64-bit
	local n
	n=$("$here/../lttng-packets.py" list "$dir/chp_0" | wc -l)
	[ "$n" -ge 4 ] || { echo "lost-packet: only $n packets" >&2; exit 1; }
	"$here/../lttng-packets.py" drop "$dir/chp_0" 2
	rm -rf "$dir/index"
}

# E: first packets removed from a stream that discarded events → its first
# packet has events_discarded != 0 ("may have discarded"), seq != 0.
trace_may_discard() {
	session may-discard
	lttng enable-channel -u --subbuf-size 4096 --num-subbuf 2 chd >/dev/null
	lttng enable-event -u -c chd 'rtest:load' >/dev/null
	lttng start >/dev/null
	taskset -c 0 "$app" burst 2000
	taskset -c 0 "$app" burst 2000
	finish may-discard
	local dir=$dest/may-discard/ust/uid/0/64-bit
	local first
	first=$("$here/../lttng-packets.py" list "$dir/chd_0" |
		awk '{ for (i = 4; i <= NF; i++) if ($i ~ /^discarded=/ && $i != "discarded=0") { print $1; exit } }')
	[ -n "$first" ] && [ "$first" -gt 0 ] || { echo "may-discard: no packet to keep" >&2; exit 1; }
	"$here/../lttng-packets.py" drop "$dir/chd_0" $(seq 0 $((first - 1)))
	rm -rf "$dir/index"
}

# S: snapshot session (overwrite-mode buffers), one `snapshot record`.
trace_snapshot() {
	session snapshot --snapshot
	lttng enable-event -u 'rtest:*' >/dev/null
	lttng add-context -u "${ctx_basic[@]}" >/dev/null
	lttng start >/dev/null
	taskset -c 0 "$app" all 2
	lttng snapshot record >/dev/null
	finish snapshot
}

# Several channels (stream classes) with different contexts in one trace.
trace_multichan() {
	session multichan
	lttng enable-channel -u chan_a >/dev/null
	lttng enable-channel -u chan_b >/dev/null
	lttng enable-channel -u chan_c >/dev/null
	lttng enable-event -u -c chan_a 'rtest:ints,rtest:floats' >/dev/null
	lttng enable-event -u -c chan_b 'rtest:string,rtest:arrays' >/dev/null
	lttng enable-event -u -c chan_c 'rtest:enums,rtest:empty,rtest:emerg,rtest:err,rtest:dbgsys' >/dev/null
	lttng add-context -u -c chan_b -t vtid -t procname >/dev/null
	lttng start >/dev/null
	taskset -c 0 "$app" all 1
	taskset -c 1 "$app" all 1
	finish multichan
}

# R: a rotation between two runs → two trace chunks under archives/.
trace_rotation() {
	session rotation
	lttng enable-event -u 'rtest:ints,rtest:string,rtest:empty' >/dev/null
	lttng add-context -u -t vpid >/dev/null
	lttng start >/dev/null
	taskset -c 0 "$app" all 1
	lttng rotate >/dev/null
	taskset -c 1 "$app" all 1
	finish rotation
}

# F: a stream spread over a ring of size-limited trace files
# (--tracefile-size/--tracefile-count): chf_0_0, chf_0_1, ..., the oldest
# overwritten once the ring wraps.
trace_tracefiles() {
	session tracefiles
	lttng enable-channel -u --subbuf-size 4096 --num-subbuf 4 --tracefile-size 8192 \
		--tracefile-count 3 chf >/dev/null
	lttng enable-event -u -c chf 'rtest:*' >/dev/null
	lttng add-context -u -c chf -t vpid -t procname >/dev/null
	lttng start >/dev/null
	for _ in $(seq 1 40); do
		taskset -c 0 "$app" all 1
	done
	finish tracefiles
}

# H: lttng-ust's own instrumentation (tracef, tracelog, statedump, the
# LD_PRELOAD helpers), a malloc event kept by a filter on its size.
trace_helpers() {
	session helpers
	lttng enable-event -u 'lttng_ust_tracef:*,lttng_ust_tracelog:*,lttng_ust_statedump:*' >/dev/null
	lttng enable-event -u 'lttng_ust_lib:*,lttng_ust_dl:*,lttng_ust_cyg_profile:*' >/dev/null
	lttng enable-event -u 'lttng_ust_pthread:*,lttng_ust_libc:realloc,lttng_ust_libc:posix_memalign' >/dev/null
	lttng enable-event -u lttng_ust_libc:malloc --filter 'size == 33' >/dev/null
	lttng add-context -u "${ctx_basic[@]}" -t ip >/dev/null
	lttng start >/dev/null
	LD_PRELOAD="liblttng-ust-libc-wrapper.so liblttng-ust-pthread-wrapper.so liblttng-ust-dl.so liblttng-ust-cyg-profile.so" \
		taskset -c 0 "$work/helpers-app"
	finish helpers
}

all=(uid_ctx pid_two discard lost_packet may_discard snapshot multichan rotation helpers
	tracefiles)
if [ $# -gt 0 ]; then
	all=("${@//-/_}")
fi
for t in "${all[@]}"; do
	echo "== $t"
	"trace_$t"
done
du -sh "$dest"
