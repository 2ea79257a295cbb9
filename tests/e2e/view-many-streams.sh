#!/bin/bash
# SPDX-License-Identifier: MIT
# A trace with more stream files than the reader may keep open, one packet
# larger than a megabyte, and packet contexts larger than the reader's
# first read of a packet: strata
# view, run with a low open-file limit, must print what babeltrace2 prints
# (run without it). Each stream keeps its current file open only within
# half of RLIMIT_NOFILE (lib/ctf/stream.c); the others open theirs per
# packet read.
#
#   view-many-streams.sh STRATA_BINARY
set -u

strata=${1:?usage: view-many-streams.sh STRATA_BINARY}
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v babeltrace2 >/dev/null 2>&1; then
	echo "SKIP: babeltrace2 is not installed (apt-get install babeltrace2)"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-many-streams.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# 64 streams of one class, ten small packets each (more than one refill
# reads, so every stream holds its file while the others start), times
# interleaved.
python3 - "$here/../gen" "$work/trace" <<'PY' || { echo "FAIL: cannot generate the trace"; exit 1; }
import sys
sys.path.insert(0, sys.argv[1])
from ctfgen import (Clock, Event, String, Struct, Trace, large_header,
                    lttng_like_packet_context, packet_header, uint)
clk = Clock('monotonic', freq=1000000000, offset_s=1700000000)
t = Trace(sys.argv[2], 'le', uuid='99999999-7777-4888-8999-aaaaaaaaaa10',
          env={'hostname': 'many', 'tracer_name': 'ctfgen'}, clocks=[clk],
          packet_header_type=packet_header())
sc = t.stream_class(0, packet_context=lttng_like_packet_context(), event_header=large_header())
ev = t.event_class('m:ev', 0, sc, fields=Struct([('_s', String()), ('_i', uint(16, align=8))]))
# A packet context with a string: headers longer than the reader's first
# read of a file (4 KiB) or than the packet before.
sc1 = t.stream_class(1, packet_context=lttng_like_packet_context([('_note', String())]),
                     event_header=large_header())
ev1 = t.event_class('m:note', 0, sc1, fields=Struct([('_i', uint(16, align=8))]))
t.write_metadata()
s = t.stream('notes', sc1, 0, header_kind='large', packet_align=8)
for p, n in enumerate([5000, 100, 9000]):
    begin = 1000 + p * 1000 + 99
    s.packet({'timestamp_begin': begin, 'timestamp_end': begin + 900, 'packet_seq_num': p,
              'events_discarded': 0, 'cpu_id': 0, '_note': ('n%d-' % p) * (n // 3)},
             [Event(ev1, begin + 10, fields={'_i': p})])
s.close()
for k in range(64):
    s = t.stream('chan_%d' % k, sc, k, header_kind='large', packet_align=8)
    for p in range(10):
        begin = 1000 + p * 1000 + k
        s.packet({'timestamp_begin': begin, 'timestamp_end': begin + 900, 'packet_seq_num': p,
                  'events_discarded': 0, 'cpu_id': k},
                 [Event(ev, begin + 10 * i, fields={'_s': 's%d-%d-%d' % (k, p, i), '_i': i})
                  for i in range(2)])
    s.close()
# One more stream whose second packet is over 1 MiB (its buffer grows into
# huge pages, keeping what the first read put there).
s = t.stream('chan_big', sc, 64, header_kind='large', packet_align=8)
for p, n in enumerate([1, 320, 1]):
    begin = 1000 + p * 1000 + 64
    s.packet({'timestamp_begin': begin, 'timestamp_end': begin + 900, 'packet_seq_num': p,
              'events_discarded': 0, 'cpu_id': 64},
             [Event(ev, begin + 10 + i, fields={'_s': ('b%d-%03d-' % (p, i)) * 500, '_i': i})
              for i in range(n)])
s.close()
PY

babeltrace2 "$work/trace" >"$work/bt.out" 2>"$work/bt.err"
# 24 descriptors: 12 streams keep their file open, 52 open it per packet.
(ulimit -n 24 && exec "$strata" view "$work/trace") >"$work/st.out" 2>"$work/st.err"
rc=$?
if [ "$rc" != 0 ]; then
	echo "FAIL: strata view exited $rc under ulimit -n 24:"
	head -n 5 "$work/st.err"
	exit 1
fi
if ! cmp -s "$work/bt.out" "$work/st.out" || ! cmp -s "$work/bt.err" "$work/st.err"; then
	echo "FAIL: output differs from babeltrace2's"
	diff "$work/bt.out" "$work/st.out" | head -n 10
	exit 1
fi
echo "view-many-streams: $(wc -l <"$work/st.out") lines identical"
