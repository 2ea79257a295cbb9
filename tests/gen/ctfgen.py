#!/usr/bin/env python3
"""ctfgen: a small CTF 1.8 writer (standard library only).

It writes traces that LTTng cannot produce (big-endian, bit-fields, variants,
odd clocks, ...) for the golden and malformed trace corpus. The field types
below render themselves as TSDL and encode values, so the metadata and the
binary data cannot disagree. Encoding follows shared/reference/ctf.md 1.6:
alignment is relative to the packet start, little-endian bit-fields fill
each byte from its least significant bit, big-endian ones from its most
significant bit.

Library use (see gen-traces.py for the traces themselves):

    t = Trace('out/dir', byte_order='be', uuid='...', env={...}, clocks=[...])
    sc = t.stream_class(0, packet_context=..., event_header=..., event_context=None)
    ec = t.event_class('ev', 0, sc, fields=Struct([...]))
    t.write_metadata()
    s = t.stream('stream_0', sc, instance_id=0)
    s.packet({'timestamp_begin': 0, ...}, [Event(ec, ts, fields={...}), ...])
    s.close()
"""
import os
import struct as _struct
import uuid as _uuid

PACKET_MAGIC = 0xC1FC1FC1
METADATA_MAGIC = 0x75D11D57


# ---------------------------------------------------------------------------
# Bit-level writer


