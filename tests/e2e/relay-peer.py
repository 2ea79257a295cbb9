#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile peers of strata-relayd for relay-faults.sh:

  relay-peer.py garbage HOST PORT        4 KiB of noise, then wait for the relay to hang up
  relay-peer.py stall HOST CTRL          a version handshake, half a message, then wait
                                         to be hung up on
  relay-peer.py names HOST CTRL          sessions, streams and chunks named to escape
                                         the output directory: all refused
  relay-peer.py cut HOST CTRL DATA       a session whose data connection dies in the
                                         middle of its second packet: the first is in

Each exits 0 when the relay behaved (the reason otherwise on stderr). The
messages come from tests/gen/relaywire.py."""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'gen'))
from relaywire import (ctrl, version, create_2_11, chunk, add_stream_2_11,  # noqa: E402
                       index, packet, metadata)

TIMEOUT = 20


def conn(host, port):
    s = socket.create_connection((host, int(port)), timeout=TIMEOUT)
    s.settimeout(TIMEOUT)
    return s


def recv_exact(s, n):
    b = b''
    while len(b) < n:
        k = s.recv(n - len(b))
        if not k:
            raise EOFError('the relay hung up')
        b += k
    return b


def hung_up(s):
    """True once the relay closed the connection (within TIMEOUT)."""
    try:
        while s.recv(4096):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def fail(msg):
    print('relay-peer: ' + msg, file=sys.stderr)
    sys.exit(1)


def cmd(s, msg, reply_len):
    s.sendall(msg)
    return recv_exact(s, reply_len)


def session(s, name, host):
    """VERSION 2.13 and CREATE_SESSION: the relay's reply code."""
    cmd(s, version(13), 8)
    head = cmd(s, create_2_11(name, host), 16)
    sid, code, plen = struct.unpack('>QII', head)
    if plen:
        recv_exact(s, plen)
    return code


def add_stream(s, channel, path):
    handle, code = struct.unpack('>QI', cmd(s, add_stream_2_11(channel, path), 12))
    return handle, code


def main(argv):
    what = argv[1]
    if what in ('garbage', 'stall'):
        s = conn(argv[2], argv[3])
        if what == 'garbage':
            s.sendall(os.urandom(4096))
        else:
            cmd(s, version(13), 8)
            s.sendall(ctrl(2)[:10])
        if not hung_up(s):
            fail('%s: the relay kept the connection' % what)
        return
    if what == 'names':
        s = conn(argv[2], argv[3])
        try:
            code = session(s, b'../escape', b'evil')
        except EOFError:
            code = None
        if code == 10:
            fail("names: session '../escape' accepted")
        for host in (b'..', b'a/b', b'x\x01'):
            s = conn(argv[2], argv[3])
            try:
                code = session(s, b'ok', host)
            except EOFError:
                code = None
            if code == 10:
                fail('names: host %r accepted' % host)
        s = conn(argv[2], argv[3])
        if session(s, b'names', b'evil') != 10:
            fail('names: a plain session was refused')
        if struct.unpack('>I', cmd(s, chunk(0), 4))[0] != 10:
            fail('names: the first chunk was refused')
        for channel, path in ((b'c', b'../../up'), (b'c', b'/../up'), (b'a/b', b'ust'),
                              (b'..', b'ust'), (b'c', b'ust/./x'), (b'c\n', b'ust')):
            if add_stream(s, channel, path)[1] == 10:
                fail('names: stream %r at %r accepted' % (channel, path))
        if add_stream(s, b'fine', b'ust/ok')[1] != 10:
            fail('names: a plain stream was refused')
        return
    if what == 'cut':
        c = conn(argv[2], argv[3])
        if session(c, b'cut', b'evil') != 10:
            fail('cut: session refused')
        cmd(c, chunk(0), 4)
        meta, _ = add_stream(c, b'metadata', b'ust/uid/0/64-bit')
        data, _ = add_stream(c, b'c_0', b'ust/uid/0/64-bit')
        cmd(c, ctrl(16), 4)
        c.sendall(metadata(meta, b'/* CTF 1.8 */\n'))
        d = conn(argv[2], argv[4])
        d.sendall(packet(data, 0, 4000, 96))
        cmd(c, index(data, 0, 4096), 4)
        # The second packet: its header and a third of it, then nothing.
        d.sendall(packet(data, 1, 4000, 96)[:32 + 1300])
        d.close()
        # The session still answers: packet 0 is in, packet 1 never will be.
        pending = [struct.unpack('>I', cmd(c, ctrl(8, struct.pack('>QQ', data, seq)), 4))[0]
                   for seq in (0, 1)]
        if pending != [0, 1]:
            fail('cut: data pending for packets 0 and 1 is %r, expected [0, 1]' % pending)
        c.close()
        return
    fail('unknown action ' + what)


main(sys.argv)
