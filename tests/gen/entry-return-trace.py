#!/usr/bin/env python3
"""entry-return-trace: traces with known entry/return deltas, for testing
`strata analyze entry-return` (tests/e2e/analyze-entry-return.sh).

    tests/gen/entry-return-trace.py OUTPUT_DIR

writes OUTPUT_DIR/trace and OUTPUT_DIR/baseline, two kernel-like CTF traces
(LTTng's packet context with cpu_id, one stream per CPU, the contexts
perf_cpu_page_fault, tid and perf_cpu_cs as stream event context), and
OUTPUT_DIR/expected.json with what the analysis must print, computed here
with Python's statistics module from the deltas the calls were given:

  trace     fn_entry/fn_return: plain calls on two threads of CPU 0
            interleaved, a recursion three deep on CPU 1, a call whose
            return lands on the other CPU (migrated), an entry never
            returned from and a return without entry (unmatched), and
            other events in between; a thread without the counters'
            values cannot occur (every event has all contexts).
  baseline  calibrate_entry/calibrate_return pairs.
  notid     fn_entry/fn_return without a tid context: the analysis fails.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctfgen import (  # noqa: E402
    Clock, Event, Int, Struct, Trace, compact_header, lttng_like_packet_context,
    packet_header, uint)

FIELDS = ('perf_cpu_page_fault', 'perf_cpu_cs')


class Recorder:
    """Per-CPU event lists with running counters, and the calls' true deltas."""

    def __init__(self):
        self.events = {0: [], 1: []}
        self.counters = {0: [1000, 50], 1: [7000, 90]}
        self.ts = 1000000

    def emit(self, cpu, name, tid, step_ns=10):
        self.ts += step_ns
        pf, cs = self.counters[cpu]
        self.events[cpu].append((self.ts, name, tid, pf, cs))

    def advance(self, cpu, pf, cs):
        self.counters[cpu][0] += pf
        self.counters[cpu][1] += cs


def scenario(r):
    """Returns the (page fault, cs, duration) deltas of the pairs that count."""
    pairs = []

    # Two threads on CPU 0, their calls interleaved: each pair closes its own.
    for i, (pf, cs) in enumerate([(3, 0), (5, 1), (7, 0), (9, 2)]):
        tid = 100 if i % 2 == 0 else 101
        r.emit(0, 'fn_entry', tid)
        t0 = r.ts
        r.emit(0, 'other', 999, 3)
        r.advance(0, pf, cs)
        r.emit(0, 'fn_return', tid, 100 * (i + 1))
        pairs.append((pf, cs, r.ts - t0))
    # Interleaved for real: 102 enters, 103 enters and returns, 102 returns.
    r.emit(0, 'fn_entry', 102)
    a0 = r.ts
    pf_a0 = r.counters[0][0]
    r.emit(0, 'fn_entry', 103)
    b0 = r.ts
    r.advance(0, 2, 0)
    r.emit(0, 'fn_return', 103, 40)
    pairs.append((2, 0, r.ts - b0))
    r.advance(0, 4, 1)
    r.emit(0, 'fn_return', 102, 60)
    pairs.append((r.counters[0][0] - pf_a0, 1, r.ts - a0))

    # Recursion on CPU 1: a(b(c())) on thread 200.
    starts = []
    for depth in range(3):
        r.emit(1, 'fn_entry', 200, 20)
        starts.append((r.ts, r.counters[1][0], r.counters[1][1]))
        r.advance(1, 1 + depth, 0)
    for depth in reversed(range(3)):
        r.advance(1, 10, depth)
        r.emit(1, 'fn_return', 200, 30)
        t0, pf0, cs0 = starts[depth]
        pairs.append((r.counters[1][0] - pf0, r.counters[1][1] - cs0, r.ts - t0))

    # Migrated: entry on CPU 0, return on CPU 1 (left out).
    r.emit(0, 'fn_entry', 300, 50)
    r.ts += 500
    r.emit(1, 'fn_return', 300, 50)
    # A return without entry, then an entry never returned from.
    r.emit(1, 'fn_return', 500, 10)
    r.emit(0, 'fn_entry', 400, 10)
    return pairs, {'migrated': 1, 'unmatched': 2}


