"""Logical sessions, multi-document transactions, retryable writes, cluster time and
error labels for the odm test server, after MongoDB's documented semantics:

* A transaction reads the snapshot taken at its first command, plus its own writes.
  Its writes are kept apart and become visible to others, all at once, when it commits.
* A transaction that writes a document another open transaction has written, or one
  changed by anyone after its snapshot, fails with WriteConflict (112, labelled
  TransientTransactionError) and is aborted; the first writer wins.
* A write outside transactions that meets a document an open transaction has written
  waits until that transaction ends (at most its 60 s lifetime, or the command's
  maxTimeMS).
* A retryable write (txnNumber without autocommit) is executed at most once: a retry
  with the same lsid and txnNumber gets the first execution's reply.
* Error replies carry the labels mongod 4.4+ adds (TransientTransactionError,
  RetryableWriteError); replies carry $clusterTime and operationTime, and a read
  concern's afterClusterTime may not be ahead of the server's cluster time.
"""

import copy
import time

from bson import Timestamp
from bson.binary import Binary
from bson.int64 import Int64

from odm_query import CommandError
from odm_values import canon

# https://www.mongodb.com/docs/manual/core/transactions-production-consideration/
# (transactionLifetimeLimitSeconds defaults to 60).
TRANSACTION_LIFETIME_S = 60.0

# Codes the retryable writes specification lists as retryable.
RETRYABLE_CODES = frozenset([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436])
# Codes after which the whole transaction may be retried (WriteConflict, LockTimeout,
# SnapshotTooOld, SnapshotUnavailable, PreparedTransactionInProgress); NoSuchTransaction
# (251) too, except on commit or abort with a write concern error.
TRANSIENT_CODES = frozenset([112, 24, 239, 246, 267])
NO_SUCH_TRANSACTION = 251

RETRYABLE_WRITE_COMMANDS = frozenset(['insert', 'update', 'delete', 'findAndModify',
                                      'findandmodify'])
TRANSACTION_END_COMMANDS = frozenset(['commitTransaction', 'abortTransaction'])
# Commands MongoDB runs inside a multi-document transaction (the rest get 263).
TRANSACTION_COMMANDS = RETRYABLE_WRITE_COMMANDS | TRANSACTION_END_COMMANDS | frozenset(
    ['find', 'getMore', 'killCursors', 'aggregate', 'distinct'])


class TopLevelError(CommandError):
    """An error that ends the whole command (never a per-statement write error)."""


def write_conflict():
    return TopLevelError(112, 'WriteConflict error: this operation conflicted with another '
                         'operation. Please retry your operation or multi-document transaction.')


class WriteBlocked(Exception):
    """A write outside transactions met a document (or unique key) an open transaction
    holds; nothing was changed. The caller waits for the transaction, then retries."""

    def __init__(self, txn):
        Exception.__init__(self, 'blocked by a transaction')
        self.txn = txn


class ClusterClock(object):
    """The logical clock behind $clusterTime and operationTime: (seconds, increment)."""

    def __init__(self):
        self.now = (int(time.time()), 0)

    def tick(self):
        secs = int(time.time())
        self.now = (secs, 1) if secs > self.now[0] else (self.now[0], self.now[1] + 1)

    def advance_to(self, ts):
        if isinstance(ts, Timestamp) and (ts.time, ts.inc) > self.now:
            self.now = (ts.time, ts.inc)

    def timestamp(self):
        return Timestamp(*self.now)

    def cluster_time_doc(self):
        return {'clusterTime': self.timestamp(),
                'signature': {'hash': Binary(b'\0' * 20, 0), 'keyId': Int64(0)}}


class SessionFields(object):
    """A command's session fields, checked as mongod checks them."""

    def __init__(self, cmd, name):
        self.name = name
        self.lsid = cmd.get('lsid')
        self.txn_number = cmd.get('txnNumber')
        self.autocommit = cmd.get('autocommit')
        self.start = cmd.get('startTransaction')
        self.read_concern = cmd.get('readConcern')
        if self.txn_number is not None:
            if isinstance(self.txn_number, bool) or not isinstance(self.txn_number, int):
                raise CommandError(14, "BSON field 'txnNumber' is the wrong type, expected type "
                                   "'long'")
            if not isinstance(self.lsid, dict) or 'id' not in self.lsid:
                raise CommandError(72, 'Transaction number requires a session ID to also be '
                                   'specified')
        if self.autocommit is not None:
            if self.autocommit is not False:
                raise CommandError(72, 'Specifying autocommit=true is not allowed.')
            if self.txn_number is None:
                raise CommandError(72, "'autocommit' field requires a transaction number to "
                                   "also be specified")
        elif self.start is not None:
            raise CommandError(72, "'startTransaction' field requires 'autocommit' field to "
                               "also be specified")
        if self.start is not None and self.start is not True:
            raise CommandError(72, 'startTransaction must be true')

    @property
    def in_transaction(self):
        return self.autocommit is not None

    @property
    def retryable_write(self):
        return self.txn_number is not None and self.autocommit is None


