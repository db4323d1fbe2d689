#!/usr/bin/python3
"""odm test server: a MongoDB wire-protocol stand-in for the integration tests.

Run with Debian's /usr/bin/python3 (needs python3-mockupdb, python3-mongomock,
python3-pymongo/python3-bson):

    tests/server/odm_test_server.py [--host 127.0.0.1] [--port 0] [--port-file PATH]

Message parsing (OP_MSG with document sequences, OP_QUERY commands) and reply
framing come from mockupdb; storage, queries, updates and indexes are in
odm_engine/odm_query; aggregation pipelines go through mongomock
(odm_aggregate).  See README.md for the supported command list.
"""

import argparse
import itertools
import os
import signal
import socket
import socketserver
import struct
import sys
import threading
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

try:
    import bson
    from bson.binary import UuidRepresentation
    from bson.codec_options import CodecOptions
    import mockupdb
    import mongomock  # noqa: F401  (imported for an early, clear failure)
except ImportError as _e:  # pragma: no cover
    sys.stderr.write('odm_test_server: missing Debian package (%s); run it with /usr/bin/python3 '
                     'and install python3-mockupdb python3-mongomock\n' % _e)
    sys.exit(3)

# Decode requests into plain (ordered) dicts, datetimes as naive UTC with their
# milliseconds, and UUID binaries (subtypes 3 and 4) as Binary so that they are
# sent back with their original subtype.
CODEC_OPTIONS = CodecOptions(document_class=dict, tz_aware=False,
                             uuid_representation=UuidRepresentation.UNSPECIFIED)
mockupdb.CODEC_OPTIONS = CODEC_OPTIONS

from odm_engine import Engine, MAX_MESSAGE_SIZE, MAX_BSON_SIZE  # noqa: E402

OP_QUERY = 2004
OP_MSG = 2013
OP_MSG_MORE_TO_COME = 2
REPLY_QUERY_FAILURE = 2
REPLY_CURSOR_NOT_FOUND = 1


def log(msg):
    sys.stderr.write('odm_test_server: %s\n' % msg)
    sys.stderr.flush()


def recv_exact(sock, n):
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        r = sock.recv_into(view[got:], n - got)
        if r == 0:
            raise ConnectionError('connection closed by peer')
        got += r
    return bytes(buf)


