# SPDX-License-Identifier: MIT
"""LTTng's streaming and live viewer protocols as bytes (all big-endian;
lttng-tools' sessiond-comm/relayd.h and lttng-viewer-abi.h), for the relay
fuzzer's seeds (relay-corpus.py) and the fake peers of the relay e2e tests
(tests/e2e/relay-peer.py)."""
import struct


def rec(op, data=b''):
    r = b''
    while True:
        k = data[:65535]
        r += struct.pack('>BH', op, len(k)) + k
        data = data[65535:]
        if not data:
            return r


def ctrl(cmd, payload=b''):
    return struct.pack('>QQII', 0, len(payload), cmd, 0) + payload


def version(minor):
    return ctrl(5, struct.pack('>II', 2, minor))


def create_2_4(name, host, live=100000, snap=0):
    return ctrl(2, name.ljust(255, b'\0')[:255] + host.ljust(64, b'\0')[:64] +
                struct.pack('>II', live, snap))


def create_2_11(name, host, base=b'', live=100000, snap=0, uuid=b'\x01' * 16):
    n, h, b = name + b'\0', host + b'\0', (base + b'\0') if base else b''
    head = struct.pack('>IIII', len(n), len(h), len(b), live) + bytes([snap, 0]) + uuid + \
        struct.pack('>QQ', 7, 1700000000) + b'\0' + struct.pack('>Q', 0)
    return ctrl(2, head + n + h + b)


def chunk(cid=0, name=b''):
    nm = name + b'\0' if name else b''
    return ctrl(19, struct.pack('>QQI', cid, 1700000000, len(nm)) + nm)


def add_stream_2_2(channel, path, tf_size=0, tf_count=0):
    return ctrl(1, channel.ljust(264, b'\0')[:264] + path.ljust(4096, b'\0')[:4096] +
                struct.pack('>QQ', tf_size, tf_count))


def add_stream_2_11(channel, path, tf_size=0, tf_count=0, cid=0):
    c, p = channel + b'\0', path + b'\0'
    return ctrl(1, struct.pack('>IIQQQ', len(c), len(p), tf_size, tf_count, cid) + c + p)


def index(handle, seq, size, long=True, ts=1000):
    f = struct.pack('>QQQQQQQQ', handle, seq, size * 8, max(size * 8 - 64, 0), ts, ts + 10, 0, 0)
    if long:
        f += struct.pack('>QQ', 0, seq)
    return ctrl(13, f)


def packet(handle, seq, size, pad=0, fill=b'\xc1'):
    return struct.pack('>QQQII', 0, handle, seq, size, pad) + fill * size


def metadata(handle, text, pad=0):
    return ctrl(6, struct.pack('>QI', handle, pad) + text)


def viewer(cmd, payload=b''):
    return struct.pack('>QII', len(payload), cmd, 0) + payload


CONNECT = viewer(1, struct.pack('>QIII', 0, 2, 4, 1))
TSDL = b'/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; };\n'
