#!/bin/sh
# ThreadSanitizer run of strata-sessiond (not part of make check: TSan cannot
# be combined with the ASan build; `make tsan` runs it). Builds the whole
# tree with meson -Db_sanitize=thread, then runs the daemon's e2e scenarios
# (meson suites `session` and `kernel`: session-ust, -control, -hello,
# -full-disk, -fifo-full, -switch-timer, -clock, -kernel, -kernel-stop and the kernel recorder tests,
# which skip (77) without root or BPF) against it, then view-slices (strata
# view's slices on several threads), and fails if any process reported a race.
#
#   tests/stress/tsan-sessiond.sh [BUILD-DIR]   (default: a temporary one)
#
# The daemon detaches from the test's stderr, so every process writes its
# reports to files (TSAN_OPTIONS log_path) in a directory of ours; all are
# printed and any one fails the run. halt_on_error stays off so that one run
# shows every race, not just the first.
#
# The apps (session-fake-app, hello) are TSan builds as well. Their records
# go into sub-buffers the daemon, another process, hands back: TSan sees a
# thread of an app writing where another thread wrote before without the
# daemon's release in between, which it cannot see. tsan-sessiond.supp
# names only those sites.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -ge 1 ]; then
	build=$1
	mkdir -p "$build"
	build=$(cd "$build" && pwd)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT INT TERM
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT INT TERM
	build=$tmp/build
fi
# session-control runs the CLI as another user: it must reach the build.
chmod 755 "$tmp"
cc=${CC:-cc}
reports=$tmp/reports
mkdir -p "$reports"

# gcc warns (an error with werror) that TSan does not model the ring
# buffer's atomic_thread_fence; clang has no such warning.
cargs=
if echo 'int main(void){return 0;}' | $cc -Werror -Wno-tsan -x c - -o /dev/null 2>/dev/null; then
	cargs=-Wno-tsan
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=$cc meson setup "$build" "$src" -Db_sanitize=thread -Db_lundef=false \
		-Dtests=disabled -Dc_args="$cargs" >"$tmp/setup.log" ||
		{ cat "$tmp/setup.log"; exit 1; }
fi
ninja -C "$build" >"$tmp/build.log" || { tail -n 50 "$tmp/build.log"; exit 1; }

TSAN_OPTIONS="log_path=$reports/tsan suppressions=$src/tests/stress/tsan-sessiond.supp second_deadlock_stack=1" \
	meson test -C "$build" --no-rebuild --suite session --suite kernel \
	--num-processes 1 --print-errorlogs || status=$?
# strata view --decode-only reads traces in slices on several threads.
TSAN_OPTIONS="log_path=$reports/tsan second_deadlock_stack=1" \
	meson test -C "$build" --no-rebuild --print-errorlogs view-slices || status=$?
# A child forked after its parent's report (kt_rec_detach_all's reaper)
# repeats the parent's "reported N warnings" at exit: only files with a
# report of their own count.
n=0
for f in "$reports"/tsan.*; do
	grep -q -E '^(WARNING|ERROR): ThreadSanitizer' "$f" 2>/dev/null || continue
	echo "== TSan report of pid ${f##*.}"
	cat "$f"
	n=$((n + 1))
done
if [ "$n" -gt 0 ]; then
	echo "tsan-sessiond: $n process(es) reported races (see above)"
	exit 1
fi
if [ "${status:-0}" != 0 ]; then
	echo "tsan-sessiond: tests failed under TSan"
	exit 1
fi
echo "tsan-sessiond: no TSan report"