def error_labels(fields, code, wce_code):
    """The labels mongod 4.4+ puts on a failed command or a write concern error."""
    if fields is None or fields.txn_number is None:
        return []
    ends = fields.name in TRANSACTION_END_COMMANDS
    if fields.in_transaction and code is not None:
        if code in TRANSIENT_CODES or (code == NO_SUCH_TRANSACTION and
                                       not (ends and wce_code is not None)):
            return ['TransientTransactionError']
    if fields.retryable_write or (fields.in_transaction and ends):
        if code in RETRYABLE_CODES or wce_code in RETRYABLE_CODES:
            return ['RetryableWriteError']
    return []


class ServerSession(object):
    def __init__(self):
        self.txn_number = -1
        self.txn = None          # the transaction of txn_number, if txn_number started one
        self.state = None        # 'in_progress', 'committed', 'aborted' for self.txn
        self.retry_reply = None  # (txnNumber, reply) of the last retryable write


class TxnDatabase(object):
    def __init__(self, name, guard):
        self.name = name
        self.guard = guard


class Transaction(object):
    """One multi-document transaction: a snapshot, its own copies of the collections it
    touched, the documents it wrote (locked until it ends)."""

    def __init__(self, manager, number):
        self.manager = manager
        self.number = number
        self.active = True
        self.expires_at = time.monotonic() + TRANSACTION_LIFETIME_S
        self.snapshot_seq = manager.seq
        self.snapshot = manager.engine.snapshot()
        self.shadows = {}   # (db, coll) -> collection as this transaction sees it
        self.written = {}   # (db, coll) -> {canon(_id): None}, in first-write order
        self.locks = []

    def collection(self, db_name, coll_name, create):
        key = (db_name, coll_name)
        coll = self.shadows.get(key)
        if coll is None:
            snap = self.snapshot.get(key)
            if snap is None and not create:
                return None
            coll = self.manager.engine.shadow_collection(TxnDatabase(db_name, self), coll_name,
                                                         snap)
            self.shadows[key] = coll
        return coll

    # Guard of the shadow collections: first writer wins.
    def before_write(self, coll, idk, keys):
        mgr = self.manager
        ns = coll.ns
        owner = mgr.doc_locks.get((ns, idk))
        if owner is not None and owner is not self:
            raise write_conflict()
        real = mgr.engine.real_coll(coll.db.name, coll.name)
        if real is not None and real.versions.get(idk, 0) > self.snapshot_seq:
            raise write_conflict()
        for name, key in keys:
            owner = mgr.key_locks.get((ns, name, key))
            if owner is not None and owner is not self:
                raise write_conflict()
            other = real.unique_maps.get(name, {}).get(key) if real is not None else None
            if other is not None and other != idk and \
                    real.versions.get(other, 0) > self.snapshot_seq:
                raise write_conflict()
        if mgr.doc_locks.setdefault((ns, idk), self) is self:
            self.locks.append((mgr.doc_locks, (ns, idk)))
        for name, key in keys:
            if mgr.key_locks.setdefault((ns, name, key), self) is self:
                self.locks.append((mgr.key_locks, (ns, name, key)))

    def after_write(self, coll, idk):
        self.written.setdefault((coll.db.name, coll.name), {})[idk] = None

    def release(self, keep_writes=False):
        """Ends the transaction: unlocks what it wrote and frees its snapshot (and, unless
        it is being committed, its writes)."""
        self.active = False
        for table, key in self.locks:
            if table.get(key) is self:
                del table[key]
        self.locks = []
        self.snapshot = {}
        if not keep_writes:
            self.shadows = {}


