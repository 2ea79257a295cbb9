#!/usr/bin/env python3
"""Writes the ctfgen golden traces (tests/traces/gen/) and the malformed
traces (tests/traces/bad/). Run by hand after changing it:

    tests/gen/gen-traces.py [OUTPUT_ROOT]      (default: tests/traces)

The output is deterministic (fixed UUIDs, values and timestamps), so a
regeneration that changes committed files means the generator changed.
Every golden trace must be read by babeltrace2 without errors or warnings;
tests/traces/README.md says what each trace covers.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctfgen import (  # noqa: E402
    Alias, Array, Clock, Enum, Event, Float, Int, NEG_NAN_DOUBLE, NEG_NAN_FLOAT, RawBits,
    Sequence, String, Struct, Trace, Variant, compact_header, large_header,
    lttng_like_packet_context, packet_header, sint, uint)

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'traces'))
GEN = os.path.join(ROOT, 'gen')
BAD = os.path.join(ROOT, 'bad')

U8 = uint(8, align=8)
U16 = uint(16, align=8)
U32 = uint(32, align=8)
U64 = uint(64, align=8)
S8 = sint(8, align=8)
S16 = sint(16, align=8)
S32 = sint(32, align=8)
S64 = sint(64, align=8)
UTF8_CHAR = Int(8, False, align=8, encoding='UTF8')
ASCII_CHAR = Int(8, True, align=8, encoding='ASCII')
F32 = Float(8, 24, align=8)
F64 = Float(11, 53, align=8)


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def seq_packets(stream, packets, first_seq=0, discarded=None):
    """Writes packets [(begin, end, events, extra_ctx)], numbering them."""
    for i, (begin, end, events, extra) in enumerate(packets):
        ctx = {'timestamp_begin': begin, 'timestamp_end': end,
               'packet_seq_num': first_seq + i,
               'events_discarded': discarded[i] if discarded else 0}
        ctx.update(extra)
        stream.packet(ctx, events)
    stream.close()


# ---------------------------------------------------------------------------
# types-le / types-be: every field family, bit-fields, variants, nested arrays,
# bases, enums, a 1 kHz clock with offset_s; identical content in both byte
# orders so both decode paths must agree.

def trace_types(bo):
    uuid = {'le': '11111111-2222-4333-8444-555555555501',
            'be': '11111111-2222-4333-8444-555555555502'}[bo]
    clk = Clock('monotonic', freq=1000, offset_s=1700000000, offset=250,
                uuid='aaaaaaaa-0000-4000-8000-000000000001', description='1 kHz clock',
                precision=1)
    t = Trace(fresh(os.path.join(GEN, 'types-' + bo)), bo, uuid=uuid,
              env={'hostname': 'genhost', 'domain': 'ust', 'tracer_name': 'ctfgen',
                   'tracer_major': 1, 'tracer_minor': 0, 'answer': 42},
              clocks=[clk], packet_header_type=packet_header())
    kind = Enum(U8, [('NUM', 0), ('TXT', 1)])
    pctx = lttng_like_packet_context([('kind', kind), ('flags', uint(3, align=1, base=2))])
    sctx = Struct([('tid', S32), ('n', U8)])
    sc = t.stream_class(0, packet_context=pctx, event_header=compact_header(), event_context=sctx)

    bits = Struct([
        ('_a', sint(3, align=1)), ('_b', uint(5, align=1, base=2)),
        ('_c', uint(12, align=1, base=8)), ('_d', sint(4, align=1, base=16)),
        ('_e', uint(1, align=1)), ('_f', sint(7, align=1, base='o')),
        ('_g', sint(9, align=1, base='b')), ('_h', uint(33, align=1, base='x')),
        ('_i', sint(64, align=1, base='hex')), ('_j', sint(13, align=1)),
        ('_k', U8), ('_l', sint(64, align=1, base=8)), ('_m', uint(64, align=1, base=2)),
    ])
    ec_bits = t.event_class('gen:bits', 0, sc, fields=bits, loglevel=13)

    sel = Enum(U8, [('A', 0), ('B', 1), ('C', 2), ('D', 3), ('E', 4)])
    sel2 = Enum(uint(2, align=1), [('X', 0), ('Y', 1)])
    point = Struct([('_x', S16), ('_y', S16)])
    variants = Struct([
        ('_sel', sel),
        ('_sel2', sel2),
        ('_v', Variant('_sel', [
            ('A', uint(32, align=8, base=16)),
            ('B', String()),
            ('C', point),
            ('D', Variant('_sel2', [('X', U8), ('Y', F64)])),
            ('E', Struct([('_inner', Variant('_sel2', [('X', S64), ('Y', String())]))])),
        ])),
        ('_after', uint(4, align=1)),
    ])
    ec_var = t.event_class('gen:variants', 1, sc, fields=variants, loglevel=6)

    arrays = Struct([
        ('_m', Array(Array(S8, 3), 2)),
        ('_sa_len', U8),
        ('_sa', Sequence(Array(U16, 2), '_sa_len')),
        ('_pts', Array(point, 3)),
        ('_ctxseq', Sequence(U8, 'stream.event.context.n')),
        ('_txt', Array(UTF8_CHAR, 10)),
        ('_atxt_len', U32),
        ('_atxt', Sequence(ASCII_CHAR, '_atxt_len')),
        ('_raw', Array(S8, 4)),
        ('_none', Array(U32, 0)),
        ('_strs', Array(String(), 2)),
        ('_cube', Array(Array(Array(uint(4, align=1, base=16), 2), 2), 2)),
    ])
    ec_arr = t.event_class('gen:arrays', 2, sc, fields=arrays)

    color = Enum(S32, [('RED', 0), ('GREEN', None), ('BLUE', None), ('RANGE', (10, 20)),
                       ('OVERLAP', (15, 25)), ('NEG', (-10, -1)), ('quote"back\\', 99)])
    big = Enum(U64, [('ZERO', 0), ('HUGE', (1 << 63, (1 << 64) - 1))])
    hexc = Enum(uint(16, align=8, base=16), [('LOW', (0, 0xff)), ('MAGIC', 0xbeef)])
    tiny = Enum(uint(3, align=1), [('T0', 0), ('T5', 5)])
    enums = Struct([('_color', color), ('_big', big), ('_hexc', hexc), ('_tiny', tiny),
                    ('_tiny2', tiny)])
    ec_enum = t.event_class('gen:enums', 3, sc, fields=enums, loglevel=4)

    floats = Struct([('_f', F32), ('_d', F64), ('_fb', uint(3, align=1)), ('_f2', Float(8, 24))])
    ec_float = t.event_class('gen:floats', 4, sc, fields=floats)

    strings = Struct([('_s', String()), ('_ascii', String('ASCII')), ('_ch', UTF8_CHAR)])
    ec_str = t.event_class('gen:strings', 5, sc, fields=strings, loglevel=14)

    ec_nofields = t.event_class('gen:nofields', 6, sc)
    ec_empty = t.event_class('gen:emptyfields', 7, sc, fields=Struct([]))
    ectx = Struct([('_prio', S32), ('_who', String())])
    ec_ctx = t.event_class('gen:withctx', 8, sc, context=ectx, fields=Struct([('_x', U8)]),
                           loglevel=2, emf='http://example.com/gen#ctx')
    ec_clk = t.event_class('gen:clockfield', 9, sc, fields=Struct([
        ('_before', U8), ('_ts', uint(64, align=8, map='monotonic')), ('_after', U8)]))
    aligned = Struct([
        ('_b', U8),
        ('_s', Struct([('_q', U8)], align=64)),
        ('_w', uint(32, align=32)),
        ('_bit', uint(1, align=1)),
        ('_dw', uint(64, align=64, base=16)),
        ('_pad', Struct([], align=32)),
        ('_last', U8),
    ])
    ec_al = t.event_class('gen:aligned', 10, sc, fields=aligned)
    ec_far = t.event_class('gen:far_id', 40, sc, fields=Struct([('_v', U16)]))
    t.write_metadata()

    def sec(tid=100, n=0):
        return {'tid': tid, 'n': n}

    bits_rows = [
        dict(_a=-3, _b=0b10110, _c=0o7531, _d=-2, _e=1, _f=-1, _g=-2, _h=(1 << 33) - 1,
             _i=-1, _j=-4096, _k=255, _l=-1, _m=5),
        dict(_a=3, _b=0, _c=0, _d=7, _e=0, _f=63, _g=255, _h=0x123456789 & ((1 << 33) - 1),
             _i=-(1 << 63), _j=4095, _k=0, _l=0, _m=(1 << 64) - 1),
        dict(_a=-4, _b=31, _c=4095, _d=-8, _e=1, _f=-64, _g=-256, _h=0, _i=(1 << 63) - 1,
             _j=0, _k=128, _l=-(1 << 63), _m=0),
    ]
    var_rows = [
        (dict(_sel=0, _sel2=0, _v=('A', 0xBEEF), _after=9), 0),
        (dict(_sel=1, _sel2=1, _v=('B', 'hello\tworld'), _after=1), 0),
        (dict(_sel=2, _sel2=0, _v=('C', {'_x': 1, '_y': -2}), _after=0), 0),
        (dict(_sel=3, _sel2=0, _v=('D', ('X', 200)),
              _after=15), 1),
        (dict(_sel=3, _sel2=1, _v=('D', ('Y', -0.25)), _after=2), 1),
        (dict(_sel=4, _sel2=1, _v=('E', {'_inner': ('Y', 'deep')}),
              _after=3), 1),
        (dict(_sel=4, _sel2=0, _v=('E', {'_inner': ('X', -(1 << 63))}),
              _after=4), 1),
    ]
    arr_rows = [
        (dict(_m=[[0, 1, 2], [3, 4, -128]], _sa_len=2, _sa=[[1, 2], [65535, 0]],
              _pts=[{'_x': 1, '_y': 2}, {'_x': -1, '_y': -2}, {'_x': 0, '_y': 32767}],
              _ctxseq=[9, 8, 7], _txt=b'caf\xc3\xa9\0zz', _atxt_len=5, _atxt=b'AB\x01\x7fC',
              _raw=[-61, 0, 127, -128], _none=[], _strs=['one', "t'wo?"],
              _cube=[[[0, 1], [2, 3]], [[12, 13], [14, 15]]]), 3),
        (dict(_m=[[1, 1, 1], [2, 2, 2]], _sa_len=0, _sa=[], _pts=[{'_x': 0, '_y': 0}] * 3,
              _ctxseq=[], _txt=b'0123456789', _atxt_len=0, _atxt=b'', _raw=[1, 2, 3, 4],
              _none=[], _strs=['', '\\'], _cube=[[[15, 15], [15, 15]], [[0, 0], [0, 0]]]), 0),
        (dict(_m=[[0, 0, 0], [0, 0, 0]], _sa_len=1, _sa=[[7, 8]], _pts=[{'_x': 5, '_y': 6}] * 3,
              _ctxseq=[255], _txt=b'\0ignored!', _atxt_len=4, _atxt=b'a\0bc', _raw=[0, 0, 0, 0],
              _none=[], _strs=['a\nb', 'c'], _cube=[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]), 1),
    ]
    enum_rows = [
        dict(_color=0, _big=0, _hexc=0xbeef, _tiny=0, _tiny2=5),
        dict(_color=1, _big=1 << 63, _hexc=0x10, _tiny=5, _tiny2=7),
        dict(_color=2, _big=(1 << 64) - 1, _hexc=0x1234, _tiny=1, _tiny2=0),
        dict(_color=15, _big=12345, _hexc=0xff, _tiny=3, _tiny2=3),
        dict(_color=-3, _big=0, _hexc=0, _tiny=0, _tiny2=0),
        dict(_color=99, _big=0, _hexc=0, _tiny=0, _tiny2=0),
        dict(_color=-2147483648, _big=0, _hexc=0, _tiny=0, _tiny2=0),
        dict(_color=26, _big=0, _hexc=0, _tiny=0, _tiny2=0),
    ]
    float_rows = [
        (0.0, 0.0), (-0.0, -0.0), (3.14159, 2.718281828459045), (1e20, 1e-300),
        (100000.0, -123456789.0), (1234567.0, 1e100), (-0.5, 0.333333333333),
        (float('inf'), float('-inf')), (float('-inf'), float('nan')),
        (float('nan'), NEG_NAN_DOUBLE), (NEG_NAN_FLOAT, 5e-324), (1.4e-45, 1.7976931348623157e308),
        (3.4028234663852886e38, 2.2250738585072014e-308), (16777217.0, 0.1),
        (RawBits(0x7f800001), RawBits(0x7ff0000000000001)),
    ]
    string_rows = [
        ('', '', 'Z'), ('hello, world', 'ascii text', 'a'),
        ('a"b\\c\nd\te\x1f?g\'h\x7f', 'bell\a bs\b esc\x1b ff\f cr\r vt\v', '\n'),
        ('caf\u00e9 \u65e5\u672c \U0001F600', 'x', '\xe9'.encode('latin-1')),
        (b'bad utf8 \xff\xfe\xc3', b'\x01\x02\x03', b'\x7f'),
        ('??=??/ trigraph-ish', "'single'", '?'),
    ]

    # Packets: stream instance 0 (three packets, the 1 kHz clock's 27-bit
    # compact timestamps wrap inside packet 2; a huge gap forces an extended
    # header) and instance 1 (events tied with instance 0).
    wrap = 3 << 27
    s0 = t.stream('stream_0', sc, 0, header_kind='compact')
    ms = 1000
    evs = []
    tsv = ms
    for r in bits_rows:
        evs.append(Event(ec_bits, tsv, fields=r, sec=sec()))
        tsv += 3
    for r, k in var_rows:
        if k == 0:
            evs.append(Event(ec_var, tsv, fields=r, sec=sec(101)))
            tsv += 2
    s0.packet({'timestamp_begin': ms, 'timestamp_end': tsv, 'packet_seq_num': 0,
               'events_discarded': 0, 'cpu_id': 0, 'kind': 0, 'flags': 5}, evs)
    begin = tsv
    evs = []
    for r, n in arr_rows:
        evs.append(Event(ec_arr, tsv, fields=r, sec=sec(102, n)))
        tsv += 1
    for r in enum_rows:
        evs.append(Event(ec_enum, tsv, fields=r, sec=sec(103)))
    tsv += 1
    for f, d in float_rows:
        evs.append(Event(ec_float, tsv, fields={'_f': f, '_d': d, '_fb': 5, '_f2': 1.5},
                         sec=sec(104)))
        tsv += 1
    s0.packet({'timestamp_begin': begin, 'timestamp_end': tsv, 'packet_seq_num': 1,
               'events_discarded': 0, 'cpu_id': 0, 'kind': 1, 'flags': 0}, evs)
    # Packet 3 starts just before a 27-bit boundary of the clock.
    begin = wrap - 5
    tsv = begin
    evs = []
    for r, k in var_rows:
        if k == 1:
            evs.append(Event(ec_var, tsv, fields=r, sec=sec(105)))
            tsv += 2
    for s, a, c in string_rows:
        evs.append(Event(ec_str, tsv, fields={'_s': s, '_ascii': a, '_ch': c}, sec=sec(106)))
        tsv += 1
    evs.append(Event(ec_nofields, tsv, sec=sec(107)))
    evs.append(Event(ec_empty, tsv, fields={}, sec=sec(107)))
    evs.append(Event(ec_ctx, tsv + 1, context={'_prio': -20, '_who': 'ctx'}, fields={'_x': 1},
                     sec=sec(108)))
    tsv += 2
    evs.append(Event(ec_clk, tsv, fields={'_before': 1, '_ts': tsv + 7, '_after': 2},
                     sec=sec(109), clock_updates=[tsv + 7]))
    tsv += 10
    evs.append(Event(ec_al, tsv, fields={'_b': 1, '_s': {'_q': 2}, '_w': 3, '_bit': 1,
                                         '_dw': 0xDEADBEEFCAFEF00D, '_pad': {}, '_last': 4},
                     sec=sec(110)))
    tsv += 1
    evs.append(Event(ec_far, tsv, fields={'_v': 40}, sec=sec(111)))
    tsv += (1 << 28)  # far beyond 2^27 cycles: extended header
    evs.append(Event(ec_far, tsv, fields={'_v': 41}, sec=sec(111)))
    s0.packet({'timestamp_begin': begin, 'timestamp_end': tsv, 'packet_seq_num': 2,
               'events_discarded': 0, 'cpu_id': 0, 'kind': 1, 'flags': 7}, evs)
    s0.close()

    s1 = t.stream('stream_1', sc, 1, header_kind='compact')
    evs = [Event(ec_bits, ms, fields=bits_rows[0], sec=sec(200)),
           Event(ec_empty, ms + 3, fields={}, sec=sec(200)),
           Event(ec_ctx, ms + 3, context={'_prio': 5, '_who': 'tie'}, fields={'_x': 2},
                 sec=sec(200))]
    s1.packet({'timestamp_begin': ms, 'timestamp_end': ms + 4, 'packet_seq_num': 0,
               'events_discarded': 0, 'cpu_id': 1, 'kind': 0, 'flags': 1}, evs)
    s1.close()


# ---------------------------------------------------------------------------
# compact-wrap: 1 GHz clock whose offset needs normalization (offset > freq),
# compact 27-bit timestamps wrapping many times, extended headers for gaps
# >= 2^27 ns, discarded events and a lost packet in generated data; kernel-like
# packetized metadata without the text signature.

def trace_compact_wrap():
    clk = Clock('monotonic', freq=1000000000, offset_s=1600000000, offset=7300000123,
                uuid='aaaaaaaa-0000-4000-8000-000000000002')
    t = Trace(fresh(os.path.join(GEN, 'compact-wrap')), 'le',
              uuid='22222222-3333-4444-8555-666666666601',
              env={'hostname': 'wraphost', 'domain': 'kernel', 'tracer_name': 'ctfgen',
                   'tracer_major': 1, 'tracer_minor': 0, 'trace_buffering_scheme': 'global'},
              clocks=[clk], packet_header_type=packet_header(), signature=None)
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=compact_header())
    tick = t.event_class('sched_tick', 0, sc, fields=Struct([('_n', U32), ('_cpu', U8)]))
    note = t.event_class('note', 1, sc, fields=Struct([('_msg', String())]))
    # Like lttng-modules: packetized metadata whose text has no signature.
    t.write_metadata(packetized=True)
    base = 5000000000
    for cpu in (0, 1):
        s = t.stream('channel0_%d' % cpu, sc, cpu, header_kind='compact')
        ts = base + cpu * 17
        pk = []
        n = 0
        gaps = [40000000, 90000000, 130000000, 1 << 27, (1 << 27) - 1, 300000000, 1, 0,
                65000000]
        for p in range(5):
            begin = ts
            evs = []
            for i in range(6):
                ts += gaps[(n + p) % len(gaps)]
                evs.append(Event(tick, ts, fields={'_n': n, '_cpu': cpu}))
                if n % 4 == 3:
                    evs.append(Event(note, ts, fields={'_msg': 'wrap %d' % n}))
                n += 1
            ts += 1000
            pk.append((begin, ts, evs, {'cpu_id': cpu}))
        discarded = [0, 0, 12, 12, 40] if cpu == 0 else [0, 1, 1, 1, 1]
        if cpu == 1:
            # Packet 3 of CPU 1 is lost: its seq number never appears.
            seqs = [0, 1, 2, 4, 5]
            for (begin, end, evs, extra), seq, d in zip(pk, seqs, discarded):
                ctx = {'timestamp_begin': begin, 'timestamp_end': end, 'packet_seq_num': seq,
                       'events_discarded': d}
                ctx.update(extra)
                s.packet(ctx, evs)
            s.close()
        else:
            seq_packets(s, pk, discarded=discarded)


# ---------------------------------------------------------------------------
# Clocks: negative offset_s (negative times), an odd frequency needing the
# double-precision conversion.

def trace_clock_neg():
    clk = Clock('monotonic', freq=1000, offset_s=-3, offset=0,
                uuid='aaaaaaaa-0000-4000-8000-000000000003')
    t = Trace(fresh(os.path.join(GEN, 'clock-neg')), 'le',
              uuid='33333333-4444-4555-8666-777777777701',
              env={'hostname': 'neghost', 'tracer_name': 'ctfgen'},
              clocks=[clk], packet_header_type=packet_header())
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=large_header())
    ev = t.event_class('tick', 0, sc, fields=Struct([('_ms', S64)]))
    t.write_metadata()
    s = t.stream('ch_0', sc, 0, header_kind='large')
    times = [0, 500, 999, 1500, 2000, 2500, 2999, 3000, 3001, 3700, 4200, 90000]
    seq_packets(s, [(0, times[-1], [Event(ev, x, fields={'_ms': x - 3000}) for x in times],
                     {'cpu_id': 0})])


def trace_clock_odd():
    clk = Clock('weird', freq=1234567, offset_s=1650000000, offset=1234000,
                uuid='aaaaaaaa-0000-4000-8000-000000000004', description='odd freq')
    t = Trace(fresh(os.path.join(GEN, 'clock-odd')), 'be',
              uuid='33333333-4444-4555-8666-777777777702',
              env={'hostname': 'oddhost', 'tracer_name': 'ctfgen'},
              clocks=[clk], packet_header_type=packet_header())
    pctx = Struct([
        ('timestamp_begin', uint(64, align=8, map='weird')),
        ('timestamp_end', uint(64, align=8, map='weird')),
        ('content_size', U32), ('packet_size', U32), ('cpu_id', U16)])
    sc = t.stream_class(0, packet_context=pctx, event_header=large_header('weird'))
    ev = t.event_class('odd', 0, sc, fields=Struct([('_v', U64)]))
    t.write_metadata()
    s = t.stream('ch_0', sc, 0, header_kind='large')
    times = [1, 2, 3, 1234566, 1234567, 1234568, 987654321, 987654322, 123456789012,
             123456789013, (1 << 40) + 12345, (1 << 45) + 7]
    s.packet({'timestamp_begin': 0, 'timestamp_end': times[-1], 'cpu_id': 0},
             [Event(ev, x, fields={'_v': x}) for x in times])
    s.close()


# ---------------------------------------------------------------------------
# No clock at all: lines carry no timestamp; no UUID; discarded events and
# packets with no time range ("(unknown time range)", "(no UUID)").

def trace_noclock():
    t = Trace(fresh(os.path.join(GEN, 'noclock')), 'le', uuid=None,
              env={'hostname': 'nohost-clock'},
              packet_header_type=packet_header(with_uuid=False))
    pctx = Struct([('content_size', U64), ('packet_size', U64), ('packet_seq_num', U32),
                   ('events_discarded', U32), ('tstamp_begin', U64)])
    sc = t.stream_class(0, packet_context=pctx, event_header=Struct([('id', U8)]))
    e1 = t.event_class('ev_bits', 0, sc, fields=Struct([('_a', sint(3, align=1)),
                                                        ('_b', uint(5, align=1))]))
    e2 = t.event_class('ev_empty', 1, sc)
    t.write_metadata()
    s = t.stream('data', sc, 0, packet_align=64)
    for i, (seq, disc) in enumerate([(0, 0), (1, 3), (3, 3), (4, 10)]):
        s.packet({'packet_seq_num': seq, 'events_discarded': disc, 'tstamp_begin': 1000 * i},
                 [Event(e1, fields={'_a': -3 + i, '_b': 22 + i}), Event(e2)])
    s.close()


# Unmapped `timestamp`/`timestamp_begin` fields and no clock block: babeltrace2
# maps them to an implicit 1 GHz clock with a zero offset (1970 dates).
def trace_implicit_clock():
    t = Trace(fresh(os.path.join(GEN, 'implicit-clock')), 'le',
              uuid='44444444-5555-4666-8777-888888888801',
              env={'hostname': 'implicit'}, packet_header_type=packet_header())
    pctx = Struct([('timestamp_begin', U64), ('timestamp_end', U64),
                   ('content_size', U64), ('packet_size', U64)])
    sc = t.stream_class(0, packet_context=pctx,
                        event_header=Struct([('id', U16), ('timestamp', U64)]))
    ev = t.event_class('boot', 0, sc, fields=Struct([('_step', U8)]))
    t.write_metadata()
    s = t.stream('ch', sc, 0)
    times = [0, 1, 999999999, 1000000000, 86400 * 1000000000 + 5, 1700000000123456789]
    s.packet({'timestamp_begin': 0, 'timestamp_end': times[-1]},
             [Event(ev, x, fields={'_step': i}) for i, x in enumerate(times)])
    s.close()


# Minimal: no packet header, no packet context (the whole file is one packet),
# events without a payload → lines ending in ": ".
def trace_minimal():
    clk = Clock('c', freq=1000000, offset_s=1000000000)
    t = Trace(fresh(os.path.join(GEN, 'minimal')), 'le', env=None, clocks=[clk])
    sc = t.stream_class(0, event_header=Struct([('id', U8),
                                                ('timestamp', uint(32, align=8, map='c'))]),
                        emit_id=False)
    a = t.event_class('ev_empty', 0, sc, emit_stream_id=False)
    b = t.event_class('ev_one', 1, sc, fields=Struct([('_x', U8)]), emit_stream_id=False)
    t.write_metadata()
    s = t.stream('only', sc, 0, packet_align=0)
    s.packet({}, [Event(a, 10), Event(b, 20, fields={'_x': 7}), Event(a, 30), Event(a, 30),
                  Event(b, 4000000000, fields={'_x': 8})])
    s.close()


# ---------------------------------------------------------------------------
# packetized-be: big-endian, packetized metadata cut every 200 bytes (inside
# tokens), and TSDL syntax variety: typedef, multi-word typealias, named
# struct/enum/variant, comments, integer constant forms, alternate spellings.

def trace_packetized_be():
    t = Trace(fresh(os.path.join(GEN, 'packetized-be')), 'be',
              uuid='55555555-6666-4777-8888-999999999901',
              env={'hostname': 'bighost', 'domain': 'ust', 'procname': 'bigapp', 'vpid': 4242,
                   'tracer_name': 'ctfgen'},
              clocks=[Clock('monotonic', freq=1000000000, offset=1700000000000000000,
                            uuid='aaaaaaaa-0000-4000-8000-000000000005')])
    preamble = (
        '// line comment before anything\n'
        'typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n'
        'typealias integer { size = 0x10; align = 010; signed = FALSE; } := uint16_t;\n'
        'typealias integer { size = 32U; align = 8; signed = 0; } := uint32_t;\n'
        'typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n'
        'typedef integer { size = 32; align = 8; signed = TRUE; base = decimal; } int_t;\n'
        'typealias integer { size = 64; align = 8; signed = false; '
        'map = clock.monotonic.value; } := uint64_clock_t;\n'
        'typealias integer { size = 16; align = 8; signed = true; byte_order = network; '
        'base = hexadecimal; } := net16_t;\n'
        'typealias integer { size = 16; align = 8; signed = false; byte_order = le; '
        'base = p; } := le16_t;\n'
        '/* a block\n   comment */\n'
        'enum mode : uint8_t { IDLE, RUN, "STOP" = 5, HALT ... LAST };\n'
        'struct point { int_t x; int_t y; } align(16);\n'
        'variant payload { uint32_t IDLE; string RUN; struct point STOP; uint8_t HALT; '
        'uint16_t LAST; };\n'
        '\n')
    # "HALT ... LAST" is not valid enum syntax; keep the explicit ranges below instead.
    preamble = preamble.replace('HALT ... LAST', 'HALT = 6 ... 9, LAST = +10')
    u8 = Alias('uint8_t', U8)
    u16 = Alias('uint16_t', U16)
    u32 = Alias('uint32_t', U32)
    ulong = Alias('unsigned long', U64)
    int_t = Alias('int_t', S32)
    clk64 = Alias('uint64_clock_t', uint(64, align=8, map='monotonic'))
    net16 = Alias('net16_t', sint(16, align=8, byte_order='network', base=16))
    le16 = Alias('le16_t', uint(16, align=8, byte_order='le', base=16))
    mode = Alias('enum mode', Enum(U8, []))
    point = Alias('struct point', Struct([('x', S32), ('y', S32)], align=16))
    payload = Alias('variant payload <_m>', Variant('_m', [
        ('IDLE', U32), ('RUN', String()), ('STOP', point.target), ('HALT', U8), ('LAST', U16)]))
    t.preamble = preamble
    t.packet_header = Struct([('magic', u32), ('uuid', Array(u8, 16)), ('stream_id', u32)])
    pctx = Struct([('timestamp_begin', clk64), ('timestamp_end', clk64),
                   ('content_size', ulong), ('packet_size', ulong), ('cpu_id', u16)])
    hdr = Struct([('id', u16), ('timestamp', clk64)])
    sc = t.stream_class(0, packet_context=pctx, event_header=hdr,
                        event_context=Struct([('_vtid', int_t)]))
    ev = t.event_class('big:mode', 0, sc, fields=Struct([
        ('_m', mode), ('_p', payload), ('_n', net16), ('_l', le16), ('_pt', point)]),
        loglevel=7, emf='uri:big')
    ev2 = t.event_class('big:seq', 1, sc, fields=Struct([
        ('_len', ulong), ('_vals', Sequence(int_t, '_len')),
        ('_txt', Sequence(UTF8_CHAR, 'event.fields._len'))]))
    text = t.metadata_text()
    t.write_metadata(packetized=True, packet_size=512, chunk=200, text=text)
    s = t.stream('stream_a', sc, 0)
    evs = []
    ts = 1000
    for m, p in [(0, ('IDLE', 7)), (1, ('RUN', 'running')), (5, ('STOP', {'x': -1, 'y': 2})),
                 (6, ('HALT', 255)), (9, ('HALT', 0)), (10, ('LAST', 65535))]:
        evs.append(Event(ev, ts, fields={'_m': m, '_p': p, '_n': -2, '_l': 0x1234,
                                         '_pt': {'x': m, 'y': -m}}, sec={'_vtid': 77}))
        ts += 1000
    for n in (0, 1, 3):
        evs.append(Event(ev2, ts, fields={'_len': n, '_vals': list(range(-n, 0)),
                                          '_txt': b'abc'[:n]}, sec={'_vtid': 78}))
        ts += 1
    s.packet({'timestamp_begin': 1000, 'timestamp_end': ts, 'cpu_id': 3}, evs)
    s.close()


# ---------------------------------------------------------------------------
# multi-sc: three stream classes (ids 0, 1, 5), event ids reused per class,
# equal timestamps across streams (tie-break by stream class, then stream id),
# and two files holding the same stream (same class + instance id).

def trace_multi_sc():
    clk = Clock('monotonic', freq=1000000000, offset_s=1700000000,
                uuid='aaaaaaaa-0000-4000-8000-000000000006')
    t = Trace(fresh(os.path.join(GEN, 'multi-sc')), 'le',
              uuid='66666666-7777-4888-8999-aaaaaaaaaa01',
              env={'hostname': 'multisc', 'tracer_name': 'ctfgen'},
              clocks=[clk], packet_header_type=packet_header())
    sc0 = t.stream_class(0, packet_context=lttng_like_packet_context(),
                         event_header=large_header(), event_context=Struct([('_vtid', S32)]))
    sc1 = t.stream_class(1, packet_context=lttng_like_packet_context([('_extra', U8)]),
                         event_header=compact_header())
    sc5 = t.stream_class(5, packet_context=Struct([
        ('timestamp_begin', uint(64, align=8, map='monotonic')),
        ('timestamp_end', uint(64, align=8, map='monotonic')),
        ('content_size', U64), ('packet_size', U64)]),
        event_header=Struct([('timestamp', uint(64, align=8, map='monotonic'))]))
    a0 = t.event_class('sc0:a', 0, sc0, fields=Struct([('_v', U32)]))
    b0 = t.event_class('sc0:b', 1, sc0, fields=Struct([('_s', String())]))
    a1 = t.event_class('sc1:a', 0, sc1, fields=Struct([('_v', S8)]))
    b1 = t.event_class('sc1:b', 1, sc1)
    only5 = t.event_class('sc5:only', 0, sc5, fields=Struct([('_v', U16)]))
    t.write_metadata()
    T = 1000000

    def pk(stream, begin, end, evs, seq, extra=None):
        ctx = {'timestamp_begin': begin, 'timestamp_end': end, 'packet_seq_num': seq,
               'events_discarded': 0, 'cpu_id': stream.instance_id}
        ctx.update(extra or {})
        stream.packet(ctx, evs)

    s = t.stream('sc0_0', sc0, 0, header_kind='large')
    pk(s, T, T + 100, [Event(a0, T + 10, fields={'_v': 1}, sec={'_vtid': 10}),
                       Event(b0, T + 50, fields={'_s': 'tie'}, sec={'_vtid': 10}),
                       Event(a0, T + 50, fields={'_v': 2}, sec={'_vtid': 10})], 0)
    s.close()
    s = t.stream('sc0_1', sc0, 1, header_kind='large')
    pk(s, T, T + 100, [Event(a0, T + 50, fields={'_v': 3}, sec={'_vtid': 11}),
                       Event(b0, T + 60, fields={'_s': 'one'}, sec={'_vtid': 11})], 0)
    s.close()
    s = t.stream('sc1_0', sc1, 0, header_kind='compact')
    pk(s, T, T + 100, [Event(a1, T + 50, fields={'_v': -1}), Event(b1, T + 50)], 0,
       {'_extra': 9})
    s.close()
    # Same stream (class 1, instance 7) split over two files; the later
    # file name holds the earlier packet.
    s = t.stream('sc1_7_b', sc1, 7, header_kind='compact')
    pk(s, T + 200, T + 300, [Event(a1, T + 250, fields={'_v': 5})], 1, {'_extra': 2})
    s.close()
    s = t.stream('sc1_7_a', sc1, 7, header_kind='compact')
    pk(s, T, T + 150, [Event(a1, T + 50, fields={'_v': 4}), Event(b1, T + 120)], 0,
       {'_extra': 1})
    s.close()
    s = t.stream('sc5_0', sc5, 0)
    s.packet({'timestamp_begin': T, 'timestamp_end': T + 100},
             [Event(only5, None, header={'timestamp': T + 50}, fields={'_v': 5})])
    s.close()


# ---------------------------------------------------------------------------
# merge: four traces in one directory, all with absolute clocks, events tied
# across traces (tie-break: UUID first by memcmp, then trace name).

def trace_merge():
    root = fresh(os.path.join(GEN, 'merge'))
    specs = [('t1', 'bbbbbbbb-0000-4000-8000-000000000001', 'hostb'),
             ('t2', 'aaaaaaaa-0000-4000-8000-0000000000ff', 'hosta'),
             ('t3', None, 'zeta'),
             ('t4', None, 'alpha')]
    for i, (name, uuid, host) in enumerate(specs):
        clk = Clock('monotonic', freq=1000000000, offset_s=1700000000, absolute=True)
        t = Trace(os.path.join(root, name), 'le', uuid=uuid,
                  env={'hostname': host, 'tracer_name': 'ctfgen'}, clocks=[clk],
                  packet_header_type=packet_header(with_uuid=uuid is not None))
        sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                            event_header=large_header())
        ev = t.event_class('m:ev', 0, sc, fields=Struct([('_trace', String()), ('_i', U8)]))
        ev2 = t.event_class('m:other', 1, sc, fields=Struct([('_trace', String())]))
        t.write_metadata()
        s = t.stream('ch_0', sc, 0, header_kind='large')
        evs = [Event(ev, 100 + i, fields={'_trace': name, '_i': 0}),
               Event(ev, 500, fields={'_trace': name, '_i': 1}),
               Event(ev2, 500, fields={'_trace': name}),
               Event(ev, 900 - i, fields={'_trace': name, '_i': 2})]
        s.packet({'timestamp_begin': 0, 'timestamp_end': 1000, 'packet_seq_num': 0,
                  'events_discarded': 0, 'cpu_id': 0}, evs)
        s.close()


# ---------------------------------------------------------------------------
# stale-strings: three streams of one class in many small packets, with
# empty strings and text sequences following non-empty ones across packet
# boundaries. babeltrace2 prints an empty field as the stale text of its
# recycled event object, which the reader keeps after the packet buffer that
# held the text is reused (lib/ctf/stream.h); every text is unique, so a
# stale pointer into a reused buffer shows. Stream 2 ends with packets far
# larger than the first ones (the reader's first read of a packet is short).

def trace_stale_strings():
    clk = Clock('monotonic', freq=1000000000, offset_s=1700000000,
                uuid='aaaaaaaa-0000-4000-8000-000000000009')
    t = Trace(fresh(os.path.join(GEN, 'stale-strings')), 'le',
              uuid='99999999-7777-4888-8999-aaaaaaaaaa09',
              env={'hostname': 'stale', 'domain': 'ust', 'tracer_name': 'ctfgen'},
              clocks=[clk], packet_header_type=packet_header())
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=large_header(),
                        event_context=Struct([('_who', String())]))
    a = t.event_class('st:a', 0, sc, fields=Struct([('_s', String()), ('_n', U16),
                                                    ('_t', String())]))
    b = t.event_class('st:b', 1, sc, fields=Struct([
        ('_len', U8), ('_txt', Sequence(UTF8_CHAR, '_len')), ('_arr', Array(UTF8_CHAR, 3))]))
    t.write_metadata()
    T = 1000000

    def text(k, p, i, tag, n):
        if (p * 7 + i * 3 + k + n) % 4:
            return ''
        return '%s%d-p%03d-e%d' % (tag, k, p, i) + '+' * ((p * 5 + i) % 40)

    for k in range(3):
        s = t.stream('chan_%d' % k, sc, k, header_kind='large', packet_align=8)
        n_pk = 70
        for p in range(n_pk):
            begin = T + p * 1000 + k * 7
            evs = []
            for i in range(1 + (p + k) % 3):
                ts = begin + 1 + i * 150 + k * 3
                who = text(k, p, i, 'w', 1)
                if (p + i) % 2:
                    txt = text(k, p, i, 'q', 2)[:200]
                    if k == 2 and p >= n_pk - 3:
                        txt = ('big%d-%d-' % (p, i)) * 20
                        txt = txt[:200]
                    arr = (text(k, p, i, 'r', 3).encode() + b'\0\0\0')[:3]
                    evs.append(Event(b, ts, sec={'_who': who},
                                     fields={'_len': len(txt), '_txt': txt.encode(),
                                             '_arr': arr}))
                else:
                    big = k == 2 and p >= n_pk - 3
                    s1 = ('L%d-%d:' % (p, i)) * 900 if big else text(k, p, i, 's', 0)
                    evs.append(Event(a, ts, sec={'_who': who},
                                     fields={'_s': s1, '_n': p * 10 + i,
                                             '_t': text(k, p, i, 't', 1)}))
            s.packet({'timestamp_begin': begin, 'timestamp_end': begin + 900,
                      'packet_seq_num': p, 'events_discarded': 0, 'cpu_id': k}, evs)
        s.close()


# ---------------------------------------------------------------------------
# stale-nested: empty text below the top level of a scope (in structs,
# static arrays, sequences whose length goes up and down, variant options
# and text arrays inside structs), which babeltrace2 2.0.4 also prints as
# the recycled object's stale text, per field object: a sequence keeps the
# element fields it once had, a variant keeps every option's field.

def trace_stale_nested():
    clk = Clock('monotonic', freq=1000000000, offset_s=1700000000,
                uuid='aaaaaaaa-0000-4000-8000-00000000000a')
    t = Trace(fresh(os.path.join(GEN, 'stale-nested')), 'be',
              uuid='99999999-7777-4888-8999-aaaaaaaaaa0a',
              env={'hostname': 'nested', 'domain': 'ust', 'tracer_name': 'ctfgen'},
              clocks=[clk], packet_header_type=packet_header())
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=compact_header(),
                        event_context=Struct([('_ctx', Struct([('_who', String()),
                                                               ('_k', U8)]))]))
    sel = Enum(U8, [('S', 0), ('T', 1), ('N', 2)])
    a = t.event_class('nest:a', 0, sc, fields=Struct([
        ('_in', Struct([('_s', String()), ('_n', U16),
                        ('_t', Array(UTF8_CHAR, 4))])),
        ('_arr', Array(String(), 2)),
        ('_len', U8), ('_seq', Sequence(String(), '_len')),
        ('_sel', sel),
        ('_v', Variant('_sel', [('S', String()),
                                ('T', Struct([('_x', String()), ('_y', U8)])),
                                ('N', U32)])),
        ('_top', String())]))
    b = t.event_class('nest:b', 1, sc, fields=Struct([
        ('_pairs_len', U8),
        ('_pairs', Sequence(Struct([('_key', String()), ('_val', S32)]), '_pairs_len'))]))
    t.write_metadata(packetized=True)

    def text(tag, *ks):
        h = 0
        for k in ks:
            h = (h * 31 + k + 7) % 1009
        if h % 3:
            return ''
        return '%s%d' % (tag, h) + '.' * (h % 9)

    for k in range(3):
        s = t.stream('chan_%d' % k, sc, k, header_kind='compact', packet_align=64)
        for p in range(25):
            begin = 5000000 + p * 1000 + k * 5
            evs = []
            for i in range(1 + (p * 3 + k) % 4):
                ts = begin + 10 + i * 200 + k
                sec = {'_ctx': {'_who': text('w', k, p, i), '_k': k}}
                if (p + i + k) % 3:
                    n = (p * 7 + i * 5 + k) % 4
                    selv = (p + i * 2 + k) % 3
                    v = (text('v', k, p, i) if selv == 0 else
                         {'_x': text('x', k, p, i, 1), '_y': i} if selv == 1 else p)
                    evs.append(Event(a, ts, sec=sec, fields={
                        '_in': {'_s': text('s', k, p, i), '_n': p,
                                '_t': (text('t', k, p, i, 2).encode() + b'\0' * 4)[:4]},
                        '_arr': [text('a', k, p, i, j) for j in range(2)],
                        '_len': n, '_seq': [text('q', k, p, i, j) for j in range(n)],
                        '_sel': selv, '_v': ('STN'[selv], v),
                        '_top': text('o', k, p, i)}))
                else:
                    n = (p + i + k) % 3
                    evs.append(Event(b, ts, sec=sec, fields={
                        '_pairs_len': n,
                        '_pairs': [{'_key': text('k', k, p, i, j), '_val': j - p}
                                   for j in range(n)]}))
            s.packet({'timestamp_begin': begin, 'timestamp_end': begin + 900,
                      'packet_seq_num': p, 'events_discarded': 0, 'cpu_id': k}, evs)
        s.close()


# ---------------------------------------------------------------------------
# nohost: a non-LTTng env without hostname (procname and vpid only), plus an
# empty stream file and a hidden file, both ignored.

def trace_nohost():
    clk = Clock('monotonic', freq=1000000000, offset_s=1500000000, offset=999999999)
    t = Trace(fresh(os.path.join(GEN, 'nohost')), 'le',
              uuid='77777777-8888-4999-8aaa-bbbbbbbbbb01',
              env={'procname': 'lonely', 'vpid': 31337, 'tracer_name': 'mytracer',
                   'build': 'abc'},
              clocks=[clk], packet_header_type=packet_header())
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=large_header())
    ev = t.event_class('ping', 0, sc, fields=Struct([('_n', U8)]), loglevel=0)
    t.write_metadata()
    s = t.stream('ch_0', sc, 0, header_kind='large')
    s.packet({'timestamp_begin': 0, 'timestamp_end': 100, 'packet_seq_num': 0,
              'events_discarded': 0, 'cpu_id': 0},
             [Event(ev, x, fields={'_n': x}) for x in (1, 2, 100)])
    s.close()
    # Readers skip empty stream files and hidden files.
    open(os.path.join(t.path, 'ch_1_empty'), 'wb').close()
    with open(os.path.join(t.path, '.hidden'), 'w') as f:
        f.write('not a stream\n')


# ---------------------------------------------------------------------------
# lttng-quirks: an lttng-ust 2.10 env (babeltrace2 applies its LTTng fix-ups)
# and a last packet left unclosed by a crash (timestamp_end == 0), after a
# discarded-events report. (A packet whose last event is later than its
# timestamp_end makes babeltrace2 2.0.4 fail in its muxer, so it is left out.)

def trace_lttng_quirks():
    clk = Clock('monotonic', freq=1000000000, offset=1700000000000000000,
                uuid='aaaaaaaa-0000-4000-8000-000000000007')
    t = Trace(fresh(os.path.join(GEN, 'lttng-quirks')), 'le',
              uuid='99999999-aaaa-4bbb-8ccc-dddddddddd01',
              env={'hostname': 'quirky', 'domain': 'ust', 'tracer_name': 'lttng-ust',
                   'tracer_major': 2, 'tracer_minor': 10, 'tracer_patchlevel': 0},
              clocks=[clk], packet_header_type=packet_header())
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=large_header())
    ev = t.event_class('q:ev', 0, sc, fields=Struct([('_i', U32)]), loglevel=13)
    t.write_metadata(packetized=True)

    def pk(s, begin, end, times, seq, disc):
        s.packet({'timestamp_begin': begin, 'timestamp_end': end, 'packet_seq_num': seq,
                  'events_discarded': disc, 'cpu_id': s.instance_id},
                 [Event(ev, x, fields={'_i': x % 1000}) for x in times])

    # CPU 0: the last packet was never closed (crash): timestamp_end = 0.
    s = t.stream('channel0_0', sc, 0, header_kind='large')
    pk(s, 1000, 2000, [1100, 1900], 0, 0)
    pk(s, 3000, 4000, [3100, 3500], 1, 7)
    pk(s, 5000, 0, [5100, 5500], 2, 7)
    s.close()
    s = t.stream('channel0_1', sc, 1, header_kind='large')
    pk(s, 7000, 8000, [7200, 7500], 0, 0)
    pk(s, 9000, 10000, [9100], 1, 3)
    s.close()


# ---------------------------------------------------------------------------
# quirk-after-packet, quirk-crash: packet end times that are wrong as old or
# crashed LTTng tracers write them, which babeltrace2 2.0.4 works around from
# the env's tracer version (its packet end takes the last event's time);
# bad/time-back: the same packets from a tracer it considers fixed, so that
# its muxer stops where the stream's times go back.

def time_order_trace(path, tracer, packets0, packets1, uuid):
    # (name, major, minor): LTTng's tracer_patchlevel = 0; with a patch: tracer_patch.
    env = {'hostname': 'order', 'domain': 'ust', 'tracer_name': tracer[0],
           'tracer_major': tracer[1], 'tracer_minor': tracer[2]}
    if len(tracer) == 4:
        env['tracer_patch'] = tracer[3]
    else:
        env['tracer_patchlevel'] = 0
    clk = Clock('monotonic', freq=1000000000, offset=1700000000000000000, uuid=uuid)
    t = Trace(fresh(path), 'le', env=env,
              clocks=[clk], packet_header_type=packet_header(with_uuid=False))
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=large_header())
    ev = t.event_class('o:ev', 0, sc, fields=Struct([('_t', U32)]))
    t.write_metadata()
    for cpu, packets in enumerate((packets0, packets1)):
        s = t.stream('channel0_%d' % cpu, sc, cpu, header_kind='large')
        for seq, (begin, end, times) in enumerate(packets):
            s.packet({'timestamp_begin': begin, 'timestamp_end': end, 'packet_seq_num': seq,
                      'events_discarded': 0, 'cpu_id': cpu},
                     [Event(ev, x, fields={'_t': x}) for x in times])
        s.close()


# CPU 0's first packet ends at 2000 but holds an event at 2300.
AFTER_PACKET = ([(1000, 2000, [1100, 2300]), (2500, 3000, [2600, 2900])],
                [(1500, 3500, [1600, 2200, 2400, 3400])])


# CPU 0's packets begin after their first event (stream 1's events fall
# between), as barectf before 2.3.1 could write them.
BEFORE_PACKET = ([(1000, 2000, [900, 1500]), (2100, 3000, [2050, 2500])],
                 [(800, 3000, [950, 1200, 2060, 2600])])


def trace_quirks():
    time_order_trace(os.path.join(GEN, 'quirk-after-packet'), ('lttng-ust', 2, 10),
                     *AFTER_PACKET, 'aaaaaaaa-0000-4000-8000-00000000000a')
    # lttng-ust 2.13: only the crash quirk; CPU 0's last packet was never closed.
    time_order_trace(os.path.join(GEN, 'quirk-crash'), ('lttng-ust', 2, 13),
                     [(1000, 2000, [1100, 1900]), (3000, 0, [3100, 3500])],
                     [(1500, 4000, [1600, 3300, 3900])], 'aaaaaaaa-0000-4000-8000-00000000000b')
    # barectf 2.3.0: babeltrace2 gives a packet beginning its first event's time.
    time_order_trace(os.path.join(GEN, 'quirk-barectf'), ('barectf', 2, 3, 0), *BEFORE_PACKET,
                     'aaaaaaaa-0000-4000-8000-00000000000d')


# ---------------------------------------------------------------------------
# Malformed traces. Each starts from a small valid trace and breaks one thing.

def small_valid(path, metadata_text=None, **kw):
    clk = Clock('monotonic', freq=1000000000, offset_s=1700000000)
    t = Trace(fresh(path), 'le', uuid='88888888-9999-4aaa-8bbb-cccccccccc01',
              env={'hostname': 'badhost'}, clocks=[clk], packet_header_type=packet_header())
    sc = t.stream_class(0, packet_context=lttng_like_packet_context(),
                        event_header=large_header())
    ev = t.event_class('ok', 0, sc, fields=Struct([('_v', U32), ('_s', String())]))
    t.event_class('seq', 1, sc, fields=Struct([('_n', U32), ('_a', Sequence(U32, '_n'))]))
    t.event_class('var', 2, sc, fields=Struct([
        ('_t', Enum(U8, [('A', 0), ('B', 1)])), ('_v', Variant('_t', [('A', U8), ('B', U16)]))]))
    t.write_metadata(text=metadata_text(t.metadata_text()) if metadata_text else None)
    s = t.stream('channel0_0', sc, 0, header_kind='large')
    evs = [Event(ev, 10 + i, fields={'_v': i, '_s': 'event %d' % i}) for i in range(5)]
    ctx = {'timestamp_begin': 0, 'timestamp_end': 100, 'packet_seq_num': 0,
           'events_discarded': 0, 'cpu_id': 0}
    return t, s, ev, ctx, evs


def bad_traces():
    shutil.rmtree(BAD, ignore_errors=True)

    _, s, _, ctx, evs = small_valid(os.path.join(BAD, 'truncated'))
    s.packet(ctx, evs)
    s.packet(dict(ctx, packet_seq_num=1), evs, truncate_to=60)  # inside the packet header
    s.close()

    _, s, _, ctx, evs = small_valid(os.path.join(BAD, 'content-gt-packet'))
    s.packet(ctx, evs, content_size=4096 * 8 + 64)
    s.close()

    _, s, _, ctx, evs = small_valid(os.path.join(BAD, 'packet-beyond-file'))
    s.packet(ctx, evs, packet_size=3 * 4096 * 8)
    s.close()

    _, s, _, ctx, evs = small_valid(os.path.join(BAD, 'bad-magic'))
    s.packet(ctx, evs)
    s.packet(dict(ctx, packet_seq_num=1), evs, header={'magic': 0xDEADBEEF})
    s.close()

    _, s, _, ctx, evs = small_valid(os.path.join(BAD, 'metadata-syntax'),
                                    metadata_text=lambda m: m.replace('};\n\nenv', '}\n\nenv', 1)
                                    .replace('byte_order = le;', 'byte_order = le'))
    s.packet(ctx, evs)
    s.close()

    _, s, ev, ctx, evs = small_valid(os.path.join(BAD, 'unknown-event-id'))
    evs[2] = Event(ev, 12, header={'id': 65535, 'v': ('extended', {'id': 99, 'timestamp': 12})},
                   fields={'_v': 2, '_s': 'unknown'})
    s.packet(ctx, evs)
    s.close()

    # Decoding must stop at content_size: the last event's string loses
    # its NUL, then an event is cut in the middle of its payload.
    _, s, _, ctx, evs = small_valid(os.path.join(BAD, 'string-past-content'))
    w, _ = s._encode(ctx, evs, 0, 0, None)
    s.packet(ctx, evs, content_size=w.pos - 8)
    s.close()

    _, s, _, ctx, evs = small_valid(os.path.join(BAD, 'event-past-content'))
    w, _ = s._encode(ctx, evs, 0, 0, None)
    s.packet(ctx, evs, content_size=w.pos - 40)
    s.close()

    # A sequence length far beyond the packet (must not be allocated).
    t, s, _, ctx, evs = small_valid(os.path.join(BAD, 'huge-sequence'))
    seq = t.event_classes[1]
    evs.append(Event(seq, 20, fields={'_n': 0xFFFFFFFF, '_a': []}))
    s.packet(ctx, evs)
    s.close()

    # A variant tag value that selects no option.
    t, s, _, ctx, evs = small_valid(os.path.join(BAD, 'variant-no-option'))
    var = t.event_classes[2]
    evs.append(Event(var, 20, fields={'_t': 5, '_v': ('A', 1)}))
    s.packet(ctx, evs)
    s.close()

    time_order_trace(os.path.join(BAD, 'time-back'), ('lttng-ust', 2, 11), *AFTER_PACKET,
                     'aaaaaaaa-0000-4000-8000-00000000000c')
    time_order_trace(os.path.join(BAD, 'time-back-barectf'), ('barectf', 2, 3, 1),
                     *BEFORE_PACKET, 'aaaaaaaa-0000-4000-8000-00000000000e')

    _, s, _, ctx, evs = small_valid(os.path.join(BAD, 'no-signature'),
                                    metadata_text=lambda m: m.replace('/* CTF 1.8 */\n\n', '',
                                                                      1))
    s.packet(ctx, evs)
    s.close()


def main():
    os.makedirs(GEN, exist_ok=True)
    trace_types('le')
    trace_types('be')
    trace_compact_wrap()
    trace_clock_neg()
    trace_clock_odd()
    trace_noclock()
    trace_implicit_clock()
    trace_minimal()
    trace_packetized_be()
    trace_multi_sc()
    trace_merge()
    trace_nohost()
    trace_lttng_quirks()
    trace_quirks()
    trace_stale_strings()
    trace_stale_nested()
    bad_traces()


if __name__ == '__main__':
    main()
