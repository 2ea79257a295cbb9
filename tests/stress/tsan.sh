#!/bin/sh
# ThreadSanitizer run of the ring buffer torture test (not part of make check:
# TSan cannot be combined with the ASan build). Builds lib/ringbuf and the
# stress test directly with -fsanitize=thread into a temporary directory.
#
#   tests/stress/tsan.sh [seconds]          (default 6)
#
# Discard mode must report nothing. Overwrite mode reads sub-buffers that
# producers may be overwriting and validates the copy afterwards (seqlock
# style, layout.h pair F): TSan cannot model that and reports those copies,
# so that mode runs with tsan-overwrite.supp, which names only those sites.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-6}
cc=${CC:-cc}
# lib/ringbuf's 16-byte CAS (layout.h rb_reader_cas), as lib/ringbuf/meson.build.
case $(uname -m) in x86_64) cx16=-mcx16 ;; *) cx16= ;; esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM

$cc -std=gnu11 -g -O1 -fsanitize=thread -D_GNU_SOURCE -Wno-tsan $cx16 \
	-I"$src/include" -I"$src/lib" \
	"$src"/lib/ringbuf/channel.c "$src"/lib/ringbuf/producer.c \
	"$src"/lib/ringbuf/consumer.c "$src"/tests/stress/ringbuf-stress.c \
	-lpthread -o "$out/ringbuf-stress-tsan"

# TSan slows writers ~10x: the latency bound still only catches real blocking.
echo "== discard mode (expects no TSan report)"
TSAN_OPTIONS="halt_on_error=1 report_signal_unsafe=0" \
	"$out/ringbuf-stress-tsan" --mode discard --seconds "$secs"
echo "== overwrite mode (seqlock copies suppressed)"
TSAN_OPTIONS="halt_on_error=1 report_signal_unsafe=0 suppressions=$src/tests/stress/tsan-overwrite.supp" \
	"$out/ringbuf-stress-tsan" --mode overwrite --seconds "$secs"
