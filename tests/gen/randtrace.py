#!/usr/bin/env python3
"""randtrace: a random, valid CTF 1.8 trace from a seed, for comparing
`strata view` with babeltrace2 on traces nobody wrote the reader against.

    tests/gen/randtrace.py SEED OUTPUT_DIR

The same seed always writes the same trace. Everything is drawn at random
within what CTF 1.8 and babeltrace2 2.0.4 both accept: byte order, clock
frequency and offsets, packet header and context, compact or large event
headers, stream event contexts, event contexts and payloads made of
integers (1 to 64 bits, any alignment, signedness, base, byte order, text
encoding), enums (values, ranges, overlapping labels, unmapped values),
floats (including nan, infinities, -0 and subnormals), strings with any
bytes but NUL, static arrays, sequences, text arrays and sequences (NULs
included), nested structs and variants, several streams with ties in time,
discarded events and packets, plain or packetized metadata. It prints the
view options to use with it (view_options()).

Left out, because babeltrace2 2.0.4 refuses or aborts on them: byte order
changes inside a byte, sequences and variants inside arrays, variant
options and the context scopes (an assertion in its field-path code), and
clock values whose nanoseconds from the origin overflow 64 bits.

RT_NOEMPTY=1 in the environment draws no empty strings or text: a way to
tell differences in babeltrace2's stale strings from any other.
"""
import math
import os
import random
import shutil
import struct as _struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctfgen import (  # noqa: E402
    Array, Clock, Enum, Event, Float, Int, RawBits, Sequence, String, Struct, Trace, Variant,
    compact_header, large_header, lttng_like_packet_context, packet_header, uint)