def baseline(r):
    pairs = []
    for pf, cs, dur in [(1, 0, 200), (1, 0, 300), (2, 1, 250), (0, 0, 250)]:
        r.emit(0, 'calibrate_entry', 77)
        t0 = r.ts
        r.advance(0, pf, cs)
        r.emit(0, 'calibrate_return', 77, dur)
        pairs.append((pf, cs, r.ts - t0))
    return pairs, {'migrated': 0, 'unmatched': 0}


def write(path, r, names, with_tid=True):
    ctx = [('_perf_cpu_page_fault', uint(64, align=8))]
    if with_tid:
        ctx.append(('_tid', Int(32, True, align=8)))
    ctx.append(('_perf_cpu_cs', uint(64, align=8)))
    t = Trace(path, uuid='2a6422d0-6cee-11e0-8c08-cb07d7b3a564',
              env={'domain': 'kernel', 'tracer_name': 'strata', 'hostname': 'gen'},
              clocks=[Clock('monotonic', freq=1000000000, offset_s=1700000000, offset=0,
                            uuid='8a1d7226-5e18-4a0b-9b91-3e2c3c2bd2b7')],
              packet_header_type=packet_header())
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=compact_header(), event_context=Struct(ctx))
    ecs = {n: t.event_class(n, i, sc, fields=Struct([('_ip', uint(64, align=8, base=16))]))
           for i, n in enumerate(names)}
    t.write_metadata()
    for cpu, evs in r.events.items():
        s = t.stream('channel0_%d' % cpu, sc, instance_id=cpu, header_kind='compact')
        if evs:
            out = []
            for ts, name, tid, pf, cs in evs:
                sec = {'_perf_cpu_page_fault': pf, '_perf_cpu_cs': cs}
                if with_tid:
                    sec['_tid'] = tid
                out.append(Event(ecs[name], ts, fields={'_ip': 0x401000}, sec=sec))
            s.packet({'timestamp_begin': evs[0][0], 'timestamp_end': evs[-1][0],
                      'packet_seq_num': 0, 'events_discarded': 0, 'cpu_id': cpu}, out)
        s.close()


def expected(pairs, counts):
    fields = {}
    for i, name in enumerate(FIELDS + ('duration_ns',)):
        vals = [p[i] for p in pairs]
        fields[name] = {'mean': statistics.mean(vals), 'stddev': statistics.stdev(vals),
                        'min': min(vals), 'max': max(vals)}
    return dict({'pairs': len(pairs)}, **counts, fields=fields)


def main():
    out = sys.argv[1]
    r = Recorder()
    pairs, counts = scenario(r)
    write(os.path.join(out, 'trace'), r, ['fn_entry', 'fn_return', 'other'])
    write(os.path.join(out, 'notid'), r, ['fn_entry', 'fn_return', 'other'], with_tid=False)
    rb = Recorder()
    bpairs, bcounts = baseline(rb)
    write(os.path.join(out, 'baseline'), rb, ['calibrate_entry', 'calibrate_return'])
    exp = expected(pairs, counts)
    bexp = expected(bpairs, bcounts)
    # --baseline: the baseline's means come off the means, minima and maxima.
    sub = json.loads(json.dumps(exp))
    for name, st in sub['fields'].items():
        b = bexp['fields'][name]['mean']
        for k in ('mean', 'min', 'max'):
            st[k] -= b
    with open(os.path.join(out, 'expected.json'), 'w') as f:
        json.dump({'trace': exp, 'baseline': bexp, 'subtracted': sub}, f)


if __name__ == '__main__':
    main()
