#!/usr/bin/env python3
"""List or remove packets of an LTTng (x86-64, little-endian) CTF stream file.

Used by tests/gen/lttng/make-traces.sh to fabricate lost packets and
"may have discarded" traces from real LTTng output:

    lttng-packets.py list FILE
    lttng-packets.py drop FILE INDEX...     (0-based packet indexes)

The layout is LTTng 2.13's packet header + context (ctf.md 2.3): magic at 0,
content_size (bits) at 0x30, packet_size (bits) at 0x38, packet_seq_num at
0x40, events_discarded at 0x48, all little-endian.
"""
import struct
import sys


def packets(data):
    off = 0
    while off < len(data):
        magic, = struct.unpack_from('<I', data, off)
        if magic != 0xC1FC1FC1:
            raise SystemExit('bad packet magic at offset %d' % off)
        tb, te, content, size, seq, disc = struct.unpack_from('<QQQQQQ', data, off + 0x20)
        yield off, size // 8, dict(ts_begin=tb, ts_end=te, content_bits=content,
                                   packet_bits=size, seq=seq, discarded=disc)
        off += size // 8


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ('list', 'drop'):
        raise SystemExit(__doc__)
    path = sys.argv[2]
    with open(path, 'rb') as f:
        data = f.read()
    pkts = list(packets(data))
    if sys.argv[1] == 'list':
        for i, (off, size, info) in enumerate(pkts):
            print(i, off, size, ' '.join('%s=%d' % kv for kv in info.items()))
        return
    drop = {int(x) for x in sys.argv[3:]}
    out = b''.join(data[off:off + size] for i, (off, size, _) in enumerate(pkts) if i not in drop)
    with open(path, 'wb') as f:
        f.write(out)


if __name__ == '__main__':
    main()
