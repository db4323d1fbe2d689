"""In-memory storage and command handlers of the odm test server.

Commands are executed under one global lock, so every command (and in
particular every single-document update) is atomic with respect to all
connections.
"""

import copy
import datetime
import itertools
import random
import sys
import threading
import time
import uuid

import bson
from bson import SON, ObjectId, Regex, Timestamp
from bson.binary import Binary
from bson.int64 import Int64

from odm_values import (MISSING, RE_TYPE, UnsupportedValue, canon, bson_eq, is_number,
                        fmt_doc, fmt_value, type_name)
from odm_query import (CommandError, NotSupported, match,
                       sort_docs, parse_sort, Projection, apply_update,
                       check_update_supported, is_operator_update, upsert_seed,
                       parse_array_filters,
                       UpdateContext, move_id_first, bson_identical,
                       path_candidates, set_expr_evaluator, forget_prepared_queries)
from odm_sessions import (SessionFields, SessionManager, ClusterClock, WriteBlocked,
                          TopLevelError, error_labels, TRANSACTION_END_COMMANDS)
from odm_failpoint import FailCommand

import odm_aggregate
import odm_schema

SERVER_VERSION = '7.0.0'
MAX_WIRE_VERSION = 21
MAX_BSON_SIZE = 16 * 1024 * 1024
MAX_MESSAGE_SIZE = 48000000
MAX_WRITE_BATCH = 100000
MAX_REPLY_BATCH_BYTES = MAX_BSON_SIZE - 64 * 1024
DEFAULT_FIRST_BATCH = 101

# Fields any command may carry that do not change its result here.
COMMON_FIELDS = frozenset([
    '$db', 'lsid', '$clusterTime', '$readPreference', 'writeConcern',
    'readConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors',
    'maxTimeMS', 'comment', 'bypassDocumentValidation', '$client', '$audit',
    'mayBypassWriteBlocking', '$queryOptions',
])

# The session fields (checked by odm_sessions before a command runs).
SESSION_FIELDS = frozenset(['txnNumber', 'autocommit', 'startTransaction'])

# The replica set this server is the only member (and primary) of.
REPLICA_SET_NAME = 'odm'
KNOWN_UNSUPPORTED_COMMANDS = {
    'explain': 'the explain command',
    'mapReduce': 'mapReduce', 'mapreduce': 'mapReduce',
    'validate': 'the validate command',
    'compact': 'the compact command', 'dbStats': 'dbStats', 'collStats': 'collStats',
    'dataSize': 'dataSize', 'serverStatus': 'serverStatus', 'currentOp': 'currentOp',
    'killOp': 'killOp', 'bulkWrite': 'the bulkWrite command', 'geoNear': 'geoNear',
    'saslStart': 'authentication (saslStart)', 'saslContinue': 'authentication (saslContinue)',
    'authenticate': 'authentication', 'createUser': 'user management (createUser)',
    'dropUser': 'user management (dropUser)', 'createRole': 'role management',
    'shardCollection': 'sharding', 'replSetGetStatus': 'replication (replSetGetStatus)',
    'fsync': 'fsync', 'shutdown': 'the shutdown command',
    'setFeatureCompatibilityVersion': 'setFeatureCompatibilityVersion',
    'reIndex': 'reIndex', 'cloneCollectionAsCapped': 'capped collections',
    'convertToCapped': 'capped collections', 'createSearchIndexes': 'search indexes',
    'getLastError': 'getLastError', 'count': 'the count command (count documents with '
    'aggregate)', 'distinct': 'distinct', 'renameCollection': 'renameCollection',
    'listDatabases': 'listDatabases', 'getParameter': 'getParameter',
    'killAllSessions': 'killAllSessions', 'killAllSessionsByPattern': 'killAllSessions',
    'refreshSessions': 'refreshSessions', 'startSession': 'startSession',
    'whatsmyuri': 'whatsmyuri', 'connectionStatus': 'connectionStatus',
}


def utcnow_ms():
    now = datetime.datetime.utcnow()
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def check_fields(cmd, name, allowed):
    for k in cmd:
        if k == name or k in COMMON_FIELDS or k in SESSION_FIELDS or k in allowed:
            continue
        raise CommandError(40415, "BSON field '%s.%s' is an unknown field." % (name, k))


def check_collation(value, where):
    if value is None:
        return
    if isinstance(value, dict) and value.get('locale') == 'simple' and \
            set(value) <= {'locale'}:
        return
    raise NotSupported('collation (%s)' % where)


def check_hint(coll, hint):
    """MongoDB's check of a hint: an index name or key pattern of the collection (a
    collection that does not exist yet has nothing to check against). There is no query
    planner here, so a valid hint changes nothing."""
    if hint is None or coll is None:
        return
    def same(a, b):
        return list(a.keys()) == list(b.keys()) and all(
            (is_number(a[k]) and is_number(b[k]) and float(a[k]) == float(b[k])) or a[k] == b[k]
            for k in a)
    if isinstance(hint, str):
        if any(ix.get('name') == hint for ix in coll.indexes):
            return
    elif isinstance(hint, dict):
        if any(same(hint, ix.get('key', {})) for ix in coll.indexes):
            return
    else:
        raise CommandError(9, 'hint must be a string or an object, not %s' % type_name(hint))
    raise CommandError(2, 'error processing query: planner returned error :: caused by :: hint '
                       'provided does not correspond to an existing index')


def check_let(cmd):
    if cmd.get('let') is not None:
        raise NotSupported("'let' variables")


def get_int(cmd, field, default=None, name=None):
    v = cmd.get(field, default)
    if v is None:
        return default
    if not is_number(v):
        raise CommandError(14, "BSON field '%s.%s' is the wrong type '%s', expected types "
                           "'[long, int, decimal, double]'" % (name or '?', field, type_name(v)))
    if v != int(v):
        raise CommandError(2, "Expected an integer for '%s': %s" % (field, fmt_value(v)))
    return int(v)


def get_bool(cmd, field, default=False):
    v = cmd.get(field, default)
    if v is None:
        return default
    if isinstance(v, bool):
        return v
    if is_number(v):
        return v != 0
    raise CommandError(14, "BSON field '%s' is the wrong type '%s', expected type 'bool'"
                       % (field, type_name(v)))


def get_doc(cmd, field, name, default=None):
    v = cmd.get(field, default)
    if v is None:
        return default
    if not isinstance(v, dict):
        raise CommandError(14, "BSON field '%s.%s' is the wrong type '%s', expected type 'object'"
                           % (name, field, type_name(v)))
    return v


def check_id_value(v):
    if isinstance(v, list):
        raise CommandError(53, "The '_id' value cannot be of type array")
    if isinstance(v, (Regex, RE_TYPE)):
        raise CommandError(53, "The '_id' value cannot be of type regex")


def doc_size(doc):
    return len(bson.encode(doc))


# ---------------------------------------------------------------------------
# Storage
# ---------------------------------------------------------------------------

def _key_values(value, parts):
    """The index keys of one path as mongod makes them: every element of an array on
    the path (an empty array at the end is itself the key), MISSING where the path ends.
    Returns (values, whether an array was met)."""
    if not parts:
        if isinstance(value, list):
            return (list(value) if value else [value]), True
        return [value], False
    if isinstance(value, list):
        out = []
        for elem in value:
            if isinstance(elem, dict):
                out.extend(_key_values(elem, parts)[0])
        return (out or [MISSING]), True
    if isinstance(value, dict) and parts[0] in value:
        return _key_values(value[parts[0]], parts[1:])
    return [MISSING], False


