#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write hand-made seeds for the relay fuzzer (tests/fuzz/fuzz-relay.c) into
DIR (default tests/fuzz/corpus/relay): LTTng streaming protocols 2.4 and 2.8
(fixed-size CREATE_SESSION and ADD_STREAM forms, 64- and 80-byte indexes),
2.11+ sessions with hostile names and paths, indexes before their packets,
tracefile rotation, and a viewer walking a session. The seeds recorded from
lttng-sessiond 2.13 (STRATA_RELAYD_RECORD) cover the common path; these
cover what it never sends.

Records: {op u8, len u16 big-endian, bytes}; op 0-2 control, 3-5 data,
6-8 live connections, 0x80|n closes n."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relaywire import *  # noqa: E402,F401,F403

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), '..', 'fuzz', 'corpus', 'relay')


# The relay's handles are not known in advance: the fuzzer learns them;
# seeds use plausible values that exercise the unknown-handle paths too.
H = 2  # handles are 1, 2, 3... in the fuzzer (metadata first here)


def write(name, recs):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(b''.join(recs))


os.makedirs(out, exist_ok=True)
for minor, long_index in ((4, False), (8, True), (10, True)):
    write('hand-2.%d-session' % minor, [
        rec(0, version(minor) + create_2_4(b's', b'host') +
            add_stream_2_2(b'metadata', b'/host/s-20240101-000000/ust/uid/0/64-bit') +
            add_stream_2_2(b'ch_0', b'/host/s-20240101-000000/ust/uid/0/64-bit', 4096, 2) +
            metadata(1, TSDL, 8) + ctrl(16)),
        rec(3, packet(H, 0, 100, 28)),
        rec(0, index(H, 0, 128, long_index) + index(H, 1, 128, long_index)),
        rec(3, packet(H, 1, 100, 28)),
        rec(6, CONNECT + viewer(8) + viewer(2) + viewer(3, struct.pack('>QQI', 1, 0, 1))),
        rec(0, ctrl(7, struct.pack('>QQ', H, 1)) + ctrl(10, struct.pack('>Q', 1)) +
            ctrl(8, struct.pack('>QQ', H, 1)) + ctrl(11, struct.pack('>Q', 1))),
        rec(0x80), rec(0x83), rec(0x86)])

write('hand-2.13-hostile-names', [
    rec(0, version(13) + create_2_11(b'../up', b'h')),
    rec(1, version(13) + create_2_11(b's', b'a/b')),
    rec(2, version(13) + create_2_11(b's', b'h', b'../../etc') + chunk() +
        add_stream_2_11(b'..', b'ust') + add_stream_2_11(b'c', b'/../x') +
        add_stream_2_11(b'c\x01', b'ust') + add_stream_2_11(b'c', b'ust/./x') +
        chunk(1, b'..') + chunk(2, b'a/b'))])

write('hand-2.13-index-first', [
    rec(0, version(13) + ctrl(22, struct.pack('>Q', 0)) + create_2_11(b's', b'h', b'base/dir') +
        chunk() + add_stream_2_11(b'metadata', b'kernel') + add_stream_2_11(b'c_0', b'kernel') +
        ctrl(16) + index(H, 0, 4096) + index(H, 0, 0) + ctrl(21, struct.pack('>Q', 0))),
    rec(3, packet(H, 0, 4000, 96)[:2000]),
    rec(0x83),
    rec(6, CONNECT + viewer(8) + viewer(3, struct.pack('>QQI', 1, 0, 2)) +
        viewer(7, struct.pack('>Q', 1)) + viewer(4, struct.pack('>Q', H)) +
        viewer(6, struct.pack(">Q", 1)) + viewer(5, struct.pack('>QQI', H, 0, 4096)) +
        viewer(9, struct.pack('>Q', 1))),
    rec(0, ctrl(18, struct.pack('>I', 1) + b'\0' * 16 + struct.pack('>QQ', H, 0)) +
        ctrl(20, struct.pack('>QQ', 0, 1700000001) + b'\x01' + struct.pack('>I', 1)))])

write('hand-garbage', [
    rec(0, ctrl(1) + version(13)), rec(1, ctrl(5, b'\0' * 8)),
    rec(2, struct.pack('>QQII', 0, 1 << 40, 2, 0)),
    rec(3, struct.pack('>QQQII', 0, 99, 0, 0xffffffff, 0xffffffff)),
    rec(6, viewer(4, struct.pack('>Q', 1))), rec(7, CONNECT + viewer(99)),
    rec(8, struct.pack('>QII', 0, 1, 0) + struct.pack('>QIII', 0, 3, 0, 1))])
