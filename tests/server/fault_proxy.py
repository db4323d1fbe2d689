#!/usr/bin/python3
"""A fault-injecting TCP proxy for odm's driver tests (Python standard library only).

    fault_proxy.py --upstream HOST:PORT --port-file FILE
                   [--fault none|stall|reset] [--after N] [--commands NAME,NAME...]
                   [--max-write-batch-size K]

Listens on 127.0.0.1 (a free port, written to FILE once it listens) and forwards every
connection to the MongoDB server at HOST:PORT, reading the wire protocol's messages so
that it can count commands. A command counts when its name is in --commands, or, without
--commands, when it is not part of a connection's handshake or the server monitor's
heartbeat (hello, isMaster). Once N commands have been forwarded, the next counted one
triggers the fault:

  stall  the server "stops answering": that command and every later byte, on every
         connection and on new ones, is held forever (connections stay open).
  reset  the connection carrying the command is reset (TCP RST) before the command
         reaches the server; so is every later counted command. Other traffic goes on.

--max-write-batch-size rewrites maxWriteBatchSize in the server's hello replies, so that
a client splits bulk writes into small batches.

The proxy exits when its standard input closes (the test that started it holds the
other end of a pipe, so the proxy never outlives it) or on SIGTERM. Each fault it
injects is reported on standard error.
"""

import argparse
import os
import signal
import socket
import struct
import sys
import threading

OP_REPLY = 1
OP_QUERY = 2004
OP_MSG = 2013
HANDSHAKE = {'hello', 'ismaster', 'isMaster'}
HEADER = struct.Struct('<iiii')  # messageLength, requestID, responseTo, opCode


def log(message):
    sys.stderr.write('fault_proxy: %s\n' % message)
    sys.stderr.flush()


def recv_exact(sock, n):
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def read_message(sock):
    """One whole wire-protocol message, or None when the connection ends."""
    header = recv_exact(sock, HEADER.size)
    if header is None:
        return None
    length = HEADER.unpack(header)[0]
    if length < HEADER.size or length > 64 * 1024 * 1024:
        return None
    body = recv_exact(sock, length - HEADER.size)
    return None if body is None else header + body


def first_key(message, offset):
    """The first key of the BSON document at `offset` (its type byte is at offset + 4)."""
    start = offset + 5
    end = message.find(b'\0', start)
    return message[start:end].decode('utf-8', 'replace') if end > start else ''


def command_name(message):
    opcode = HEADER.unpack_from(message)[3]
    if opcode == OP_MSG and len(message) > 21 and message[20] == 0:  # flagBits, section kind 0
        return first_key(message, 21)
    if opcode == OP_QUERY:
        collection_end = message.find(b'\0', 20)
        if collection_end > 0:
            return first_key(message, collection_end + 1 + 8)  # skip numberToSkip, numberToReturn
    return ''


def patch_batch_size(message, size):
    """The message with maxWriteBatchSize (int32, int64 or double) replaced by `size`."""
    key = b'maxWriteBatchSize\0'
    at = message.find(key)
    if at < 1:
        return message
    patched = bytearray(message)
    value = at + len(key)
    kind = patched[at - 1]
    if kind == 0x10:
        struct.pack_into('<i', patched, value, size)
    elif kind == 0x12:
        struct.pack_into('<q', patched, value, size)
    elif kind == 0x01:
        struct.pack_into('<d', patched, value, float(size))
    return bytes(patched)


class Proxy:
    def __init__(self, args):
        host, _, port = args.upstream.rpartition(':')
        self.upstream = (host, int(port))
        self.fault = args.fault
        self.after = args.after
        self.commands = set(args.commands.split(',')) if args.commands else None
        self.batch_size = args.max_write_batch_size
        self.lock = threading.Lock()
        self.counted = 0
        self.stalled = threading.Event()
        self.forever = threading.Event()  # never set: what stalled threads wait on

    def counts(self, name):
        return name in self.commands if self.commands is not None else name not in HANDSHAKE

    def faulty(self, name):
        """Whether the client's command `name` triggers the fault."""
        if self.fault == 'none' or not self.counts(name):
            return False
        with self.lock:
            self.counted += 1
            return self.counted > self.after

    def serve(self, client):
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.stalled.is_set():
            self.forever.wait()
        try:
            server = socket.create_connection(self.upstream)
        except OSError as error:
            log('cannot reach %s:%d: %s' % (self.upstream + (error,)))
            client.close()
            return
        server.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=self.replies, args=(server, client), daemon=True).start()
        try:
            while True:
                message = read_message(client)
                if message is None or self.stalled.is_set():
                    break
                name = command_name(message)
                if self.faulty(name):
                    if self.fault == 'stall':
                        log('stalling at %s (command %d)' % (name, self.counted))
                        self.stalled.set()
                    else:
                        log('resetting the connection at %s (command %d)' % (name, self.counted))
                        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
                    break
                server.sendall(message)
        except OSError:
            pass
        if self.stalled.is_set():
            self.forever.wait()
        for sock in (client, server):
            try:
                sock.close()
            except OSError:
                pass

    def replies(self, server, client):
        try:
            while True:
                message = read_message(server)
                if message is None:
                    break
                if self.stalled.is_set():
                    self.forever.wait()
                if self.batch_size:
                    message = patch_batch_size(message, self.batch_size)
                client.sendall(message)
        except OSError:
            pass
        try:
            client.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--upstream', required=True)
    parser.add_argument('--port-file', required=True)
    parser.add_argument('--fault', choices=['none', 'stall', 'reset'], default='none')
    parser.add_argument('--after', type=int, default=0)
    parser.add_argument('--commands', default='')
    parser.add_argument('--max-write-batch-size', type=int, default=0)
    args = parser.parse_args()
    proxy = Proxy(args)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(('127.0.0.1', 0))
    listener.listen(128)
    temporary = '%s.tmp.%d' % (args.port_file, os.getpid())
    with open(temporary, 'w') as out:
        out.write('%d\n' % listener.getsockname()[1])
    os.replace(temporary, args.port_file)

    def watch_stdin():
        while sys.stdin.buffer.read(4096):
            pass
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while True:
        client, _ = listener.accept()
        threading.Thread(target=proxy.serve, args=(client,), daemon=True).start()


if __name__ == '__main__':
    main()