def _equality_keys(doc, path):
    """Hashed keys under which an equality index on path finds doc: exactly the values
    that an equality query on path compares against (odm_query.match)."""
    keys = set()
    for v in path_candidates(doc, path.split('.')):
        for x in (v if isinstance(v, list) else ()):
            if x is not None:
                keys.add(canon(x))
        if v is not MISSING and v is not None:
            keys.add(canon(v))
    return keys


def _plain_equality_values(cond, allow_documents):
    """The values a lone equality, $eq or $in condition may equal, when an index can
    find them (no null, regex, array or operator values); None otherwise."""
    def plain(v):
        if v is None or isinstance(v, (list, Regex, RE_TYPE)):
            return False
        if isinstance(v, dict):
            return allow_documents and not (v and next(iter(v)).startswith('$'))
        return True
    if isinstance(cond, dict) and cond and next(iter(cond)).startswith('$'):
        if len(cond) != 1:
            return None
        if isinstance(cond.get('$in'), list):
            values = cond['$in']
        elif '$eq' in cond:
            values = [cond['$eq']]
        else:
            return None
    else:
        values = [cond]
    return values if all(plain(v) for v in values) else None


class Collection(object):
    """Documents by _id, unique indexes enforced, and hashed equality maps on the first
    field of each declared index. Every change goes through the database's guard (the
    session manager, or a transaction for its own copy)."""

    def __init__(self, db, name, snapshot=None):
        self.db = db
        self.name = name
        self.eq_maps = {}       # field -> {canon(value): {canon(_id)}}
        self.versions = {}      # canon(_id) -> sequence number of its last change
        if snapshot is None:
            self.docs = {}      # canon(_id) -> document (never mutated in place)
            self.pos = {}       # canon(_id) -> insertion number (natural order)
            self.indexes = [{'v': 2, 'key': SON([('_id', 1)]), 'name': '_id_'}]
            self.unique_maps = {}   # index name -> {key tuple: canon(_id)}
            self.options = {}
            self.uuid = Binary(uuid.uuid4().bytes, 4)
        else:
            (self.docs, self.pos, self.indexes, self.unique_maps, self.options,
             self.uuid) = snapshot
        self.next_pos = max(self.pos.values(), default=0) + 1

    def snapshot(self):
        """Copies of what a transaction's own copy of this collection starts from."""
        return (dict(self.docs), dict(self.pos), list(self.indexes),
                {name: dict(m) for name, m in self.unique_maps.items()}, self.options,
                self.uuid)

    @property
    def ns(self):
        return '%s.%s' % (self.db.name, self.name)

    # -- index helpers ----------------------------------------------------
    def index_by_name(self, name):
        for ix in self.indexes:
            if ix['name'] == name:
                return ix
        return None

    def unique_indexes(self):
        return [ix for ix in self.indexes if ix.get('unique') and ix['name'] != '_id_']

    def index_keys(self, ix, doc):
        """{key tuple: [(field, value)]} of doc under index ix: one key per array
        element on a key path; none when the index's partial filter or sparse option
        leaves doc out."""
        pfe = ix.get('partialFilterExpression')
        if pfe is not None and not match(pfe, doc):
            return {}
        per_field = []
        arrays = []
        for field in ix['key']:
            values, is_array = _key_values(doc, field.split('.'))
            if is_array:
                arrays.append(field)
            per_field.append((field, values))
        if len(arrays) > 1:
            raise CommandError(171, 'cannot index parallel arrays [%s] [%s]'
                               % (arrays[1], arrays[0]))
        if ix.get('sparse') and all(v is MISSING for _, vs in per_field for v in vs):
            return {}
        keys = {}
        for combo in itertools.product(*[vs for _, vs in per_field]):
            items = [(field, None if v is MISSING else v)
                     for (field, _), v in zip(per_field, combo)]
            keys.setdefault(tuple(canon(v) for _, v in items), items)
        return keys

    def dup_error(self, ix, items):
        msg = 'E11000 duplicate key error collection: %s index: %s dup key: %s' % (
            self.ns, ix['name'], fmt_doc(items))
        key_pattern = SON(ix['key'])
        key_value = SON((k, v) for k, v in items)
        return CommandError(11000, msg, keyPattern=key_pattern, keyValue=key_value)

    def _unique_changes(self, idk, old, new):
        """Unique keys gained and lost by changing document idk from old to new (None:
        absent); raises the duplicate key error mongod gives (and its refusal of
        parallel arrays under any compound index)."""
        gained, lost = [], []
        for ix in self.indexes:
            if not ix.get('unique') or ix['name'] == '_id_':
                if new is not None and len(ix['key']) > 1:
                    self.index_keys(ix, new)
                continue
            m = self.unique_maps.setdefault(ix['name'], {})
            old_keys = self.index_keys(ix, old) if old is not None else {}
            new_keys = self.index_keys(ix, new) if new is not None else {}
            for key, items in new_keys.items():
                if key not in old_keys:
                    if key in m and m[key] != idk:
                        raise self.dup_error(ix, items)
                    gained.append((ix['name'], key))
            lost.extend((ix['name'], key) for key in old_keys if key not in new_keys)
        return gained, lost

    def _change(self, idk, old, new):
        """Replaces document idk (old, or None when absent) by new (None: removes it)."""
        gained, lost = self._unique_changes(idk, old, new)
        guard = self.db.guard
        if guard is not None:
            guard.before_write(self, idk, gained)
        for name, key in lost:
            if self.unique_maps[name].get(key) == idk:
                del self.unique_maps[name][key]
        for name, key in gained:
            self.unique_maps[name][key] = idk
        for field, m in self.eq_maps.items():
            old_keys = _equality_keys(old, field) if old is not None else set()
            new_keys = _equality_keys(new, field) if new is not None else set()
            for key in old_keys - new_keys:
                ids = m.get(key)
                if ids is not None:
                    ids.discard(idk)
                    if not ids:
                        del m[key]
            for key in new_keys - old_keys:
                m.setdefault(key, set()).add(idk)
        if new is None:
            del self.docs[idk]
            del self.pos[idk]
        else:
            if old is None:
                self.pos[idk] = self.next_pos
                self.next_pos += 1
            self.docs[idk] = new
        if guard is not None:
            guard.after_write(self, idk)

    # -- writes -------------------------------------------------------------
    def insert(self, doc):
        idk = canon(doc['_id'])
        if idk in self.docs:
            raise self.dup_error(self.indexes[0], [('_id', doc['_id'])])
        self._change(idk, None, doc)

    def replace(self, idk, new_doc):
        self._change(idk, self.docs[idk], new_doc)

    def remove(self, idk):
        self._change(idk, self.docs[idk], None)

    def build_unique_map(self, ix):
        m = {}
        for idk, doc in self.docs.items():
            for key, items in self.index_keys(ix, doc).items():
                if key in m and m[key] != idk:
                    raise self.dup_error(ix, items)
                m[key] = idk
        return m

    def sync_equality_maps(self):
        """One hashed equality map per first field of an index (the _id index is the
        documents' own map)."""
        fields = set()
        for ix in self.indexes:
            field, direction = next(iter(ix['key'].items()))
            if field != '_id' and (is_number(direction) or direction == 'hashed'):
                fields.add(field)
        for field in list(self.eq_maps):
            if field not in fields:
                del self.eq_maps[field]
        for field in fields - set(self.eq_maps):
            m = self.eq_maps[field] = {}
            for idk, doc in self.docs.items():
                for key in _equality_keys(doc, field):
                    m.setdefault(key, set()).add(idk)

    def find_ids(self, query):
        return [idk for idk, d in self.matching(query)]

    def _planned_ids(self, query):
        """The ids an index finds for one top-level equality or $in condition of query
        (exactly the documents that satisfy that condition), or None when none applies."""
        if not isinstance(query, dict):
            return None
        for field, cond in query.items():
            if field == '_id':
                def lookup(key):
                    return (key,) if key in self.docs else ()
            elif field in self.eq_maps:
                lookup = self.eq_maps[field].get
            else:
                continue
            values = _plain_equality_values(cond, allow_documents=field == '_id')
            if values is None:
                continue
            ids = set()
            try:
                for v in values:
                    ids.update(lookup(canon(v)) or ())
            except UnsupportedValue:
                return None
            return ids
        return None

    def matching(self, query):
        """(key, doc) pairs of the documents that match query, in natural order."""
        ids = self._planned_ids(query)
        if ids is None:
            return [(k, d) for k, d in self.docs.items() if match(query, d)]
        found = [(k, self.docs[k]) for k in sorted(ids, key=self.pos.__getitem__)]
        if len(query) == 1:
            return found   # the index answered the only condition
        return [(k, d) for k, d in found if match(query, d)]

    def matching_docs(self, query):
        return [d for _, d in self.matching(query)]