class BitWriter:
    """Appends bit-fields to a buffer; positions are bits from the start."""

    def __init__(self):
        self.buf = bytearray()
        self.pos = 0

    def _ensure(self, nbits):
        need = (self.pos + nbits + 7) // 8
        if len(self.buf) < need:
            self.buf.extend(b'\0' * (need - len(self.buf)))

    def align(self, alignment):
        if alignment > 1:
            rem = self.pos % alignment
            if rem:
                self._ensure(alignment - rem)
                self.pos += alignment - rem

    def write_uint(self, value, size, byte_order):
        """Writes the low `size` bits of `value` at the cursor."""
        value &= (1 << size) - 1
        self._ensure(size)
        if self.pos % 8 == 0 and size % 8 == 0:
            self.buf[self.pos // 8:self.pos // 8 + size // 8] = value.to_bytes(
                size // 8, 'little' if byte_order == 'le' else 'big')
            self.pos += size
            return
        for i in range(size):
            p = self.pos + i
            if byte_order == 'le':
                bit = (value >> i) & 1
                if bit:
                    self.buf[p // 8] |= 1 << (p % 8)
            else:
                bit = (value >> (size - 1 - i)) & 1
                if bit:
                    self.buf[p // 8] |= 0x80 >> (p % 8)
        self.pos += size

    def write_bytes(self, data):
        assert self.pos % 8 == 0
        self._ensure(len(data) * 8)
        self.buf[self.pos // 8:self.pos // 8 + len(data)] = data
        self.pos += len(data) * 8


# ---------------------------------------------------------------------------
# Field types: .tsdl() renders the type, .encode() writes a value.


class Type:
    name = None  # set for named types (typealias/typedef/struct name)

    def ref(self):
        return self.name if self.name else self.tsdl()


class Int(Type):
    def __init__(self, size, signed=False, align=None, byte_order=None, base=None,
                 encoding=None, map=None, signed_text=None):
        self.size = size
        self.signed = signed
        self.explicit_align = align
        self.byte_order = byte_order  # None: trace native; 'le', 'be', 'network', 'native'
        self.base = base
        self.encoding = encoding
        self.map = map
        self.signed_text = signed_text

    @property
    def alignment(self):
        if self.explicit_align is not None:
            return self.explicit_align
        return 8 if self.size % 8 == 0 else 1

    def tsdl(self):
        parts = ['size = %d;' % self.size]
        if self.explicit_align is not None:
            parts.append('align = %d;' % self.explicit_align)
        parts.append('signed = %s;' % (self.signed_text or ('true' if self.signed else 'false')))
        if self.byte_order:
            parts.append('byte_order = %s;' % self.byte_order)
        if self.base is not None:
            parts.append('base = %s;' % self.base)
        if self.encoding:
            parts.append('encoding = %s;' % self.encoding)
        if self.map:
            parts.append('map = clock.%s.value;' % self.map)
        return 'integer { %s }' % ' '.join(parts)

    def resolved_order(self, trace_order):
        if self.byte_order in ('be', 'network'):
            return 'be'
        if self.byte_order == 'le':
            return 'le'
        return trace_order

    def encode(self, w, value, bo):
        w.align(self.alignment)
        if isinstance(value, (bytes, str)):
            value = ord(value)
        if self.signed:
            assert -(1 << (self.size - 1)) <= value < (1 << (self.size - 1)), (value, self.size)
        else:
            assert 0 <= value < (1 << self.size), (value, self.size)
        w.write_uint(value, self.size, self.resolved_order(bo))


class Float(Type):
    def __init__(self, exp_dig=8, mant_dig=24, align=None, byte_order=None):
        self.exp_dig = exp_dig
        self.mant_dig = mant_dig
        self.explicit_align = align
        self.byte_order = byte_order

    @property
    def alignment(self):
        return self.explicit_align if self.explicit_align is not None else 8

    def tsdl(self):
        parts = ['exp_dig = %d;' % self.exp_dig, 'mant_dig = %d;' % self.mant_dig]
        if self.explicit_align is not None:
            parts.append('align = %d;' % self.explicit_align)
        if self.byte_order:
            parts.append('byte_order = %s;' % self.byte_order)
        return 'floating_point { %s }' % ' '.join(parts)

    def encode(self, w, value, bo):
        w.align(self.alignment)
        order = 'be' if self.byte_order in ('be', 'network') else (
            'le' if self.byte_order == 'le' else bo)
        fmt = ('<' if order == 'le' else '>') + ('f' if self.exp_dig == 8 else 'd')
        size = 32 if self.exp_dig == 8 else 64
        if isinstance(value, RawBits):
            raw = value.bits  # e.g. the x86 default NaN, which has its sign bit set
        else:
            raw = int.from_bytes(_struct.pack(fmt, value), 'little' if order == 'le' else 'big')
        w.write_uint(raw, size, order)


class String(Type):
    def __init__(self, encoding=None):
        self.encoding = encoding

    alignment = 8

    def tsdl(self):
        return 'string { encoding = %s; }' % self.encoding if self.encoding else 'string'

    def encode(self, w, value, bo):
        w.align(8)
        if isinstance(value, str):
            value = value.encode('utf-8')
        assert b'\0' not in value
        w.write_bytes(value + b'\0')


class Enum(Type):
    def __init__(self, container, mappings):
        """mappings: list of (label, value), (label, (lo, hi)) or (label, None)."""
        self.container = container
        self.mappings = mappings

    @property
    def alignment(self):
        return self.container.alignment

    def tsdl(self):
        items = []
        for label, v in self.mappings:
            quoted = '"%s"' % label.replace('\\', '\\\\').replace('"', '\\"')
            if v is None:
                items.append(quoted)
            elif isinstance(v, tuple):
                items.append('%s = %d ... %d' % (quoted, v[0], v[1]))
            else:
                items.append('%s = %d' % (quoted, v))
        return 'enum : %s { %s }' % (self.container.ref(), ', '.join(items))

    def encode(self, w, value, bo):
        self.container.encode(w, value, bo)


class Struct(Type):
    def __init__(self, fields, align=None, name=None):
        self.fields = fields  # list of (name, type)
        self.explicit_align = align
        self.name = name

    @property
    def alignment(self):
        a = self.explicit_align or 1
        for _, t in self.fields:
            a = max(a, t.alignment)
        return a

    def body(self):
        inner = ''.join('\t%s;\n' % decl(n, t) for n, t in self.fields)
        tail = ' align(%d)' % self.explicit_align if self.explicit_align else ''
        return '{\n%s}%s' % (inner, tail)

    def tsdl(self):
        return 'struct ' + self.body()

    def ref(self):
        return 'struct %s' % self.name if self.name else self.tsdl()

    def encode(self, w, value, bo):
        w.align(self.alignment)
        for n, t in self.fields:
            if n not in value:
                raise KeyError('missing field %r' % n)
            t.encode(w, value[n], bo)


class Array(Type):
    def __init__(self, elem, length):
        self.elem = elem
        self.length = length

    @property
    def alignment(self):
        return self.elem.alignment

    def encode(self, w, value, bo):
        w.align(self.alignment)
        if isinstance(value, (bytes, bytearray)):
            value = list(value) + [0] * (self.length - len(value))
        assert len(value) == self.length, (len(value), self.length)
        for x in value:
            self.elem.encode(w, x, bo)


class Sequence(Type):
    def __init__(self, elem, length_path):
        self.elem = elem
        self.length_path = length_path

    @property
    def alignment(self):
        return self.elem.alignment

    def encode(self, w, value, bo):
        w.align(self.alignment)
        if isinstance(value, (bytes, bytearray)):
            value = list(value)
        for x in value:
            self.elem.encode(w, x, bo)


class Variant(Type):
    def __init__(self, tag, options, name=None):
        self.tag = tag
        self.options = options  # list of (name, type)
        self.name = name

    @property
    def alignment(self):
        return 1  # the selected option aligns itself

    def tsdl(self):
        inner = ''.join('\t%s;\n' % decl(n, t) for n, t in self.options)
        return 'variant <%s> {\n%s}' % (self.tag, inner)

    def ref(self):
        return 'variant %s <%s>' % (self.name, self.tag) if self.name else self.tsdl()

    def encode(self, w, value, bo):
        opt, inner = value
        for n, t in self.options:
            if n == opt:
                t.encode(w, inner, bo)
                return
        raise KeyError('no variant option %r' % opt)


class Alias(Type):
    """A type referred to by a name declared with typealias/typedef."""

    def __init__(self, name, target):
        self.name = name
        self.target = target

    @property
    def alignment(self):
        return self.target.alignment

    def tsdl(self):
        return self.name

    def encode(self, w, value, bo):
        self.target.encode(w, value, bo)


def decl(name, t):
    """TSDL declaration of field `name` of type `t` (arrays become suffixes)."""
    suffix = ''
    while isinstance(t, (Array, Sequence)):
        suffix += '[%s]' % (t.length if isinstance(t, Array) else t.length_path)
        t = t.elem
    return '%s %s%s' % (t.ref(), name, suffix)


def typealias(t, name):
    return 'typealias %s := %s;\n' % (t.tsdl(), name)


# ---------------------------------------------------------------------------
# Common shapes


def uint(size, **kw):
    return Int(size, False, **kw)


def sint(size, **kw):
    return Int(size, True, **kw)


def lttng_like_packet_context(extra=()):
    return Struct([
        ('timestamp_begin', uint(64, align=8, map='monotonic')),
        ('timestamp_end', uint(64, align=8, map='monotonic')),
        ('content_size', uint(64, align=8)),
        ('packet_size', uint(64, align=8)),
        ('packet_seq_num', uint(64, align=8)),
        ('events_discarded', uint(64, align=8)),
        ('cpu_id', uint(32, align=8)),
    ] + list(extra))


def packet_header(with_stream_id=True, with_instance=True, with_uuid=True):
    fields = [('magic', uint(32, align=8))]
    if with_uuid:
        fields.append(('uuid', Array(uint(8, align=8), 16)))
    if with_stream_id:
        fields.append(('stream_id', uint(32, align=8)))
    if with_instance:
        fields.append(('stream_instance_id', uint(64, align=8)))
    return Struct(fields)


def compact_header(clock='monotonic', align=8):
    """LTTng's event_header_compact: 5-bit id + 27-bit timestamp or extended."""
    return Struct([
        ('id', Enum(uint(5, align=1), [('compact', (0, 30)), ('extended', 31)])),
        ('v', Variant('id', [
            ('compact', Struct([('timestamp', uint(27, align=1, map=clock))])),
            ('extended', Struct([('id', uint(32, align=8)),
                                 ('timestamp', uint(64, align=8, map=clock))])),
        ])),
    ], align=align)


def large_header(clock='monotonic'):
    return Struct([
        ('id', Enum(uint(16, align=8), [('compact', (0, 65534)), ('extended', 65535)])),
        ('v', Variant('id', [
            ('compact', Struct([('timestamp', uint(32, align=8, map=clock))])),
            ('extended', Struct([('id', uint(32, align=8)),
                                 ('timestamp', uint(64, align=8, map=clock))])),
        ])),
    ], align=8)


# ---------------------------------------------------------------------------
# Trace model


class Clock:
    def __init__(self, name, freq=None, offset_s=None, offset=None, uuid=None,
                 description=None, precision=None, absolute=None):
        self.name = name
        self.freq = freq
        self.offset_s = offset_s
        self.offset = offset
        self.uuid = uuid
        self.description = description
        self.precision = precision
        self.absolute = absolute

    def tsdl(self):
        lines = ['\tname = %s;' % self.name]
        if self.uuid:
            lines.append('\tuuid = "%s";' % self.uuid)
        if self.description:
            lines.append('\tdescription = "%s";' % self.description)
        for key in ('freq', 'precision', 'offset_s', 'offset'):
            v = getattr(self, key)
            if v is not None:
                lines.append('\t%s = %d;' % (key, v))
        if self.absolute is not None:
            lines.append('\tabsolute = %s;' % ('true' if self.absolute else 'false'))
        return 'clock {\n%s\n};\n' % '\n'.join(lines)


class StreamClass:
    def __init__(self, sid, packet_context=None, event_header=None, event_context=None,
                 emit_id=True):
        self.id = sid
        self.packet_context = packet_context
        self.event_header = event_header
        self.event_context = event_context
        self.emit_id = emit_id

    def tsdl(self):
        lines = []
        if self.emit_id:
            lines.append('\tid = %d;' % self.id)
        if self.event_header is not None:
            lines.append('\tevent.header := %s;' % self.event_header.ref())
        if self.packet_context is not None:
            lines.append('\tpacket.context := %s;' % self.packet_context.ref())
        if self.event_context is not None:
            lines.append('\tevent.context := %s;' % self.event_context.ref())
        return 'stream {\n%s\n};\n' % '\n'.join(lines)


class EventClass:
    def __init__(self, name, eid, sc, fields=None, context=None, loglevel=None, emf=None,
                 emit_stream_id=True):
        self.name = name
        self.id = eid
        self.sc = sc
        self.fields = fields
        self.context = context
        self.loglevel = loglevel
        self.emf = emf
        self.emit_stream_id = emit_stream_id

    def tsdl(self):
        lines = ['\tname = "%s";' % self.name, '\tid = %d;' % self.id]
        if self.emit_stream_id:
            lines.append('\tstream_id = %d;' % self.sc.id)
        if self.loglevel is not None:
            lines.append('\tloglevel = %d;' % self.loglevel)
        if self.emf is not None:
            lines.append('\tmodel.emf.uri = "%s";' % self.emf)
        if self.context is not None:
            lines.append('\tcontext := %s;' % self.context.ref())
        if self.fields is not None:
            lines.append('\tfields := %s;' % self.fields.ref())
        return 'event {\n%s\n};\n' % '\n'.join(lines)


class Event:
    """One event to write. `ts` is the full clock value (None: no timestamp);
    `header` overrides the generated header value entirely."""

    def __init__(self, ec, ts=None, fields=None, context=None, sec=None, header=None,
                 clock_updates=()):
        self.ec = ec
        self.ts = ts
        self.fields = fields
        self.context = context
        self.sec = sec
        self.header = header
        self.clock_updates = clock_updates  # clock values set by payload fields


def _fits(cur, ts, bits):
    """True if a `bits`-bit timestamp reconstructs `ts` from `cur` (ctf.md 1.9)."""
    if ts < cur:
        return False
    mask = (1 << bits) - 1
    v = ts & mask
    c = cur
    if v < (c & mask):
        c += mask + 1
    return ((c & ~mask) | v) == ts


def header_value(kind, eid, ts, cur):
    """Event header value for LTTng-style headers (kind 'compact'/'large')."""
    bits, max_id = (27, 30) if kind == 'compact' else (32, 65534)
    if eid <= max_id and _fits(cur, ts, bits):
        return {'id': eid, 'v': ('compact', {'timestamp': ts & ((1 << bits) - 1)})}
    return {'id': max_id + 1, 'v': ('extended', {'id': eid, 'timestamp': ts})}


class Trace:
    def __init__(self, path, byte_order='le', uuid=None, env=None, clocks=(),
                 packet_header_type=None, preamble='', signature='/* CTF 1.8 */',
                 trace_extra=''):
        self.path = path
        self.bo = byte_order
        self.uuid = uuid
        self.env = env
        self.clocks = list(clocks)
        self.packet_header = packet_header_type
        self.preamble = preamble
        self.signature = signature
        self.trace_extra = trace_extra
        self.stream_classes = []
        self.event_classes = []
        self.streams = []
        os.makedirs(path, exist_ok=True)

    def stream_class(self, sid, **kw):
        sc = StreamClass(sid, **kw)
        self.stream_classes.append(sc)
        return sc

    def event_class(self, name, eid, sc, **kw):
        ec = EventClass(name, eid, sc, **kw)
        self.event_classes.append(ec)
        return ec

    def metadata_text(self):
        out = []
        if self.signature:
            out.append(self.signature + '\n\n')
        out.append(self.preamble)
        tr = ['\tmajor = 1;', '\tminor = 8;']
        if self.uuid:
            tr.append('\tuuid = "%s";' % self.uuid)
        tr.append('\tbyte_order = %s;' % self.bo)
        if self.packet_header is not None:
            tr.append('\tpacket.header := %s;' % self.packet_header.ref())
        out.append('trace {\n%s\n%s};\n\n' % ('\n'.join(tr), self.trace_extra))
        if self.env is not None:
            items = []
            for k, v in self.env.items():
                if isinstance(v, str):
                    items.append('\t%s = "%s";' % (k, v))
                else:
                    items.append('\t%s = %d;' % (k, v))
            out.append('env {\n%s\n};\n\n' % '\n'.join(items))
        for c in self.clocks:
            out.append(c.tsdl() + '\n')
        for sc in self.stream_classes:
            out.append(sc.tsdl() + '\n')
        for ec in self.event_classes:
            out.append(ec.tsdl() + '\n')
        return ''.join(out)

    def write_metadata(self, packetized=False, packet_size=4096, chunk=None, text=None):
        """Plain text, or LTTng-style packets whose payload is cut every
        `chunk` bytes (default: as much as fits), i.e. anywhere in a token."""
        text = (text if text is not None else self.metadata_text()).encode('utf-8')
        path = os.path.join(self.path, 'metadata')
        if not packetized:
            with open(path, 'wb') as f:
                f.write(text)
            return
        room = chunk or (packet_size - 37)
        assert room <= packet_size - 37
        pre = '<' if self.bo == 'le' else '>'
        uuid_bytes = _uuid.UUID(self.uuid).bytes if self.uuid else b'\0' * 16
        out = bytearray()
        for i in range(0, len(text), room):
            part = text[i:i + room]
            hdr = _struct.pack(pre + 'I', METADATA_MAGIC) + uuid_bytes + _struct.pack(
                pre + 'IIIBBBBB', 0, (37 + len(part)) * 8, packet_size * 8, 0, 0, 0, 1, 8)
            out += hdr + part + b'\0' * (packet_size - 37 - len(part))
        with open(path, 'wb') as f:
            f.write(out)

    def stream(self, filename, sc, instance_id=0, **kw):
        s = Stream(self, filename, sc, instance_id, **kw)
        self.streams.append(s)
        return s


class Stream:
    def __init__(self, trace, filename, sc, instance_id, header_kind=None, packet_align=4096):
        self.trace = trace
        self.filename = filename
        self.sc = sc
        self.instance_id = instance_id
        self.header_kind = header_kind  # 'compact', 'large' or None (caller builds headers)
        self.packet_align = packet_align  # packet_size rounding, in bytes
        self.data = bytearray()
        self.cur = 0

    def header_fields(self):
        t = self.trace
        v = {'magic': PACKET_MAGIC}
        if t.uuid:
            v['uuid'] = list(_uuid.UUID(t.uuid).bytes)
        v['stream_id'] = self.sc.id
        v['stream_instance_id'] = self.instance_id
        return v

    def _encode(self, ctx, events, content, size, header_override):
        bo = self.trace.bo
        w = BitWriter()
        if self.trace.packet_header is not None:
            hv = self.header_fields()
            if header_override:
                hv.update(header_override)
            self.trace.packet_header.encode(w, hv, bo)
        if self.sc.packet_context is not None:
            cv = dict(ctx)
            names = [n for n, _ in self.sc.packet_context.fields]
            if 'content_size' in names:
                cv.setdefault('content_size', content)
            if 'packet_size' in names:
                cv.setdefault('packet_size', size)
            self.sc.packet_context.encode(w, cv, bo)
        cur = ctx.get('timestamp_begin', self.cur)
        for ev in events:
            if self.sc.event_header is not None:
                hv = ev.header
                if hv is None:
                    if self.header_kind:
                        hv = header_value(self.header_kind, ev.ec.id, ev.ts, cur)
                    else:
                        hv = {'id': ev.ec.id}
                        if ev.ts is not None:
                            hv['timestamp'] = ev.ts
                self.sc.event_header.encode(w, hv, bo)
            if ev.ts is not None:
                cur = ev.ts
            for upd in ev.clock_updates:
                cur = upd
            if self.sc.event_context is not None:
                self.sc.event_context.encode(w, ev.sec, bo)
            if ev.ec.context is not None:
                ev.ec.context.encode(w, ev.context, bo)
            if ev.ec.fields is not None:
                ev.ec.fields.encode(w, ev.fields, bo)
        return w, cur

    def packet(self, ctx, events, header=None, packet_size=None, content_size=None,
               truncate_to=None):
        """Appends one packet. `packet_size`/`content_size` (bits) override the
        computed values (to build malformed traces); `truncate_to` cuts the
        written bytes."""
        w, _ = self._encode(ctx, events, 0, 0, header)
        content = w.pos
        size = ((content + self.packet_align * 8 - 1) // (self.packet_align * 8)) * (
            self.packet_align * 8) if self.packet_align else content
        if size == 0:
            size = self.packet_align * 8
        real_size = size
        if packet_size is not None:
            size = packet_size
        if content_size is not None:
            content = content_size
        w, cur = self._encode(ctx, events, content, size, header)
        self.cur = ctx.get('timestamp_end', cur)
        data = bytes(w.buf) + b'\0' * (real_size // 8 - len(w.buf))
        if truncate_to is not None:
            data = data[:truncate_to]
        self.data += data

    def close(self):
        with open(os.path.join(self.trace.path, self.filename), 'wb') as f:
            f.write(self.data)


class RawBits:
    """A floating-point value given by its bit pattern."""

    def __init__(self, bits):
        self.bits = bits


NEG_NAN_DOUBLE = RawBits(0xFFF8000000000000)  # prints as -nan
NEG_NAN_FLOAT = RawBits(0xFFC00000)