class SessionManager(object):
    """Server sessions by lsid, and the guard of the real collections."""

    def __init__(self, engine):
        self.engine = engine
        self.sessions = {}
        self.doc_locks = {}   # (ns, canon(_id)) -> Transaction
        self.key_locks = {}   # (ns, index name, key) -> Transaction
        self.seq = 0          # sequence number of the last committed document change

    # -- guard of the real collections ---------------------------------------------
    def before_write(self, coll, idk, keys):
        owner = self.doc_locks.get((coll.ns, idk))
        if owner is None:
            for name, key in keys:
                owner = self.key_locks.get((coll.ns, name, key))
                if owner is not None:
                    break
        if owner is not None:
            raise WriteBlocked(owner)

    def after_write(self, coll, idk):
        self.seq += 1
        coll.versions[idk] = self.seq

    # -- sessions --------------------------------------------------------------------
    def session(self, lsid):
        key = canon(lsid.get('id'))
        sess = self.sessions.get(key)
        if sess is None:
            sess = self.sessions[key] = ServerSession()
        return sess

    def end_sessions(self, lsids):
        for lsid in lsids:
            if isinstance(lsid, dict):
                sess = self.sessions.pop(canon(lsid.get('id')), None)
                if sess is not None and sess.state == 'in_progress':
                    self.abort(sess)

    def abort(self, sess):
        if sess.txn is not None:
            sess.txn.release()
        sess.state = 'aborted'
        self.engine.cond.notify_all()

    def expire(self, txn):
        for sess in self.sessions.values():
            if sess.txn is txn and sess.state == 'in_progress':
                self.abort(sess)
                return
        txn.release()

    def enter(self, fields):
        """Checks a command's session fields against the session's state. Returns
        (session, transaction to run in, or None; stored reply of a retried write, or
        None)."""
        if fields.lsid is None or fields.txn_number is None:
            return None, None, None
        sess = self.session(fields.lsid)
        number = int(fields.txn_number)
        if sess.state == 'in_progress' and time.monotonic() > sess.txn.expires_at:
            self.abort(sess)
        if number < sess.txn_number:
            raise CommandError(225, 'Cannot start transaction %d on session %s because a newer '
                               'transaction %d has already started.'
                               % (number, _lsid_text(fields.lsid), sess.txn_number))
        if fields.retryable_write:
            if fields.name not in RETRYABLE_WRITE_COMMANDS:
                raise CommandError(50768, 'txnNumber may only be provided for multi-document '
                                   'transactions and retryable write commands. autocommit:false '
                                   "was not provided, and %s is not a retryable write command."
                                   % fields.name)
            if number == sess.txn_number:
                if sess.txn is not None:
                    raise CommandError(50911, 'Cannot start a retryable write with txnNumber %d '
                                       'on session %s because it was used for a transaction'
                                       % (number, _lsid_text(fields.lsid)))
                stored = sess.retry_reply
                if stored is not None and stored[0] == number:
                    return sess, None, copy.deepcopy(stored[1])
            else:
                self._advance(sess, number)
            return sess, None, None
        if fields.name not in TRANSACTION_COMMANDS:
            raise CommandError(263, "Cannot run '%s' in a multi-document transaction."
                               % fields.name)
        if fields.start:
            if number == sess.txn_number:
                raise CommandError(117, 'Transaction %d on session %s has already started'
                                   % (number, _lsid_text(fields.lsid)))
            self._advance(sess, number)
            sess.txn = Transaction(self, number)
            sess.state = 'in_progress'
            return sess, sess.txn, None
        if fields.read_concern is not None:
            raise CommandError(72, 'Only the first command in a transaction may specify a '
                               'readConcern')
        if number > sess.txn_number or sess.txn is None:
            raise CommandError(NO_SUCH_TRANSACTION, 'Given transaction number %d does not match '
                               'any in-progress transactions. The active transaction number is '
                               '%d' % (number, sess.txn_number))
        if fields.name == 'commitTransaction' and sess.state == 'committed':
            return sess, None, {'ok': 1.0}
        if sess.state == 'aborted':
            raise CommandError(NO_SUCH_TRANSACTION, 'Transaction %d has been aborted.' % number)
        if sess.state == 'committed':
            raise CommandError(256, 'Transaction %d has been committed.' % number)
        return sess, sess.txn, None

    def _advance(self, sess, number):
        if sess.state == 'in_progress':
            self.abort(sess)
        sess.txn_number = number
        sess.txn = None
        sess.state = None
        sess.retry_reply = None

    def commit(self, sess):
        txn = sess.txn
        txn.release(keep_writes=True)
        undo = []
        engine = self.engine
        try:
            for (db_name, coll_name), ids in txn.written.items():
                shadow = txn.shadows[(db_name, coll_name)]
                real = engine.real_coll(db_name, coll_name, create=True)
                for idk in ids:
                    new = shadow.docs.get(idk)
                    old = real.docs.get(idk)
                    if new is None:
                        if old is not None:
                            real.remove(idk)
                    elif old is None:
                        real.insert(new)
                    else:
                        real.replace(idk, new)
                    undo.append((real, idk, old))
        except CommandError:
            for real, idk, old in reversed(undo):
                if idk in real.docs:
                    real.remove(idk)
                if old is not None:
                    real.insert(old)
            sess.state = 'aborted'
            raise
        finally:
            txn.shadows = {}
            engine.cond.notify_all()
        sess.state = 'committed'


def _lsid_text(lsid):
    value = lsid.get('id')
    if isinstance(value, Binary) and len(value) == 16:
        h = bytes(value).hex()
        return '%s-%s-%s-%s-%s' % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    return str(value)
