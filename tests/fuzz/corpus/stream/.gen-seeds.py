#!/usr/bin/env python3
# Writes the seed corpus of fuzz-stream.c: byte 0 selects the built-in
# metadata (0 UST large header, 1 compact header + variants, 2 big-endian
# bit-fields), the rest is the stream file. Run from this directory.
import struct

def ust_packet(events, tb, te, seq=0, disc=0, pad_to=512):
    body = b"".join(events)
    hdr = struct.pack("<I16sIQ", 0xC1FC1FC1, bytes(range(16)), 0, 3)
    ctx_len = 8 * 6 + 4
    content = (len(hdr) + ctx_len + len(body)) * 8
    size = max(pad_to, (content // 8 + 7) // 8 * 8) * 8
    ctx = struct.pack("<QQQQQQI", tb, te, content, size, seq, disc, 1)
    pkt = hdr + ctx + body
    return pkt + b"\0" * (size // 8 - len(pkt))

def ust_ctx():
    return struct.pack("<i", 42) + b"app".ljust(17, b"\0")

def ust_ev(eid, ts, payload, extended=False):
    if extended:
        h = struct.pack("<HIQ", 65535, eid, ts)
    else:
        h = struct.pack("<HI", eid, ts & 0xFFFFFFFF)
    return h + ust_ctx() + payload

ints = struct.pack("<bQ", -5, 0xDEADBEEF) + struct.pack(">H", 1024)
strs = (b"hello\0" + b"ab\0\0" + struct.pack("<I", 3) + b"xyz" +
        struct.pack("<H", 2) + struct.pack("<II", 7, 8) +
        struct.pack("<f", 1.5) + struct.pack("<d", -2.25) + b"\x03")

def write(name, sel, data):
    with open(name, "wb") as f:
        f.write(bytes([sel]) + data)

p1 = ust_packet([ust_ev(0, 1000, ints, True), ust_ev(1, 1100, strs), ust_ev(2, 1200, b"")],
                900, 1300)
p2 = ust_packet([ust_ev(1, 2000, strs, True)], 1300, 2100, seq=2, disc=4)
write("ust-one", 0, p1)
write("ust-two-discard", 0, p1 + p2)
write("ust-first-may-discard", 0, ust_packet([ust_ev(0, 5, ints, True)], 1, 9, disc=3))
write("ust-wrap", 0, ust_packet([ust_ev(0, 0xFFFFFFF0, ints, True),
                                 ust_ev(0, 0x100000010, ints)], 0xFFFFFF00, 0x100000100))

def compact_packet(body, tb, te, seq=0, disc=0):
    hdr = struct.pack("<II", 0xC1FC1FC1, 0)
    ctx_len = 8 + 8 + 4 + 4 + 8 + 4
    content = (len(hdr) + ctx_len + len(body)) * 8
    size = 256 * 8
    ctx = struct.pack("<QQIIQI", tb, te, content, size, seq, disc)
    pkt = hdr + ctx + body
    return pkt + b"\0" * (size // 8 - len(pkt))

def compact_ev(eid, ts):
    return struct.pack("<I", (ts << 5) | eid)

def ext_ev(eid, ts):
    return bytes([31]) + struct.pack("<IQ", eid, ts)

var_a = bytes([0]) + struct.pack("<I", 77) + bytes([2]) + struct.pack("<II", 1, 2)
var_b = bytes([1]) + b"opt-b\0" + bytes([0])
var_c = bytes([2]) + bytes([9]) + struct.pack("<Q", 10) + bytes([1]) + struct.pack("<I", 5)
arr = bytes(range(6)) + b"one\0two\0"
body = compact_ev(0, 10) + var_a + compact_ev(0, 20) + var_b + ext_ev(40, 1 << 30) + arr + \
    compact_ev(0, 5) + var_c
write("compact-variants", 1, compact_packet(body, 1, 1 << 31))
write("compact-lost-packet", 1, compact_packet(compact_ev(0, 3) + var_a, 1, 100) +
      compact_packet(compact_ev(0, 3) + var_b, 100, 200, seq=5, disc=1))
other = struct.pack("<II", 0xC1FC1FC1, 1) + struct.pack("<I", 16 * 8) + struct.pack("<I", 42)
write("compact-stream-1", 1, other)

def be_packet(body, tb, te):
    hdr = struct.pack(">I", 0xC1FC1FC1)
    content = (len(hdr) + 24 + len(body)) * 8
    size = 128 * 8
    pkt = hdr + struct.pack(">QQII", tb, te, content, size) + body
    return pkt + b"\0" * (size // 8 - len(pkt))

# header id:3 ts:13 (2 bytes), bits payload a:3 b:5 c:12 d:4 e:61 (LE, 85 bits)
def bits_ev(ts):
    h = struct.pack(">H", (0 << 13) | ts)
    return h + bytes([0xb6, 0xf5, 0x9e]) + (12345).to_bytes(8, "little")

def nest_ev(ts):
    h = struct.pack(">H", (1 << 13) | ts)
    # t:2 = 1 (Y), p:9 = 300, q:1 = 1, n:4 = 2, s[2] of 4 bits = 5, 6 -> 26 bits
    v = (1 << 24) | (300 << 15) | (1 << 14) | (2 << 10) | (5 << 6) | (6 << 2)
    return h + struct.pack(">I", v)

write("be-bits", 2, be_packet(bits_ev(100) + nest_ev(200) + bits_ev(50), 1, 99999))
write("garbage", 0, b"\xc1\x1f\xfc\xc1" + b"\xff" * 60)