KEYWORDS = {'align', 'callsite', 'const', 'char', 'clock', 'double', 'enum', 'env',
            'event', 'floating_point', 'float', 'integer', 'int', 'long', 'short', 'signed',
            'stream', 'string', 'struct', 'trace', 'typealias', 'typedef', 'unsigned',
            'variant', 'void', '_Bool', '_Complex', '_Imaginary', 'id', 'name', 'fields',
            'context', 'loglevel', 'size', 'base', 'map', 'encoding', 'byte_order'}


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.names = 0

    def name(self):
        self.names += 1
        stem = self.r.choice(['f', 'val', 'x', 'count', 'ptr', 'data', 'len', 'id_',
                              'msg', 'a', 'b'])
        return '_%s%d' % (stem, self.names)

    # -- types ------------------------------------------------------------

    def int_type(self, text=False, min_size=1):
        r = self.r
        if text:
            return Int(8, r.random() < 0.3, align=8,
                       encoding=r.choice(['UTF8', 'ASCII']))
        size = r.choice([8, 16, 32, 64, 8, 16, 32, 64, r.randint(max(1, min_size), 64)])
        size = max(size, min_size)
        signed = r.random() < 0.5
        if size % 8 == 0 and r.random() < 0.8:
            align = r.choice([8, 8, 16, 32, 64])
        else:
            align = r.choice([1, 1, 2, 4, 8])
        # babeltrace2 refuses byte order changes inside a byte (CTF 1.8 4.1.5).
        bo = r.choice([None] * 6 + ['le', 'be', 'network', 'native'])
        if align < 8 or size % 8:
            bo = None
        base = r.choice([None] * 5 + [2, 8, 10, 16, 'hex', 'dec', 'oct', 'b', 'x', 'u', 'p'])
        return Int(size, signed, align=align, byte_order=bo, base=base)

    def enum_type(self):
        r = self.r
        cont = self.int_type(min_size=2)
        cont.base = None
        lo, hi = self.int_range(cont)
        maps = []
        for i in range(r.randint(1, 6)):
            label = r.choice(['A', 'B', 'RUNNING', 'ok', 'x y', 'LABEL_%d' % i, 'é', 'q"t'])
            label += str(i)
            if r.random() < 0.3:
                a = r.randint(lo, hi)
                b = r.randint(a, min(hi, a + r.randint(0, 100)))
                maps.append((label, (a, b)))
            else:
                v = r.randint(lo, hi)
                maps.append((label, v))
        return Enum(cont, maps)

    def float_type(self):
        r = self.r
        exp, mant = r.choice([(8, 24), (11, 53)])
        align = r.choice([None, 8, 32, 64, 1])
        return Float(exp, mant, align=align,
                     byte_order=r.choice([None, None, 'le', 'be']) if align != 1 else None)

    def struct_type(self, depth, simple=False):
        """A struct of 0-6 fields. simple: no sequences or variants inside
        (babeltrace2 2.0.4 asserts on lengths and tags found inside arrays
        and variant options)."""
        r = self.r
        fields = []
        for _ in range(r.randint(0 if depth else 1, 6)):
            n = self.name()
            kind = r.choices(['int', 'enum', 'float', 'string', 'array', 'seq', 'text',
                              'struct', 'variant'],
                             [30, 8, 6, 8, 6, 0 if simple else 6, 6,
                              5 if depth < 2 else 0,
                              5 if depth < 2 and not simple else 0])[0]
            if kind == 'int':
                t = self.int_type()
            elif kind == 'enum':
                t = self.enum_type()
            elif kind == 'float':
                t = self.float_type()
            elif kind == 'string':
                t = String(r.choice([None, None, 'UTF8', 'ASCII']))
            elif kind == 'array':
                t = Array(self.elem_type(depth), r.randint(0, 4))
            elif kind == 'text':
                if simple or r.random() < 0.5:
                    t = Array(self.int_type(text=True), r.randint(0, 12))
                else:
                    ln = self.name()
                    lt = uint(r.choice([8, 16, 32]), align=8)
                    fields.append((ln, lt))
                    t = Sequence(self.int_type(text=True), ln)
            elif kind == 'seq':
                ln = self.name()
                lt = uint(r.choice([8, 16, 32, 5]), align=r.choice([8, 1]))
                fields.append((ln, lt))
                t = Sequence(self.elem_type(depth), ln)
            elif kind == 'struct':
                t = self.struct_type(depth + 1, simple)
            else:
                tag_n = self.name()
                options = [(chr(ord('A') + i) + str(self.names), None)
                           for i in range(r.randint(1, 4))]
                tag = Enum(uint(r.choice([8, 16, 3]), align=r.choice([8, 1])),
                           [(o, i) for i, (o, _) in enumerate(options)])
                fields.append((tag_n, tag))
                opts = []
                for o, _ in options:
                    opts.append((o, self.any_type(depth + 1)))
                t = Variant(tag_n, opts)
            fields.append((n, t))
        return Struct(fields, align=r.choice([None] * 6 + [8, 16, 32, 64]))

    def elem_type(self, depth, kinds=('int', 'int', 'int', 'float', 'string', 'enum',
                                      'struct')):
        """An array or sequence element type (or, with kinds, any simple type)."""
        r = self.r
        k = r.choice(kinds)
        if k == 'float':
            return self.float_type()
        if k == 'string':
            return String()
        if k == 'enum':
            return self.enum_type()
        if k == 'array':
            return Array(self.elem_type(depth), r.randint(0, 3))
        if k == 'struct' and depth < 2:
            return self.struct_type(depth + 1, True)
        return self.int_type()

    def any_type(self, depth):
        """A variant option's type."""
        return self.elem_type(depth, ('int', 'float', 'string', 'struct', 'array'))

    # -- values -----------------------------------------------------------

    @staticmethod
    def int_range(t):
        if t.signed:
            return -(1 << (t.size - 1)), (1 << (t.size - 1)) - 1
        return 0, (1 << t.size) - 1

    def int_value(self, t):
        r = self.r
        lo, hi = self.int_range(t)
        return r.choice([lo, hi, 0, 1 if hi >= 1 else 0, r.randint(lo, hi), r.randint(lo, hi),
                         r.randint(max(lo, -300), min(hi, 300))])

    def text_bytes(self, n, allow_nul):
        r = self.r
        out = bytearray()
        for _ in range(n):
            c = r.choice([r.randint(0x20, 0x7e)] * 6 + [r.randint(1, 0xff), 0x0a, 0x09,
                                                         0x5c, 0x22, 0xc3, 0xa9] +
                         ([0] if allow_nul else []))
            out.append(c)
        return bytes(out)

    def float_value(self, t):
        r = self.r
        single = t.exp_dig == 8
        v = r.choice([0.0, -0.0, 1.0, -1.5, math.inf, -math.inf, math.nan, 1e-40, 3.4e38,
                      r.uniform(-1e6, 1e6), r.uniform(-1, 1), 1 / 3, 123456789.125,
                      5e-324, 1e300, 0.1])
        if single:
            try:
                v = _struct.unpack('<f', _struct.pack('<f', v))[0]
            except OverflowError:
                v = math.inf if v > 0 else -math.inf
        if r.random() < 0.05:
            return RawBits(r.getrandbits(32 if single else 64))
        return v

    def value(self, t, siblings):
        """A value for t; siblings holds this struct's values so far, for
        the lengths and tags declared before."""
        r = self.r
        if isinstance(t, Enum):
            lo, hi = self.int_range(t.container)
            vals = []
            for _, m in t.mappings:
                if isinstance(m, tuple):
                    vals.append(r.randint(m[0], m[1]))
                elif m is not None:
                    vals.append(m)
            if vals and r.random() < 0.8:
                return r.choice(vals)
            return r.randint(lo, hi)
        if isinstance(t, Int):
            if t.encoding:
                return r.randint(1, 127) if t.signed else r.randint(1, 255)
            return self.int_value(t)
        if isinstance(t, Float):
            return self.float_value(t)
        if isinstance(t, String):
            if os.environ.get('RT_NOEMPTY'):
                return self.text_bytes(r.choice([1, 3, 8, 20]), False)
            return self.text_bytes(r.choice([0, 0, 1, 3, 8, 20]), False)
        if isinstance(t, Array):
            if isinstance(t.elem, Int) and t.elem.encoding:
                return [self.text_char(t.elem) for _ in range(t.length)]
            return [self.value(t.elem, {}) for _ in range(t.length)]
        if isinstance(t, Sequence):
            n = siblings[t.length_path]
            if isinstance(t.elem, Int) and t.elem.encoding:
                return [self.text_char(t.elem) for _ in range(n)]
            return [self.value(t.elem, {}) for _ in range(n)]
        if isinstance(t, Struct):
            return self.struct_value(t)
        if isinstance(t, Variant):
            return siblings['__variant__' + t.tag]
        raise TypeError(t)

    def text_char(self, t):
        b = self.text_bytes(1, not os.environ.get('RT_NOEMPTY'))[0]
        if t.signed and b > 127:
            b -= 256
        return b

    def struct_value(self, st):
        r = self.r
        vals = {}
        fields = st.fields
        # Lengths and tags first: what follows depends on them.
        for n, t in fields:
            if isinstance(t, Sequence):
                lt = dict(fields)[t.length_path]
                vals[t.length_path] = r.randint(1 if os.environ.get('RT_NOEMPTY') else 0,
                                                min(5, (1 << lt.size) - 1))
            if isinstance(t, Variant):
                k = r.randrange(len(t.options))
                vals[t.tag] = k
                o, ot = t.options[k]
                vals['__variant__' + t.tag] = (o, self.value(ot, {}))
        for n, t in fields:
            if n in vals:
                continue
            vals[n] = self.value(t, vals)
        return {k: v for k, v in vals.items() if not k.startswith('__')}