def error_doc(code, errmsg, code_name):
    return {'ok': 0.0, 'errmsg': errmsg, 'code': code, 'codeName': code_name}


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        srv = self.server
        sock = self.request
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        conn = {'id': next(srv.conn_ids), 'peer': '%s:%d' % self.client_address[:2],
                'me': '%s:%d' % sock.getsockname()[:2]}
        srv.track(sock)
        try:
            while not srv.stopping:
                header = recv_exact(sock, 16)
                length, request_id, _response_to, opcode = struct.unpack('<iiii', header)
                if length < 16 or length > MAX_MESSAGE_SIZE:
                    log('connection %d: bad message length %d, closing' % (conn['id'], length))
                    break
                body = recv_exact(sock, length - 16)
                reply = self.process(opcode, body, request_id, conn)
                if reply is False:
                    break
                if reply:
                    sock.sendall(reply)
        except (ConnectionError, OSError):
            pass
        finally:
            srv.untrack(sock)

    # -- one message ------------------------------------------------------------
    def process(self, opcode, body, request_id, conn):
        unpacker = mockupdb.OPCODES.get(opcode)
        if unpacker is None:
            log('connection %d: unsupported opcode %d (compression is not offered), closing'
                % (conn['id'], opcode))
            return False
        try:
            request = unpacker.unpack(body, self.request, None, request_id)
        except Exception as e:  # noqa: B902 - undecodable request
            fake = types.SimpleNamespace(request_id=request_id)
            doc = error_doc(22, 'odm test server could not decode the request (%s: %s); note that '
                            'dates outside years 1..9999 cannot be represented by this server'
                            % (type(e).__name__, e), 'InvalidBSON')
            if opcode == OP_MSG:
                flags = struct.unpack('<I', body[:4])[0] if len(body) >= 4 else 0
                if flags & OP_MSG_MORE_TO_COME:
                    log('dropping undecodable fire-and-forget message: %s' % e)
                    return None
                return mockupdb.OpMsgReply(doc).reply_bytes(fake)
            if opcode == OP_QUERY:
                return mockupdb.OpReply(doc).reply_bytes(fake)
            log('connection %d: undecodable legacy message: %s' % (conn['id'], e))
            return False

        if isinstance(request, mockupdb.OpMsg):
            cmd = request.doc
            db = cmd.get('$db') or request.namespace
            reply = self.run(db, cmd, conn)
            if reply is None:
                return False   # the failCommand fail point closes the connection
            if request.flags & OP_MSG_MORE_TO_COME:
                return None
            return self.encode(mockupdb.OpMsgReply, reply, request)
        if isinstance(request, mockupdb.Command):
            cmd = request.doc
            if cmd and next(iter(cmd)) in ('$query', 'query') and isinstance(
                    cmd[next(iter(cmd))], dict):
                cmd = cmd[next(iter(cmd))]
            reply = self.run(request.namespace, cmd, conn)
            if reply is None:
                return False
            return self.encode(mockupdb.OpReply, reply, request)
        if isinstance(request, mockupdb.OpQuery):
            doc = {'$err': 'odm test server does not support legacy OP_QUERY finds; use the '
                           'find command', 'code': 115, 'ok': 0.0}
            return mockupdb.OpReply(doc, flags=REPLY_QUERY_FAILURE).reply_bytes(request)
        if isinstance(request, mockupdb.OpGetMore):
            return mockupdb.OpReply(flags=REPLY_CURSOR_NOT_FOUND).reply_bytes(request)
        log('connection %d: legacy %s messages are not supported, closing'
            % (conn['id'], type(request).__name__))
        return False

    def run(self, db, cmd, conn):
        srv = self.server
        try:
            reply = srv.engine.execute(db, cmd, conn)
        except Exception as e:  # noqa: B902 - never leave a client without an answer
            log('internal error on %r: %s\n%s' % (next(iter(cmd), None), e,
                                                   traceback.format_exc()))
            reply = error_doc(1, 'odm test server internal error: %s: %s'
                              % (type(e).__name__, e), 'InternalError')
        if srv.verbose:
            log('conn %d %s.%s -> %s' % (
                conn['id'], db, next(iter(cmd), '?'), 'connection closed' if reply is None else
                'ok=%s%s' % (reply.get('ok'), '' if reply.get('ok') else
                             ' ' + str(reply.get('errmsg')))))
        return reply

    def encode(self, reply_cls, reply, request):
        try:
            data = reply_cls(reply).reply_bytes(request)
            if len(data) > MAX_BSON_SIZE + 16 * 1024 + 64:
                raise bson.errors.InvalidDocument('reply of %d bytes exceeds 16MB' % len(data))
            return data
        except Exception as e:  # noqa: B902
            log('could not encode reply: %s' % e)
            doc = error_doc(10334 if 'exceeds' in str(e) else 1,
                            'odm test server could not encode the reply: %s' % e,
                            'BSONObjectTooLarge' if 'exceeds' in str(e) else 'InternalError')
            return reply_cls(doc).reply_bytes(request)


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, address, engine, verbose=False):
        socketserver.TCPServer.__init__(self, address, Handler)
        self.engine = engine
        self.verbose = verbose
        self.stopping = False
        self.conn_ids = itertools.count(1)
        self._socks = set()
        self._socks_lock = threading.Lock()

    def track(self, sock):
        with self._socks_lock:
            self._socks.add(sock)

    def untrack(self, sock):
        with self._socks_lock:
            self._socks.discard(sock)

    def close_clients(self):
        with self._socks_lock:
            socks = list(self._socks)
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request, client_address):
        log('error serving %s:\n%s' % (client_address, traceback.format_exc()))


def write_port_file(path, port):
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, '.%s.tmp.%d' % (os.path.basename(path), os.getpid()))
    with open(tmp, 'w') as f:
        f.write('%d\n' % port)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description='MongoDB wire-protocol test server for odm')
    parser.add_argument('--host', default='127.0.0.1',
                        help='loopback address to bind (default 127.0.0.1)')
    parser.add_argument('--port', type=int, default=0,
                        help='port to bind; 0 picks a free port (default)')
    parser.add_argument('--port-file',
                        help='write the bound port number to this file once listening')
    parser.add_argument('--verbose', action='store_true', help='log every command to stderr')
    args = parser.parse_args(argv)

    if args.host != 'localhost' and not args.host.startswith('127.'):
        log('refusing to bind %s: the test server only listens on loopback addresses'
            % args.host)
        return 2
    engine = Engine()
    try:
        srv = Server((args.host, args.port), engine, verbose=args.verbose)
    except OSError as e:
        log('cannot listen on %s:%d: %s' % (args.host, args.port, e))
        return 2
    port = srv.server_address[1]
    thread = threading.Thread(target=srv.serve_forever, kwargs={'poll_interval': 0.2},
                              name='odm-accept', daemon=True)
    thread.start()

    stop = threading.Event()

    def on_signal(signum, _frame):
        stop.set()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if hasattr(signal, 'SIGHUP'):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    if args.port_file:
        write_port_file(args.port_file, port)
    print('listening on %s:%d' % (args.host, port), flush=True)

    while not stop.wait(0.5):
        pass
    srv.stopping = True
    srv.shutdown()
    srv.server_close()
    srv.close_clients()
    print('odm test server on port %d stopped' % port, flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