class Database(object):
    def __init__(self, name, guard=None):
        self.name = name
        self.guard = guard
        self.collections = {}


def validate_db_name(name):
    if not isinstance(name, str) or not name or any(c in name for c in '/\\. "$\0'):
        raise CommandError(73, "Invalid database name: '%s'" % (name,))


def validate_coll_name(name, cmd_name):
    if not isinstance(name, str):
        if isinstance(name, Binary) and name.subtype == 4:
            raise NotSupported('collection UUIDs in place of collection names (%s)' % cmd_name)
        raise CommandError(73, "collection name has invalid type %s" % type_name(name))
    if not name or '$' in name or '\0' in name or name.startswith('.'):
        raise CommandError(73, "Invalid collection name: %s" % name)


class CommandContext(threading.local):
    """What the command a thread runs is in: its transaction, session, deadline."""
    txn = None
    session = None
    deadline = None
    bypass_validation = False   # the command's bypassDocumentValidation


class CursorState(object):
    def __init__(self, cid, ns, docs, pos, is_tailable=False):
        self.cid = cid
        self.ns = ns
        self.docs = docs
        self.pos = pos


# ---------------------------------------------------------------------------
# Engine
# ---------------------------------------------------------------------------

class Engine(object):
    def __init__(self):
        self.lock = threading.RLock()
        self.databases = {}
        self.cursors = {}
        self.started = utcnow_ms()
        self.handlers = {
            'hello': self.cmd_hello, 'isMaster': self.cmd_hello, 'ismaster': self.cmd_hello,
            'ping': self.cmd_ping, 'buildInfo': self.cmd_build_info,
            'buildinfo': self.cmd_build_info,
            'endSessions': self.cmd_end_sessions, 'killSessions': self.cmd_end_sessions,
            'insert': self.cmd_insert, 'find': self.cmd_find, 'getMore': self.cmd_get_more,
            'killCursors': self.cmd_kill_cursors, 'update': self.cmd_update,
            'delete': self.cmd_delete, 'findAndModify': self.cmd_find_and_modify,
            'findandmodify': self.cmd_find_and_modify, 'aggregate': self.cmd_aggregate,
            'createIndexes': self.cmd_create_indexes, 'listIndexes': self.cmd_list_indexes,
            'dropIndexes': self.cmd_drop_indexes, 'deleteIndexes': self.cmd_drop_indexes,
            'drop': self.cmd_drop, 'dropDatabase': self.cmd_drop_database,
            'create': self.cmd_create, 'listCollections': self.cmd_list_collections,
            'collMod': self.cmd_coll_mod,
            'commitTransaction': self.cmd_commit_transaction,
            'abortTransaction': self.cmd_abort_transaction,
            'configureFailPoint': self.cmd_configure_fail_point,
        }
        self.cond = threading.Condition(self.lock)
        self.local = CommandContext()
        self.sessions = SessionManager(self)
        self.clock = ClusterClock()
        self.failpoint = FailCommand()
        set_expr_evaluator(odm_aggregate.evaluate_expr)

    # -- entry point --------------------------------------------------------
    def execute(self, db_name, cmd, conn):
        """Run one command; returns its reply, or None when the connection must be
        closed without one (the failCommand fail point's closeConnection)."""
        try:
            if not cmd:
                raise CommandError(59, 'no such command: \'\'')
            name = next(iter(cmd))
            handler = self.handlers.get(name)
            if handler is None:
                if name in KNOWN_UNSUPPORTED_COMMANDS:
                    raise NotSupported(KNOWN_UNSUPPORTED_COMMANDS[name])
                raise CommandError(59, "no such command: '%s'" % name)
            if name not in ('hello', 'isMaster', 'ismaster', 'ping', 'buildInfo', 'buildinfo'):
                validate_db_name(db_name)
            action = self.failpoint.trigger(name, (conn or {}).get('app_name'))
        except CommandError as e:
            return e.reply()
        if action is not None:
            if action.block_ms:
                time.sleep(action.block_ms / 1000.0)
            if action.close:
                return None
        with self.lock:
            seq = self.sessions.seq
            fields = None
            try:
                fields = SessionFields(cmd, name)
                reply = self._run(db_name, name, handler, cmd, conn, fields, action)
            except CommandError as e:
                reply = e.reply()
            except bson.errors.InvalidDocument as e:
                reply = CommandError(2, 'invalid document: %s' % e).reply()
            except RecursionError:
                reply = CommandError(2, 'document or query nested too deeply').reply()
            except UnsupportedValue as e:
                reply = NotSupported(str(e)).reply()
            finally:
                forget_prepared_queries()
            return self._finish(reply, fields, action, seq)

    def _run(self, db_name, name, handler, cmd, conn, fields, action):
        """The command in its session: in its transaction, or once as a retryable write."""
        self._check_cluster_time(cmd)
        sess, txn, stored = self.sessions.enter(fields)
        if stored is not None:
            return stored
        ends = name in TRANSACTION_END_COMMANDS
        if action is not None and action.error_code is not None:
            if txn is not None and not ends:
                self.sessions.abort(sess)
            raise CommandError(int(action.error_code),
                               "Failing command via 'failCommand' failpoint")
        local = self.local
        local.txn = None if ends else txn
        local.session = sess
        local.bypass_validation = cmd.get('bypassDocumentValidation') is True
        max_time = cmd.get('maxTimeMS')
        if is_number(max_time) and max_time > 0 and self.failpoint.max_time_expires((conn or {}).get('app_name')):
            raise CommandError(50, 'operation exceeded time limit')
        local.deadline = time.monotonic() + max_time / 1000.0 \
            if is_number(max_time) and max_time > 0 else None
        try:
            reply = handler(db_name, cmd, conn)
        except BaseException:
            if txn is not None and txn.active and not ends:
                self.sessions.abort(sess)
            raise
        finally:
            local.txn = local.session = local.deadline = None
            local.bypass_validation = False
        if txn is not None and txn.active and not ends and reply.get('writeErrors'):
            self.sessions.abort(sess)   # a write error ends the transaction
        if fields.retryable_write:
            sess.retry_reply = (int(fields.txn_number), copy.deepcopy(reply))
        return reply

    def _check_cluster_time(self, cmd):
        gossip = cmd.get('$clusterTime')
        if isinstance(gossip, dict):
            self.clock.advance_to(gossip.get('clusterTime'))
        rc = cmd.get('readConcern')
        after = rc.get('afterClusterTime') if isinstance(rc, dict) else None
        if after is not None and (not isinstance(after, Timestamp) or
                                  (after.time, after.inc) > self.clock.now):
            raise CommandError(72, 'readConcern afterClusterTime value must not be greater '
                               'than the current clusterTime. Requested clusterTime: %s; '
                               'current clusterTime: %s' % (after, self.clock.timestamp()))

    def _finish(self, reply, fields, action, seq):
        """Adds the fail point's write concern error, the error labels, $clusterTime and
        operationTime (the cluster time advances with every change)."""
        if 'ok' not in reply:
            reply['ok'] = 1.0
        if action is not None and action.write_concern_error is not None and reply['ok']:
            reply['writeConcernError'] = copy.deepcopy(action.write_concern_error)
        if action is not None and action.reply_fields:
            reply.update(copy.deepcopy(action.reply_fields))
        code = None if reply['ok'] else reply.get('code')
        wce = reply.get('writeConcernError')
        wce_code = wce.get('code') if isinstance(wce, dict) else None
        if code is not None or wce_code is not None:
            labels = action.labels if action is not None and action.labels is not None \
                else error_labels(fields, code, wce_code)
            if labels:
                reply['errorLabels'] = list(labels)
        if self.sessions.seq != seq:
            self.clock.tick()
        reply['operationTime'] = self.clock.timestamp()
        reply['$clusterTime'] = self.clock.cluster_time_doc()
        return reply

    def _blocking(self, attempt):
        """Runs attempt(), a write that changes nothing when a transaction holds what it
        would write; then waits for that transaction to end and runs it again."""
        while True:
            try:
                return attempt()
            except WriteBlocked as blocked:
                self._wait_for(blocked.txn)

    def _wait_for(self, txn):
        deadline = self.local.deadline
        while txn.active:
            now = time.monotonic()
            if now >= txn.expires_at:
                self.sessions.expire(txn)
                return
            if deadline is not None and now >= deadline:
                raise TopLevelError(50, 'operation exceeded time limit')
            self.cond.wait(min(txn.expires_at, deadline or txn.expires_at) - now)

    # -- helpers ------------------------------------------------------------
    def get_db(self, name, create=False):
        db = self.databases.get(name)
        if db is None and create:
            db = self.databases[name] = Database(name, self.sessions)
        return db

    def get_coll(self, db_name, coll_name, create=False):
        """The collection as this command sees it: its transaction's copy, in one."""
        txn = self.local.txn
        if txn is not None:
            return txn.collection(db_name, coll_name, create)
        return self.real_coll(db_name, coll_name, create)

    def snapshot(self):
        return {(db.name, coll.name): coll.snapshot()
                for db in self.databases.values() for coll in db.collections.values()}

    def shadow_collection(self, db, coll_name, snapshot):
        return Collection(db, coll_name, snapshot)

    def real_coll(self, db_name, coll_name, create=False):
        db = self.get_db(db_name, create)
        if db is None:
            return None
        coll = db.collections.get(coll_name)
        if coll is None and create:
            coll = db.collections[coll_name] = Collection(db, coll_name)
        return coll

    def new_cursor_id(self):
        while True:
            cid = random.randint(1, 2 ** 62)
            if cid not in self.cursors:
                return cid

    def batch(self, docs, pos, limit):
        out = []
        size = 0
        while pos < len(docs) and (limit is None or len(out) < limit):
            sz = doc_size(docs[pos])
            if out and size + sz > MAX_REPLY_BATCH_BYTES:
                break
            out.append(docs[pos])
            size += sz
            pos += 1
        return out, pos

    def cursor_reply(self, ns, docs, batch_size, single_batch=False):
        limit = DEFAULT_FIRST_BATCH if batch_size is None else batch_size
        first, pos = self.batch(docs, 0, limit)
        cid = 0
        if pos < len(docs) and not single_batch:
            cid = self.new_cursor_id()
            self.cursors[cid] = CursorState(cid, ns, docs, pos)
        return {'cursor': {'firstBatch': first, 'id': Int64(cid), 'ns': ns}, 'ok': 1.0}

    # -- handshake and misc -----------------------------------------------
    def cmd_hello(self, db, cmd, conn):
        """The primary of a one-member replica set, so that drivers use sessions,
        transactions and retryable writes."""
        name = next(iter(cmd))
        conn = conn if conn is not None else {}
        app = (cmd.get('client') or {}).get('application')
        if isinstance(app, dict) and isinstance(app.get('name'), str):
            conn['app_name'] = app['name']   # for the failCommand fail point's appName
        me = conn.get('me', '127.0.0.1:27017')
        reply = {
            'helloOk': True,
            'isWritablePrimary': True,
            'ismaster': True,
            'secondary': False,
            'setName': REPLICA_SET_NAME,
            'setVersion': 1,
            'hosts': [me],
            'primary': me,
            'me': me,
            'electionId': ObjectId('7fffffff0000000000000001'),
            'maxBsonObjectSize': MAX_BSON_SIZE,
            'maxMessageSizeBytes': MAX_MESSAGE_SIZE,
            'maxWriteBatchSize': MAX_WRITE_BATCH,
            'localTime': utcnow_ms(),
            # What a replica set member reports of its last write, which drivers need to
            # select servers with maxStalenessSeconds (every write here is majority-written).
            'lastWrite': {'lastWriteDate': utcnow_ms(), 'majorityWriteDate': utcnow_ms()},
            'logicalSessionTimeoutMinutes': 30,
            'connectionId': conn.get('id', 0),
            'minWireVersion': 0,
            'maxWireVersion': MAX_WIRE_VERSION,
            'readOnly': False,
            'odmTestServer': True,
            'ok': 1.0,
        }
        if name == 'hello':
            del reply['ismaster']
        else:
            del reply['isWritablePrimary']
        return reply

    def cmd_ping(self, db, cmd, conn):
        return {'ok': 1.0}

    def cmd_build_info(self, db, cmd, conn):
        return {
            'version': SERVER_VERSION,
            'gitVersion': 'odm-test-server',
            'versionArray': [7, 0, 0, 0],
            'bits': 64, 'debug': False,
            'maxBsonObjectSize': MAX_BSON_SIZE,
            'storageEngines': ['memory'],
            'javascriptEngine': 'none',
            'modules': [],
            'odmTestServer': True,
            'ok': 1.0,
        }

    def cmd_end_sessions(self, db, cmd, conn):
        lsids = cmd[next(iter(cmd))]
        if not isinstance(lsids, list):
            raise CommandError(14, "'%s' must be an array of session ids" % next(iter(cmd)))
        self.sessions.end_sessions(lsids)
        return {'ok': 1.0}

    def _transaction_session(self, db_name, name):
        if db_name != 'admin':
            raise CommandError(13, '%s may only be run against the admin database.' % name)
        sess = self.local.session
        if sess is None or sess.txn is None:
            raise CommandError(72, '%s must be run within a transaction (lsid, txnNumber and '
                               'autocommit: false)' % name)
        return sess

    def cmd_commit_transaction(self, db_name, cmd, conn):
        self.sessions.commit(self._transaction_session(db_name, 'commitTransaction'))
        return {'ok': 1.0}

    def cmd_abort_transaction(self, db_name, cmd, conn):
        self.sessions.abort(self._transaction_session(db_name, 'abortTransaction'))
        return {'ok': 1.0}

    def cmd_configure_fail_point(self, db_name, cmd, conn):
        if db_name != 'admin':
            raise CommandError(13, 'configureFailPoint may only be run against the admin '
                               'database.')
        return self.failpoint.configure(cmd)

    # -- insert ---------------------------------------------------------------
    def cmd_insert(self, db_name, cmd, conn):
        check_fields(cmd, 'insert', {'documents', 'ordered', 'let'})
        check_let(cmd)
        coll_name = cmd['insert']
        validate_coll_name(coll_name, 'insert')
        docs = cmd.get('documents')
        if not isinstance(docs, list):
            raise CommandError(40414, "BSON field 'insert.documents' is missing but a required "
                               "field")
        ordered = get_bool(cmd, 'ordered', True)
        coll = self.get_coll(db_name, coll_name, create=True)
        n = 0
        write_errors = []
        for i, doc in enumerate(docs):
            try:
                if not isinstance(doc, dict):
                    raise CommandError(14, 'document to insert must be an object')
                if '_id' not in doc:
                    new = {'_id': ObjectId()}
                    new.update(doc)
                    doc = new
                else:
                    check_id_value(doc['_id'])
                    doc = move_id_first(doc)
                self._validate(coll, None, doc)
                self._blocking(lambda: coll.insert(doc))
                n += 1
            except TopLevelError:
                raise
            except CommandError as e:
                write_errors.append(e.write_error(i))
                if ordered:
                    break
        reply = {'n': n}
        if write_errors:
            reply['writeErrors'] = write_errors
        reply['ok'] = 1.0
        return reply

    # -- find / getMore / killCursors ------------------------------------------
    def query_docs(self, coll, query, sort=None, skip=0, limit=0, projection=None):
        if coll is None:
            match(query, {})  # still validate the filter
            docs = []
        else:
            docs = coll.matching_docs(query)
        if sort:
            docs = sort_docs(docs, sort)
        if skip:
            docs = docs[skip:]
        if limit:
            docs = docs[:limit]
        if projection is not None and not projection.empty:
            docs = [projection.apply(d, query) for d in docs]
        return docs

    def cmd_find(self, db_name, cmd, conn):
        check_fields(cmd, 'find', {
            'filter', 'sort', 'projection', 'skip', 'limit', 'batchSize', 'singleBatch', 'hint',
            'noCursorTimeout', 'allowPartialResults', 'allowDiskUse', 'collation', 'let',
            'returnKey', 'showRecordId', 'tailable', 'awaitData', 'oplogReplay', 'readOnce',
            'min', 'max', 'maxScan', 'snapshot', 'singleBatch', 'exhaust'})
        coll_name = cmd['find']
        validate_coll_name(coll_name, 'find')
        check_collation(cmd.get('collation'), 'find')
        check_let(cmd)
        for flag in ('returnKey', 'showRecordId', 'tailable', 'awaitData'):
            if get_bool(cmd, flag, False):
                raise NotSupported('find with %s' % flag)
        for opt in ('min', 'max'):
            if cmd.get(opt) is not None:
                raise NotSupported('find with %s' % opt)
        query = get_doc(cmd, 'filter', 'find', {})
        sort = get_doc(cmd, 'sort', 'find', None)
        projection = Projection(get_doc(cmd, 'projection', 'find', None))
        skip = get_int(cmd, 'skip', 0, 'find')
        limit = get_int(cmd, 'limit', 0, 'find')
        batch_size = get_int(cmd, 'batchSize', None, 'find')
        single = get_bool(cmd, 'singleBatch', False)
        if skip < 0:
            raise CommandError(51024, "BSON field 'skip' value must be >= 0, actual value '%d'"
                               % skip)
        if limit < 0:
            raise CommandError(51024, "BSON field 'limit' value must be >= 0, actual value '%d'"
                               % limit)
        if batch_size is not None and batch_size < 0:
            raise CommandError(51024, "BSON field 'batchSize' value must be >= 0, actual value "
                               "'%d'" % batch_size)
        parse_sort(sort)
        coll = self.get_coll(db_name, coll_name)
        check_hint(coll, cmd.get('hint'))
        docs = self.query_docs(coll, query, sort, skip, limit, projection)
        ns = '%s.%s' % (db_name, coll_name)
        if limit and batch_size is not None and batch_size > limit:
            batch_size = limit
        return self.cursor_reply(ns, docs, batch_size, single)

    def cmd_get_more(self, db_name, cmd, conn):
        check_fields(cmd, 'getMore', {'collection', 'batchSize', 'term', 'lastKnownCommittedOpTime'})
        cid = cmd['getMore']
        if isinstance(cid, bool) or not isinstance(cid, int):
            raise CommandError(14, "BSON field 'getMore.getMore' is the wrong type '%s', expected "
                               "type 'long'" % type_name(cid))
        cur = self.cursors.get(int(cid))
        if cur is None:
            raise CommandError(43, 'cursor id %d not found' % int(cid))
        coll = cmd.get('collection')
        if coll is not None and '%s.%s' % (db_name, coll) != cur.ns:
            raise CommandError(13, "Requested getMore on namespace '%s.%s', but cursor belongs "
                               "to a different namespace %s" % (db_name, coll, cur.ns))
        batch_size = get_int(cmd, 'batchSize', None, 'getMore')
        if batch_size is not None and batch_size < 0:
            raise CommandError(51024, "BSON field 'batchSize' value must be >= 0")
        if batch_size == 0:
            batch_size = None
        batch, pos = self.batch(cur.docs, cur.pos, batch_size)
        cur.pos = pos
        out_id = cur.cid
        if pos >= len(cur.docs):
            del self.cursors[cur.cid]
            out_id = 0
        return {'cursor': {'nextBatch': batch, 'id': Int64(out_id), 'ns': cur.ns}, 'ok': 1.0}

    def cmd_kill_cursors(self, db_name, cmd, conn):
        check_fields(cmd, 'killCursors', {'cursors'})
        ids = cmd.get('cursors')
        if not isinstance(ids, list):
            raise CommandError(40414, "BSON field 'killCursors.cursors' is missing but a "
                               "required field")
        killed, not_found = [], []
        for cid in ids:
            if self.cursors.pop(int(cid), None) is not None:
                killed.append(Int64(cid))
            else:
                not_found.append(Int64(cid))
        return {'cursorsKilled': killed, 'cursorsNotFound': not_found, 'cursorsAlive': [],
                'cursorsUnknown': [], 'ok': 1.0}

    # -- update -----------------------------------------------------------------
    def _apply_one_update(self, coll, db_name, coll_name, stmt_q, stmt_u, upsert, multi,
                          array_filters):
        """Returns (n_matched, n_modified, upserted_id or MISSING)."""
        if coll is None:
            ids = []
            match(stmt_q, {})
        else:
            ids = coll.find_ids(stmt_q)
        if not multi:
            ids = ids[:1]
        n_matched = n_modified = 0

        def update_one(idk):
            old = coll.docs.get(idk)
            if old is None or not match(stmt_q, old):
                return None   # changed by the transaction this update waited for
            new = apply_update(old, stmt_u, UpdateContext(stmt_q, False, old.get('_id'),
                                                          array_filters))
            if bson.encode(new) == bson.encode(old):
                return False
            self._validate(coll, old, new)
            coll.replace(idk, new)
            return True
        for idk in ids:
            modified = self._blocking(lambda: update_one(idk))
            if modified is not None:
                n_matched += 1
                n_modified += modified
        if ids or not upsert:
            return n_matched, n_modified, MISSING
        new = self._make_upsert_doc(stmt_q, stmt_u, array_filters)
        coll = self.get_coll(db_name, coll_name, create=True)
        self._validate(coll, None, new)
        self._blocking(lambda: coll.insert(new))
        return 0, 0, new['_id']

    def _make_upsert_doc(self, query, update, array_filters):
        seed = upsert_seed(query)
        new = apply_update(seed, update, UpdateContext(query, True, seed.get('_id'),
                                                       array_filters))
        if not is_operator_update(update):
            if '_id' in seed and '_id' in update and not bson_identical(seed['_id'],
                                                                        update['_id']):
                raise CommandError(66, "After applying the update, the (immutable) field '_id' "
                                   "was found to have been altered to _id: %s"
                                   % fmt_value(update['_id']))
        if '_id' not in new:
            n2 = {'_id': ObjectId()}
            n2.update(new)
            new = n2
        else:
            check_id_value(new['_id'])
            new = move_id_first(new)
        return new

    def cmd_update(self, db_name, cmd, conn):
        check_fields(cmd, 'update', {'updates', 'ordered', 'let'})
        check_let(cmd)
        coll_name = cmd['update']
        validate_coll_name(coll_name, 'update')
        stmts = cmd.get('updates')
        if not isinstance(stmts, list):
            raise CommandError(40414, "BSON field 'update.updates' is missing but a required "
                               "field")
        ordered = get_bool(cmd, 'ordered', True)
        # Refuse unsupported features before writing anything.
        for st in stmts:
            if not isinstance(st, dict):
                raise CommandError(14, 'update statement must be an object')
            for k in st:
                if k not in ('q', 'u', 'upsert', 'multi', 'arrayFilters', 'collation', 'hint',
                             'c', 'sort', 'upsertSupplied'):
                    raise CommandError(40415, "BSON field 'update.updates.%s' is an unknown "
                                       "field." % k)
            check_collation(st.get('collation'), 'update')
            if st.get('c') is not None:
                raise NotSupported("'c' (let constants) in update statements")
            if st.get('sort') is not None:
                raise NotSupported('sort in update statements')
            check_update_supported(st.get('u'))
        coll = self.get_coll(db_name, coll_name)
        n = n_modified = 0
        upserted = []
        write_errors = []
        for i, st in enumerate(stmts):
            try:
                q = st.get('q')
                u = st.get('u')
                if not isinstance(q, dict):
                    raise CommandError(40414, "BSON field 'update.updates.q' is missing but a "
                                       "required field")
                check_hint(coll, st.get('hint'))
                multi = get_bool(st, 'multi', False)
                upsert = get_bool(st, 'upsert', False)
                if multi and not is_operator_update(u):
                    raise CommandError(9, 'multi update is not supported for replacement-style '
                                       'update')
                array_filters = parse_array_filters(st.get('arrayFilters'), u)
                matched, modified, up_id = self._apply_one_update(
                    coll, db_name, coll_name, q, u, upsert, multi, array_filters)
                coll = self.get_coll(db_name, coll_name)
                if up_id is not MISSING:
                    n += 1
                    upserted.append({'index': i, '_id': up_id})
                else:
                    n += matched
                    n_modified += modified
            except TopLevelError:
                raise
            except CommandError as e:
                coll = self.get_coll(db_name, coll_name)
                write_errors.append(e.write_error(i))
                if ordered:
                    break
        reply = {'n': n, 'nModified': n_modified}
        if upserted:
            reply['upserted'] = upserted
        if write_errors:
            reply['writeErrors'] = write_errors
        reply['ok'] = 1.0
        return reply

    # -- delete -------------------------------------------------------------------
    def cmd_delete(self, db_name, cmd, conn):
        check_fields(cmd, 'delete', {'deletes', 'ordered', 'let'})
        check_let(cmd)
        coll_name = cmd['delete']
        validate_coll_name(coll_name, 'delete')
        stmts = cmd.get('deletes')
        if not isinstance(stmts, list):
            raise CommandError(40414, "BSON field 'delete.deletes' is missing but a required "
                               "field")
        ordered = get_bool(cmd, 'ordered', True)
        for st in stmts:
            if not isinstance(st, dict):
                raise CommandError(14, 'delete statement must be an object')
            for k in st:
                if k not in ('q', 'limit', 'collation', 'hint'):
                    raise CommandError(40415, "BSON field 'delete.deletes.%s' is an unknown "
                                       "field." % k)
            check_collation(st.get('collation'), 'delete')
        coll = self.get_coll(db_name, coll_name)
        n = 0
        write_errors = []
        for i, st in enumerate(stmts):
            try:
                q = st.get('q')
                if not isinstance(q, dict):
                    raise CommandError(40414, "BSON field 'delete.deletes.q' is missing but a "
                                       "required field")
                check_hint(coll, st.get('hint'))
                limit = get_int(st, 'limit', 0, 'delete')
                if limit not in (0, 1):
                    raise CommandError(9, 'The limit field in delete objects must be 0 or 1. '
                                       'Got %d' % limit)
                if coll is None:
                    match(q, {})
                    continue
                ids = coll.find_ids(q)
                if limit == 1:
                    ids = ids[:1]

                def remove(idk):
                    old = coll.docs.get(idk)
                    if old is None or not match(q, old):
                        return 0   # changed by the transaction this delete waited for
                    coll.remove(idk)
                    return 1
                for idk in ids:
                    n += self._blocking(lambda: remove(idk))
            except TopLevelError:
                raise
            except CommandError as e:
                write_errors.append(e.write_error(i))
                if ordered:
                    break
        reply = {'n': n}
        if write_errors:
            reply['writeErrors'] = write_errors
        reply['ok'] = 1.0
        return reply

    # -- findAndModify --------------------------------------------------------------
    def cmd_find_and_modify(self, db_name, cmd, conn):
        name = next(iter(cmd))
        check_fields(cmd, name, {'query', 'sort', 'remove', 'update', 'new', 'fields', 'upsert',
                                 'arrayFilters', 'collation', 'hint', 'let'})
        coll_name = cmd[name]
        validate_coll_name(coll_name, name)
        check_collation(cmd.get('collation'), 'findAndModify')
        check_let(cmd)
        query = get_doc(cmd, 'query', name, {})
        sort = get_doc(cmd, 'sort', name, None)
        remove = get_bool(cmd, 'remove', False)
        update = cmd.get('update')
        return_new = get_bool(cmd, 'new', False)
        upsert = get_bool(cmd, 'upsert', False)
        fields = Projection(get_doc(cmd, 'fields', name, None))
        if remove and update is not None:
            raise CommandError(9, 'Cannot specify both an update and remove=true')
        if not remove and update is None:
            raise CommandError(9, 'Either an update or remove=true must be specified')
        if remove and upsert:
            raise CommandError(9, 'Cannot specify both upsert=true and remove=true')
        if remove and return_new:
            raise CommandError(9, 'Cannot specify both new=true and remove=true; \'remove\' '
                               'always returns the deleted document')
        array_filters = None
        if not remove:
            check_update_supported(update)
            array_filters = parse_array_filters(cmd.get('arrayFilters'), update)
        elif cmd.get('arrayFilters') is not None:
            raise CommandError(9, 'Cannot specify arrayFilters and remove=true')
        parse_sort(sort)
        check_hint(self.get_coll(db_name, coll_name), cmd.get('hint'))
        return self._blocking(lambda: self._find_and_modify(
            db_name, coll_name, query, sort, remove, update, return_new, upsert, fields,
            array_filters))

    def _find_and_modify(self, db_name, coll_name, query, sort, remove, update, return_new,
                         upsert, fields, array_filters):
        coll = self.get_coll(db_name, coll_name)
        if coll is None:
            match(query, {})
            candidates = []
        else:
            candidates = coll.matching_docs(query)
        if sort:
            candidates = sort_docs(candidates, sort)
        target = candidates[0] if candidates else None

        def project(d):
            if d is None:
                return None
            return fields.apply(d, query)

        if remove:
            if target is None:
                return {'lastErrorObject': {'n': 0}, 'value': None, 'ok': 1.0}
            coll.remove(canon(target['_id']))
            return {'lastErrorObject': {'n': 1}, 'value': project(target), 'ok': 1.0}

        if target is None:
            if not upsert:
                return {'lastErrorObject': {'n': 0, 'updatedExisting': False}, 'value': None,
                        'ok': 1.0}
            new = self._make_upsert_doc(query, update, array_filters)
            coll = self.get_coll(db_name, coll_name, create=True)
            self._validate(coll, None, new)
            coll.insert(new)
            return {'lastErrorObject': {'n': 1, 'updatedExisting': False, 'upserted': new['_id']},
                    'value': project(new) if return_new else None, 'ok': 1.0}
        new = apply_update(target, update, UpdateContext(query, False, target.get('_id'),
                                                         array_filters))
        idk = canon(target['_id'])
        if bson.encode(new) != bson.encode(target):
            self._validate(coll, target, new)
            coll.replace(idk, new)
        return {'lastErrorObject': {'n': 1, 'updatedExisting': True},
                'value': project(new if return_new else target), 'ok': 1.0}

    # -- aggregate ---------------------------------------------------------------------
    def cmd_aggregate(self, db_name, cmd, conn):
        check_fields(cmd, 'aggregate', {'pipeline', 'cursor', 'explain', 'allowDiskUse', 'hint',
                                        'let', 'collation', 'fromMongos', 'needsMerge'})
        target = cmd['aggregate']
        if cmd.get('explain'):
            raise NotSupported('explain')
        check_collation(cmd.get('collation'), 'aggregate')
        check_let(cmd)
        pipeline = cmd.get('pipeline')
        if not isinstance(pipeline, list):
            raise CommandError(14, "BSON field 'aggregate.pipeline' is the wrong type, expected "
                               "type 'array'")
        cursor_opts = cmd.get('cursor')
        if not isinstance(cursor_opts, dict):
            raise CommandError(9, "The 'cursor' option is required, except for aggregate with "
                               "the explain argument")
        batch_size = get_int(cursor_opts, 'batchSize', None, 'aggregate.cursor')
        if not isinstance(target, str):
            if is_number(target) and target == 1:
                raise NotSupported('database-level aggregation (aggregate: 1)')
            validate_coll_name(target, 'aggregate')
        validate_coll_name(target, 'aggregate')
        coll = self.get_coll(db_name, target)
        check_hint(coll, cmd.get('hint'))
        odm_aggregate.check_pipeline(pipeline)
        source, rest = odm_aggregate.source_docs(coll, pipeline)
        results = odm_aggregate.run_pipeline(self, db_name, source, rest)
        return self.cursor_reply('%s.%s' % (db_name, target), results, batch_size)

    # -- indexes ------------------------------------------------------------------------
    INDEX_OPTIONS = {'key', 'name', 'unique', 'sparse', 'partialFilterExpression',
                     'expireAfterSeconds', 'background', 'v', 'collation'}
    # mongod's other index options, refused.
    UNSUPPORTED_INDEX_OPTIONS = {'hidden', 'weights', 'default_language', 'language_override',
                                 'textIndexVersion', '2dsphereIndexVersion', 'bits', 'min', 'max',
                                 'wildcardProjection', 'storageEngine', 'bucketSize',
                                 'prepareUnique'}

    def cmd_create_indexes(self, db_name, cmd, conn):
        check_fields(cmd, 'createIndexes', {'indexes', 'commitQuorum', 'ignoreUnknownIndexOptions',
                                            'isTimeseriesNamespace'})
        coll_name = cmd['createIndexes']
        validate_coll_name(coll_name, 'createIndexes')
        specs = cmd.get('indexes')
        if not isinstance(specs, list) or not specs:
            raise CommandError(2, 'Must specify at least one index to create')
        norm = []
        for spec in specs:
            if not isinstance(spec, dict):
                raise CommandError(14, 'index specification must be an object')
            for k in spec:
                if k in self.UNSUPPORTED_INDEX_OPTIONS:
                    raise NotSupported("the index option '%s'" % k)
                if k not in self.INDEX_OPTIONS:
                    raise CommandError(197, "The field '%s' is not valid for an index "
                                       "specification. Specification: %s" % (k, fmt_value(spec)))
            key = spec.get('key')
            if not isinstance(key, dict) or not key:
                raise CommandError(67, "Error in specification %s :: caused by :: The 'key' "
                                   "field must be a non-empty object" % fmt_value(spec))
            for f, direction in key.items():
                if isinstance(direction, str):
                    raise NotSupported("%s indexes" % direction)
                if not (is_number(direction) and direction != 0):
                    raise CommandError(67, "Error in specification %s :: caused by :: Values in "
                                       "the index key pattern can only be numbers or strings"
                                       % fmt_value(spec))
            check_collation(spec.get('collation'), 'index %s' % spec.get('name'))
            name = spec.get('name')
            if not isinstance(name, str):
                raise NotSupported('index specifications without a name')
            ix = {'v': 2, 'key': SON(key.items()), 'name': name}
            for opt in ('unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds'):
                if opt in spec:
                    val = spec[opt]
                    if opt in ('unique', 'sparse'):
                        val = bool(val)
                        if not val:
                            continue
                    ix[opt] = val
            if 'partialFilterExpression' in ix:
                if not isinstance(ix['partialFilterExpression'], dict):
                    raise CommandError(14, 'partialFilterExpression must be an object')
                match(ix['partialFilterExpression'], {})
            if name == '_id_' and list(key.items()) != [('_id', 1)]:
                raise CommandError(197, "The index name '_id_' is reserved for the _id index")
            norm.append(ix)
        existed = self.get_coll(db_name, coll_name) is not None
        coll = self.get_coll(db_name, coll_name, create=True)
        before = len(coll.indexes)
        created = 0
        try:
            for ix in norm:
                same_name = coll.index_by_name(ix['name'])
                same_key = [e for e in coll.indexes if bson_eq(dict(e['key']), dict(ix['key']))
                            and list(e['key']) == list(ix['key'])]
                if same_name is not None:
                    if not (bson_eq(dict(same_name['key']), dict(ix['key'])) and
                            list(same_name['key']) == list(ix['key'])):
                        raise CommandError(
                            86, 'An existing index has the same name as the requested index. '
                            'When index names are not specified, they are auto generated and can '
                            'cause conflicts. Please refer to our documentation. Requested index: '
                            '%s, existing index: %s' % (fmt_value(ix), fmt_value(same_name)))
                    if not _same_index_options(same_name, ix):
                        raise CommandError(85, 'An equivalent index already exists with the same '
                                           'name but different options. Requested index: %s, '
                                           'existing index: %s'
                                           % (fmt_value(ix), fmt_value(same_name)))
                    continue
                for e in same_key:
                    if _same_index_identity(e, ix):
                        if _same_index_options(e, ix):
                            raise CommandError(85, 'Index already exists with a different name: '
                                               '%s' % e['name'])
                        raise CommandError(85, 'An equivalent index already exists with a '
                                           'different name and options. Requested index: %s, '
                                           'existing index: %s' % (fmt_value(ix), fmt_value(e)))
                if ix.get('unique'):
                    coll.unique_maps[ix['name']] = coll.build_unique_map(ix)
                coll.indexes.append(ix)
                created += 1
        except CommandError:
            coll.sync_equality_maps()
            if not existed and not coll.docs and len(coll.indexes) == 1:
                del coll.db.collections[coll_name]
            raise
        coll.sync_equality_maps()
        reply = {'numIndexesBefore': before, 'numIndexesAfter': len(coll.indexes),
                 'createdCollectionAutomatically': not existed}
        if created == 0:
            reply['note'] = 'all indexes already exist'
        reply['ok'] = 1.0
        return reply

    def cmd_list_indexes(self, db_name, cmd, conn):
        check_fields(cmd, 'listIndexes', {'cursor', 'includeBuildUUIDs', 'includeIndexBuildInfo'})
        coll_name = cmd['listIndexes']
        validate_coll_name(coll_name, 'listIndexes')
        coll = self.get_coll(db_name, coll_name)
        if coll is None:
            raise CommandError(26, 'ns does not exist: %s.%s' % (db_name, coll_name))
        batch_size = get_int(cmd.get('cursor') or {}, 'batchSize', None, 'listIndexes.cursor')
        docs = [copy.deepcopy(ix) for ix in coll.indexes]
        return self.cursor_reply('%s.$cmd.listIndexes.%s' % (db_name, coll_name), docs,
                                 batch_size)

    def cmd_drop_indexes(self, db_name, cmd, conn):
        name = next(iter(cmd))
        check_fields(cmd, name, {'index'})
        coll_name = cmd[name]
        validate_coll_name(coll_name, name)
        coll = self.get_coll(db_name, coll_name)
        if coll is None:
            raise CommandError(26, 'ns not found %s.%s' % (db_name, coll_name))
        spec = cmd.get('index')
        was = len(coll.indexes)
        if not isinstance(spec, str) or spec == '*':
            raise NotSupported('dropIndexes of anything but one index name')
        ix = coll.index_by_name(spec)
        if ix is None:
            raise CommandError(27, 'index not found with name [%s]' % spec)
        to_drop = [ix]
        for ix in to_drop:
            if ix['name'] == '_id_':
                raise CommandError(72, 'cannot drop _id index')
        for ix in to_drop:
            coll.indexes.remove(ix)
            coll.unique_maps.pop(ix['name'], None)
        coll.sync_equality_maps()
        return {'nIndexesWas': was, 'ok': 1.0}

    # -- collections / databases -------------------------------------------------------
    def cmd_drop(self, db_name, cmd, conn):
        check_fields(cmd, 'drop', set())
        coll_name = cmd['drop']
        validate_coll_name(coll_name, 'drop')
        coll = self.get_coll(db_name, coll_name)
        if coll is None:
            return {'ok': 1.0}
        del coll.db.collections[coll_name]
        self._drop_cursors(coll.ns)
        return {'ns': coll.ns, 'nIndexesWas': len(coll.indexes), 'ok': 1.0}

    def _drop_cursors(self, ns):
        for cid in [c for c, s in self.cursors.items() if s.ns == ns]:
            del self.cursors[cid]

    def cmd_drop_database(self, db_name, cmd, conn):
        check_fields(cmd, 'dropDatabase', set())
        db = self.databases.pop(db_name, None)
        if db is not None:
            for coll in db.collections.values():
                self._drop_cursors(coll.ns)
        return {'dropped': db_name, 'ok': 1.0}

    def cmd_create(self, db_name, cmd, conn):
        check_fields(cmd, 'create', {
            'capped', 'size', 'max', 'autoIndexId', 'storageEngine', 'validator',
            'validationLevel', 'validationAction', 'indexOptionDefaults', 'viewOn', 'pipeline',
            'collation', 'timeseries', 'clusteredIndex', 'expireAfterSeconds',
            'changeStreamPreAndPostImages', 'encryptedFields', 'idIndex', 'flags'})
        coll_name = cmd['create']
        validate_coll_name(coll_name, 'create')
        if get_bool(cmd, 'capped', False):
            raise NotSupported('capped collections')
        options = odm_schema.parse_options(cmd, 'create')
        for opt, feature in (('viewOn', 'views'), ('timeseries', 'time series collections'),
                             ('clusteredIndex', 'clustered collections'),
                             ('encryptedFields', 'queryable encryption'),
                             ('expireAfterSeconds', 'collection-level expireAfterSeconds')):
            if cmd.get(opt) is not None:
                raise NotSupported(feature)
        check_collation(cmd.get('collation'), 'create')
        if self.get_coll(db_name, coll_name) is not None:
            raise CommandError(48, 'Collection %s.%s already exists.' % (db_name, coll_name))
        self.get_coll(db_name, coll_name, create=True).options.update(options)
        return {'ok': 1.0}

    def cmd_coll_mod(self, db_name, cmd, conn):
        """collMod, for a collection's validation options only."""
        for k in cmd:
            if k not in COMMON_FIELDS and k not in ('collMod', 'validator', 'validationLevel',
                                                    'validationAction'):
                raise NotSupported("collMod's %s" % k)
        coll_name = cmd['collMod']
        validate_coll_name(coll_name, 'collMod')
        coll = self.get_coll(db_name, coll_name)
        if coll is None:
            raise CommandError(26, 'ns does not exist: %s.%s' % (db_name, coll_name))
        options = odm_schema.parse_options(cmd, 'collMod', coll.options)
        # A transaction's copies share the options dict: change it in place.
        coll.options.clear()
        coll.options.update(options)
        return {'ok': 1.0}

    def _validate(self, coll, old, new):
        """The collection's validator on a write (DocumentValidationFailure, 121)."""
        odm_schema.check_write(coll.options, old, new, self.local.bypass_validation,
                               lambda message: print(message, file=sys.stderr, flush=True))

    def cmd_list_collections(self, db_name, cmd, conn):
        check_fields(cmd, 'listCollections', {'filter', 'nameOnly', 'authorizedCollections',
                                              'cursor', 'includePendingDrops'})
        filt = get_doc(cmd, 'filter', 'listCollections', {}) or {}
        name_only = get_bool(cmd, 'nameOnly', False)
        db = self.get_db(db_name)
        docs = []
        if db is not None:
            for name in sorted(db.collections):
                coll = db.collections[name]
                d = {'name': name, 'type': 'collection', 'options': dict(coll.options),
                     'info': {'readOnly': False, 'uuid': coll.uuid},
                     'idIndex': {'v': 2, 'key': {'_id': 1}, 'name': '_id_'}}
                if match(filt, d):
                    docs.append({'name': name, 'type': 'collection'} if name_only else d)
        batch_size = get_int(cmd.get('cursor') or {}, 'batchSize', None,
                             'listCollections.cursor')
        return self.cursor_reply('%s.$cmd.listCollections' % db_name, docs, batch_size)


def _index_options(ix):
    return {k: v for k, v in ix.items() if k not in ('v', 'key', 'name', 'background', 'ns')}


def _same_index_options(a, b):
    oa, ob = _index_options(a), _index_options(b)
    if set(oa) != set(ob):
        return False
    return all(bson_eq(oa[k], ob[k]) for k in oa)


def _same_index_identity(a, b):
    """True unless the options that let mongod keep two indexes with the same
    key pattern (partialFilterExpression, collation) differ."""
    for k in ('partialFilterExpression', 'collation'):
        va, vb = a.get(k, MISSING), b.get(k, MISSING)
        if (va is MISSING) != (vb is MISSING):
            return False
        if va is not MISSING and not bson_eq(va, vb):
            return False
    return True