def main():
    seed = int(sys.argv[1])
    out = sys.argv[2]
    g = Gen(seed)
    r = g.r
    shutil.rmtree(out, ignore_errors=True)
    bo = r.choice(['le', 'be'])
    freq = r.choice([1000000000, 1000000000, 1000000, 1000, 2500000000, 3, 1000000007])
    clk = Clock('monotonic', freq=freq, offset_s=r.choice([0, 1700000000, 1, None]),
                offset=r.choice([0, 5, freq - 1, None]),
                uuid=r.choice([None, '%08x-0000-4000-8000-000000000001' % seed]))
    uuid = '%08x-1111-4222-8333-%012x' % (seed & 0xffffffff, seed)
    env = {'hostname': r.choice(['host', 'box-%d' % seed]), 'domain': r.choice(['ust', 'kernel']),
           'tracer_name': 'randtrace', 'tracer_major': 2, 'tracer_minor': 13}
    if r.random() < 0.4:
        env.update({'procname': 'app%d' % seed, 'vpid': seed % 30000 + 1})
    t = Trace(out, bo, uuid=uuid, env=env, clocks=[clk], packet_header_type=packet_header())
    n_sc = r.randint(1, 2)
    streams = []
    for sid in range(n_sc):
        kind = r.choice(['compact', 'large'])
        header = compact_header() if kind == 'compact' else large_header()
        sctx = g.struct_type(1, True) if r.random() < 0.4 else None
        if sctx is not None and not sctx.fields:
            sctx = None
        sc = t.stream_class(sid, packet_context=lttng_like_packet_context(),
                            event_header=header, event_context=sctx)
        ecs = []
        for eid in range(r.randint(1, 5)):
            fields = g.struct_type(0)
            ctx = g.struct_type(1, True) if r.random() < 0.25 else None
            if ctx is not None and not ctx.fields:
                ctx = None
            name = r.choice(['ev', 'app:tp', 'sched_switch', 'lib:x_y', 'e']) + str(eid)
            ecs.append(t.event_class(name, eid + r.choice([0, 0, 40, 70000 if kind == 'large'
                                                             else 0]),
                                     sc, fields=fields, context=ctx,
                                     loglevel=r.choice([None, None, 6, 13]),
                                     emf=r.choice([None, None, 'http://x/y'])))
        for inst in range(r.randint(1, 2)):
            streams.append((t.stream('stream_%d_%d' % (sid, inst), sc, instance_id=inst,
                                     header_kind=kind), sc, ecs))
    t.write_metadata(packetized=r.random() < 0.5, chunk=r.choice([None, 50, 200]))

    # Clock values stay convertible to int64 nanoseconds from the origin.
    slow = freq < 1000000
    times = []
    base = r.choice([0, 1000, 1 << 31, (1 << 40) + 12345]) if not slow else r.randint(0, 10000)
    steps = [0, 0, 1, 7, 100, 5000, 1 << 26, 1 << 28] if not slow else [0, 0, 1, 2, 7, 100]
    for s, sc, ecs in streams:
        ts = base + r.randint(0, 20)
        seq = 0
        disc = 0
        for p in range(r.randint(1, 4)):
            begin = ts
            events = []
            for _ in range(r.randint(0, 15)):
                ts += r.choice(steps + [r.randint(0, 1 << 33 if not slow else 1000)])
                times.append(ts)
                ec = r.choice(ecs)
                ev = Event(ec, ts=ts, fields=g.struct_value(ec.fields),
                           context=g.struct_value(ec.context) if ec.context else None,
                           sec=g.struct_value(sc.event_context) if sc.event_context else None)
                events.append(ev)
            ts += r.choice([0, 1, 1000])
            if r.random() < 0.3:
                disc += r.randint(1, 50)
            s.packet({'timestamp_begin': begin, 'timestamp_end': ts, 'packet_seq_num': seq,
                      'events_discarded': disc, 'cpu_id': r.randint(0, 3)}, events)
            seq += r.choice([1, 1, 1, 2, 3])
            ts += r.choice([0, 10, 1 << 20 if not slow else 50])
        s.close()
    print(' '.join(view_options(seed, clk, sorted(times))))


