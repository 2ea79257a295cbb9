#!/usr/bin/env python3
"""Writes the traces tests/e2e/view-slices.sh reads in slices, under OUT_DIR:

    tests/gen/slice-traces.py OUT_DIR

- ties: two streams of many packets whose packets begin and end at the same
  times, with events tied across streams and packet boundaries, discarded
  events and a lost packet: every cut falls on a tie.
- past-end: an event after its packet's end time (a slice must give up).
- backwards: event times going back within a packet (likewise).
- end-back: a packet ending before the previous one ended (the scan refuses).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctfgen import (  # noqa: E402
    Clock, Event, String, Struct, Trace, large_header, lttng_like_packet_context,
    packet_header, uint)

OUT = sys.argv[1]
U32 = uint(32, align=8)


def trace(name):
    clk = Clock('monotonic', freq=1000000000, offset_s=1700000000, absolute=True)
    t = Trace(os.path.join(OUT, name), 'le', env={'hostname': name, 'tracer_name': 'ctfgen'},
              clocks=[clk], packet_header_type=packet_header(with_uuid=False))
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=large_header())
    ev = t.event_class('s:ev', 0, sc, fields=Struct([('_s', String()), ('_i', U32)]))
    t.write_metadata()
    return t, sc, ev


def packets(s, ev, spans, cpu, discarded=lambda i: 0, skip=()):
    """spans: [(begin, end, [event times])]; packet numbers in skip are lost."""
    seq = 0
    for i, (begin, end, times) in enumerate(spans):
        while seq in skip:
            seq += 1
        evs = [Event(ev, ts, fields={'_s': 'c%d p%d e%d' % (cpu, i, j), '_i': ts})
               for j, ts in enumerate(times)]
        s.packet({'timestamp_begin': begin, 'timestamp_end': end, 'packet_seq_num': seq,
                  'events_discarded': discarded(i), 'cpu_id': cpu}, evs)
        seq += 1
    s.close()


def ties():
    t, sc, ev = trace('ties')
    for cpu in range(2):
        s = t.stream('chan_%d' % cpu, sc, cpu, header_kind='large')
        spans = [(100 * i, 100 * i + 100, [100 * i, 100 * i + 50, 100 * i + 50, 100 * i + 100])
                 for i in range(24)]
        packets(s, ev, spans, cpu, discarded=lambda i: i // 5 * (cpu + 1),
                skip=(7,) if cpu else ())


def past_end():
    # Stream 1's packets end at 60 past their beginning, their last event at
    # 110: past the end and into the next packet's time, whatever the cut.
    t, sc, ev = trace('past-end')
    for cpu in range(2):
        s = t.stream('chan_%d' % cpu, sc, cpu, header_kind='large')
        if cpu == 0:
            spans = [(100 * i, 100 * i + 100, [100 * i + 10, 100 * i + 90]) for i in range(12)]
        else:
            spans = [(100 * i, 100 * i + 60, [100 * i + 10, 100 * i + 110]) for i in range(12)]
        packets(s, ev, spans, cpu)


def backwards():
    # Every packet's events go back, and the streams' packets are offset by
    # half a packet: a cut on one stream's packet falls inside the other's.
    t, sc, ev = trace('backwards')
    for cpu in range(2):
        s = t.stream('chan_%d' % cpu, sc, cpu, header_kind='large')
        o = 50 * cpu
        spans = [(100 * i + o, 100 * i + o + 100, [100 * i + o + 90, 100 * i + o + 10])
                 for i in range(12)]
        packets(s, ev, spans, cpu)


def end_back():
    t, sc, ev = trace('end-back')
    for cpu in range(2):
        s = t.stream('chan_%d' % cpu, sc, cpu, header_kind='large')
        spans = [(100 * i, 100 * i + 100, [100 * i + 10]) for i in range(12)]
        if cpu == 0:
            spans[4] = (400, 450, [410])
            spans[5] = (420, 440, [430])
        packets(s, ev, spans, cpu)


ties()
past_end()
backwards()
end_back()