def view_options(seed, clk, times):
    """babeltrace2 options for viewing the trace, drawn apart from it (the
    trace of a seed stays the same): clock formats, names and fields, clock
    offsets, and a time range around the trace's own event times."""
    r = random.Random(seed * 7919 + 1)
    opts = []
    for o in ('--clock-seconds', '--clock-cycles', '--clock-date', '--clock-gmt', '--no-delta'):
        if r.random() < 0.2:
            opts.append(o)
    if r.random() < 0.3:
        # babeltrace2 refuses `all` with `none`.
        names = r.sample(['payload', 'context', 'scope', 'header', 'all', 'none', 'args', 'ctx'],
                         r.randint(1, 2))
        if 'all' in names and 'none' in names:
            names.remove('none')
        opts.append('-n' + ','.join(names))
    if r.random() < 0.3:
        opts.append('-f' + ','.join(r.sample(['trace', 'trace:hostname', 'trace:domain',
                                             'trace:procname', 'trace:vpid', 'loglevel', 'emf',
                                             'callsite', 'all'], r.randint(1, 3))))
    shift = 0
    if r.random() < 0.1:
        shift += r.choice([-3, 1, 86400]) * 1000000000
        opts.append('--clock-offset=%d' % (shift // 1000000000))
    if r.random() < 0.1:
        ns_shift = r.choice([-1, 999999999, 12345])
        shift += ns_shift
        opts.append('--clock-offset-ns=%d' % ns_shift)
    if times and r.random() < 0.3:
        freq = clk.freq or 1000000000
        origin = (clk.offset_s or 0) * 1000000000 + shift

        def ns(cycles):
            return origin + ((clk.offset or 0) + cycles) * 1000000000 // freq

        def bound():
            # babeltrace2's trimmer fails on a bound before the clock's origin.
            v = max(ns(r.choice(times)) + r.choice([0, 0, -1, 1, -1000, 5000]), origin, 0)
            return '%d.%09d' % (v // 1000000000, v % 1000000000)

        b, e = sorted([bound(), bound()], key=lambda x: (int(x.split('.')[0]),
                                                           int(x.split('.')[1])))
        which = r.choice(['b', 'e', 'be'])
        if 'b' in which:
            opts.append('--begin=' + b)
        if 'e' in which:
            opts.append('--end=' + e)
    return opts


if __name__ == '__main__':
    main()
