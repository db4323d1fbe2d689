"""In-memory storage and command handlers of the odm test server.

Commands are executed under one global lock, so every command (and in
particular every single-document update) is atomic with respect to all
connections.
"""

import copy
import datetime
import random
import threading
import uuid

import bson
from bson import SON, ObjectId, Regex
from bson.binary import Binary
from bson.int64 import Int64

from odm_values import (MISSING, RE_TYPE, canon, bson_eq, is_number,
                        fmt_doc, fmt_value, type_name, sort_key_of)
from odm_query import (CommandError, NotSupported, match,
                       sort_docs, parse_sort, Projection, apply_update,
                       check_update_supported, is_operator_update, upsert_seed,
                       UpdateContext, move_id_first, bson_identical,
                       path_candidates, set_expr_evaluator)

import odm_aggregate

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

TRANSACTION_FIELDS = ('startTransaction', 'autocommit', 'txnNumber')

KNOWN_UNSUPPORTED_COMMANDS = {
    'commitTransaction': 'transactions (commitTransaction)',
    'abortTransaction': 'transactions (abortTransaction)',
    'explain': 'the explain command',
    'mapReduce': 'mapReduce', 'mapreduce': 'mapReduce',
    'collMod': 'collMod', 'validate': 'the validate command',
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
    'getLastError': 'getLastError', 'getMore_legacy': 'legacy getMore',
}


def utcnow_ms():
    now = datetime.datetime.utcnow()
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def check_fields(cmd, name, allowed):
    for k in cmd:
        if k == name or k in COMMON_FIELDS or k in allowed:
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
    """mongod rejects a hint that names no existing index."""
    if hint is None or coll is None:
        return
    if isinstance(hint, str):
        if coll.index_by_name(hint) is None:
            raise CommandError(2, 'error processing query: ns=%s planner returned error :: '
                               'caused by :: hint provided does not correspond to an existing '
                               'index' % coll.ns)
        return
    if isinstance(hint, dict):
        if not hint or list(hint) == ['$natural']:
            return
        for ix in coll.indexes:
            if list(ix['key']) == list(hint) and bson_eq(dict(ix['key']), dict(hint)):
                return
        raise CommandError(2, 'error processing query: ns=%s planner returned error :: caused '
                           'by :: hint provided does not correspond to an existing index'
                           % coll.ns)
    raise CommandError(9, 'hint must be a string or an object')


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

def default_index_name(key):
    return '_'.join('%s_%s' % (k, fmt_index_direction(v)) for k, v in key.items())


def fmt_index_direction(v):
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return str(v)


def _strict_index_value(doc, path, index_name):
    cur = doc
    for part in path.split('.'):
        if isinstance(cur, list):
            raise NotSupported('unique indexes over array values (multikey unique index %s on '
                               "field '%s')" % (index_name, path))
        if not isinstance(cur, dict) or part not in cur:
            return MISSING
        cur = cur[part]
    if isinstance(cur, list):
        raise NotSupported('unique indexes over array values (multikey unique index %s on '
                           "field '%s')" % (index_name, path))
    return cur


class Collection(object):
    def __init__(self, db, name):
        self.db = db
        self.name = name
        self.docs = {}          # canon(_id) -> document (never mutated in place)
        self.indexes = [{'v': 2, 'key': SON([('_id', 1)]), 'name': '_id_'}]
        self.unique_maps = {}   # index name -> {key tuple: canon(_id)}
        self.options = {}
        self.uuid = Binary(uuid.uuid4().bytes, 4)

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

    def index_entry(self, ix, doc):
        pfe = ix.get('partialFilterExpression')
        if pfe is not None and not match(pfe, doc):
            return None
        items = []
        all_missing = True
        for field in ix['key']:
            v = _strict_index_value(doc, field, ix['name'])
            if v is not MISSING:
                all_missing = False
            items.append((field, None if v is MISSING else v))
        if ix.get('sparse') and all_missing:
            return None
        return tuple(canon(v) for _, v in items), items

    def dup_error(self, ix, items):
        msg = 'E11000 duplicate key error collection: %s index: %s dup key: %s' % (
            self.ns, ix['name'], fmt_doc(items))
        key_pattern = SON(ix['key'])
        key_value = SON((k, v) for k, v in items)
        return CommandError(11000, msg, keyPattern=key_pattern, keyValue=key_value)

    # -- writes -------------------------------------------------------------
    def insert(self, doc):
        idk = canon(doc['_id'])
        if idk in self.docs:
            raise self.dup_error(self.indexes[0], [('_id', doc['_id'])])
        entries = []
        for ix in self.unique_indexes():
            e = self.index_entry(ix, doc)
            if e is not None:
                m = self.unique_maps.setdefault(ix['name'], {})
                if e[0] in m:
                    raise self.dup_error(ix, e[1])
                entries.append((ix['name'], e[0]))
        self.docs[idk] = doc
        for name, key in entries:
            self.unique_maps[name][key] = idk

    def replace(self, idk, new_doc):
        old = self.docs[idk]
        removes, adds = [], []
        for ix in self.unique_indexes():
            m = self.unique_maps.setdefault(ix['name'], {})
            eo = self.index_entry(ix, old)
            en = self.index_entry(ix, new_doc)
            if en is not None and en[0] in m and m[en[0]] != idk:
                raise self.dup_error(ix, en[1])
            if eo is not None:
                removes.append((ix['name'], eo[0]))
            if en is not None:
                adds.append((ix['name'], en[0]))
        for name, key in removes:
            if self.unique_maps[name].get(key) == idk:
                del self.unique_maps[name][key]
        for name, key in adds:
            self.unique_maps[name][key] = idk
        self.docs[idk] = new_doc

    def remove(self, idk):
        doc = self.docs.pop(idk)
        for ix in self.unique_indexes():
            try:
                e = self.index_entry(ix, doc)
            except CommandError:
                e = None
            if e is not None:
                m = self.unique_maps.get(ix['name'], {})
                if m.get(e[0]) == idk:
                    del m[e[0]]

    def build_unique_map(self, ix):
        m = {}
        for idk, doc in self.docs.items():
            e = self.index_entry(ix, doc)
            if e is None:
                continue
            if e[0] in m:
                raise self.dup_error(ix, e[1])
            m[e[0]] = idk
        return m

    def find_ids(self, query):
        return [idk for idk, d in self.candidates(query) if match(query, d)]

    def candidates(self, query):
        """(key, doc) pairs in natural order that may match query; uses the
        _id index for a top-level _id equality."""
        if isinstance(query, dict) and '_id' in query:
            v = query['_id']
            if isinstance(v, dict) and v and next(iter(v)).startswith('$'):
                if set(v) == {'$eq'}:
                    v = v['$eq']
                else:
                    return list(self.docs.items())
            if isinstance(v, (list, Regex, RE_TYPE)) or v is None:
                return list(self.docs.items())
            try:
                k = canon(v)
            except TypeError:
                return list(self.docs.items())
            d = self.docs.get(k)
            return [(k, d)] if d is not None else []
        return list(self.docs.items())

    def matching_docs(self, query):
        return [d for _, d in self.candidates(query) if match(query, d)]


class Database(object):
    def __init__(self, name):
        self.name = name
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
            'endSessions': self.cmd_ok, 'killSessions': self.cmd_ok,
            'killAllSessions': self.cmd_ok, 'killAllSessionsByPattern': self.cmd_ok,
            'refreshSessions': self.cmd_ok, 'startSession': self.cmd_start_session,
            'whatsmyuri': self.cmd_whatsmyuri, 'connectionStatus': self.cmd_connection_status,
            'getParameter': self.cmd_get_parameter,
            'insert': self.cmd_insert, 'find': self.cmd_find, 'getMore': self.cmd_get_more,
            'killCursors': self.cmd_kill_cursors, 'update': self.cmd_update,
            'delete': self.cmd_delete, 'findAndModify': self.cmd_find_and_modify,
            'findandmodify': self.cmd_find_and_modify, 'count': self.cmd_count,
            'aggregate': self.cmd_aggregate, 'distinct': self.cmd_distinct,
            'createIndexes': self.cmd_create_indexes, 'listIndexes': self.cmd_list_indexes,
            'dropIndexes': self.cmd_drop_indexes, 'deleteIndexes': self.cmd_drop_indexes,
            'drop': self.cmd_drop, 'dropDatabase': self.cmd_drop_database,
            'create': self.cmd_create, 'listCollections': self.cmd_list_collections,
            'listDatabases': self.cmd_list_databases,
            'renameCollection': self.cmd_rename_collection,
        }
        set_expr_evaluator(odm_aggregate.evaluate_expr)

    # -- entry point --------------------------------------------------------
    def execute(self, db_name, cmd, conn):
        """Run one command; always returns a reply document."""
        try:
            if not cmd:
                raise CommandError(59, 'no such command: \'\'')
            name = next(iter(cmd))
            handler = self.handlers.get(name)
            if handler is None:
                if name in KNOWN_UNSUPPORTED_COMMANDS:
                    raise NotSupported(KNOWN_UNSUPPORTED_COMMANDS[name])
                raise CommandError(59, "no such command: '%s'" % name)
            for f in TRANSACTION_FIELDS:
                if f in cmd:
                    raise NotSupported('transactions / retryable writes (%s in %s)' % (f, name))
            if name not in ('hello', 'isMaster', 'ismaster', 'ping', 'buildInfo', 'buildinfo'):
                validate_db_name(db_name)
            with self.lock:
                reply = handler(db_name, cmd, conn)
            if 'ok' not in reply:
                reply['ok'] = 1.0
            return reply
        except CommandError as e:
            return e.reply()
        except bson.errors.InvalidDocument as e:
            return CommandError(2, 'invalid document: %s' % e).reply()
        except RecursionError:
            return CommandError(2, 'document or query nested too deeply').reply()

    # -- helpers ------------------------------------------------------------
    def get_db(self, name, create=False):
        db = self.databases.get(name)
        if db is None and create:
            db = self.databases[name] = Database(name)
        return db

    def get_coll(self, db_name, coll_name, create=False):
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
        name = next(iter(cmd))
        reply = {
            'helloOk': True,
            'isWritablePrimary': True,
            'ismaster': True,
            'maxBsonObjectSize': MAX_BSON_SIZE,
            'maxMessageSizeBytes': MAX_MESSAGE_SIZE,
            'maxWriteBatchSize': MAX_WRITE_BATCH,
            'localTime': utcnow_ms(),
            'logicalSessionTimeoutMinutes': 30,
            'connectionId': conn.get('id', 0) if conn else 0,
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
            reply['ismaster'] = True
        return reply

    def cmd_ping(self, db, cmd, conn):
        return {'ok': 1.0}

    def cmd_ok(self, db, cmd, conn):
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

    def cmd_start_session(self, db, cmd, conn):
        return {'id': {'id': Binary(uuid.uuid4().bytes, 4)}, 'timeoutMinutes': 30, 'ok': 1.0}

    def cmd_whatsmyuri(self, db, cmd, conn):
        return {'you': (conn or {}).get('peer', ''), 'ok': 1.0}

    def cmd_connection_status(self, db, cmd, conn):
        return {'authInfo': {'authenticatedUsers': [], 'authenticatedUserRoles': []}, 'ok': 1.0}

    def cmd_get_parameter(self, db, cmd, conn):
        if not (is_number(cmd['getParameter']) and cmd['getParameter'] == 1):
            raise NotSupported("getParameter: %s" % fmt_value(cmd['getParameter']))
        reply = {}
        for k, v in cmd.items():
            if k in ('getParameter',) or k in COMMON_FIELDS:
                continue
            if k == 'featureCompatibilityVersion':
                reply[k] = {'version': '7.0'}
            else:
                raise NotSupported("getParameter for '%s'" % k)
        reply['ok'] = 1.0
        return reply

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
                coll.insert(doc)
                n += 1
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
    def _apply_one_update(self, coll, db_name, coll_name, stmt_q, stmt_u, upsert, multi):
        """Returns (n_matched, n_modified, upserted_id or MISSING)."""
        if coll is None:
            ids = []
            match(stmt_q, {})
        else:
            ids = coll.find_ids(stmt_q)
        if not multi:
            ids = ids[:1]
        n_modified = 0
        for idk in ids:
            old = coll.docs[idk]
            new = apply_update(old, stmt_u, UpdateContext(stmt_q, False, old.get('_id')))
            if bson.encode(new) != bson.encode(old):
                coll.replace(idk, new)
                n_modified += 1
        if ids or not upsert:
            return len(ids), n_modified, MISSING
        new = self._make_upsert_doc(stmt_q, stmt_u)
        coll = self.get_coll(db_name, coll_name, create=True)
        coll.insert(new)
        return 0, 0, new['_id']

    def _make_upsert_doc(self, query, update):
        seed = upsert_seed(query)
        if is_operator_update(update):
            new = apply_update(seed, update, UpdateContext(query, True, seed.get('_id')))
        else:
            new = apply_update(seed, update, UpdateContext(query, True, seed.get('_id')))
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
            check_update_supported(st.get('u'), st.get('arrayFilters'))
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
                matched, modified, up_id = self._apply_one_update(
                    coll, db_name, coll_name, q, u, upsert, multi)
                coll = self.get_coll(db_name, coll_name)
                if up_id is not MISSING:
                    n += 1
                    upserted.append({'index': i, '_id': up_id})
                else:
                    n += matched
                    n_modified += modified
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
                for idk in ids:
                    coll.remove(idk)
                n += len(ids)
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
        if not remove:
            check_update_supported(update, cmd.get('arrayFilters'))
        elif cmd.get('arrayFilters') is not None:
            raise NotSupported('arrayFilters')
        parse_sort(sort)
        coll = self.get_coll(db_name, coll_name)
        check_hint(coll, cmd.get('hint'))
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
            new = self._make_upsert_doc(query, update)
            coll = self.get_coll(db_name, coll_name, create=True)
            coll.insert(new)
            return {'lastErrorObject': {'n': 1, 'updatedExisting': False, 'upserted': new['_id']},
                    'value': project(new) if return_new else None, 'ok': 1.0}
        if not is_operator_update(update) and '_id' not in update:
            pass
        new = apply_update(target, update, UpdateContext(query, False, target.get('_id')))
        idk = canon(target['_id'])
        if bson.encode(new) != bson.encode(target):
            coll.replace(idk, new)
        return {'lastErrorObject': {'n': 1, 'updatedExisting': True},
                'value': project(new if return_new else target), 'ok': 1.0}

    # -- count / distinct -------------------------------------------------------------
    def cmd_count(self, db_name, cmd, conn):
        check_fields(cmd, 'count', {'query', 'skip', 'limit', 'hint', 'collation', 'fields'})
        coll_name = cmd['count']
        validate_coll_name(coll_name, 'count')
        check_collation(cmd.get('collation'), 'count')
        query = get_doc(cmd, 'query', 'count', {}) or {}
        skip = get_int(cmd, 'skip', 0, 'count')
        limit = get_int(cmd, 'limit', 0, 'count')
        if skip < 0:
            raise CommandError(51024, "BSON field 'skip' value must be >= 0")
        limit = abs(limit)
        coll = self.get_coll(db_name, coll_name)
        check_hint(coll, cmd.get('hint'))
        if coll is None:
            match(query, {})
            n = 0
        else:
            n = len(coll.matching_docs(query))
        n = max(n - skip, 0)
        if limit:
            n = min(n, limit)
        return {'n': n, 'ok': 1.0}

    def cmd_distinct(self, db_name, cmd, conn):
        check_fields(cmd, 'distinct', {'key', 'query', 'collation', 'hint'})
        coll_name = cmd['distinct']
        validate_coll_name(coll_name, 'distinct')
        check_collation(cmd.get('collation'), 'distinct')
        key = cmd.get('key')
        if not isinstance(key, str):
            raise CommandError(40414, "BSON field 'distinct.key' is missing but a required field")
        query = get_doc(cmd, 'query', 'distinct', {}) or {}
        coll = self.get_coll(db_name, coll_name)
        check_hint(coll, cmd.get('hint'))
        docs = self.query_docs(coll, query)
        seen = {}
        for d in docs:
            for v in path_candidates(d, key.split('.')):
                if v is MISSING:
                    continue
                vals = v if isinstance(v, list) else [v]
                for x in vals:
                    k = canon(x)
                    if k not in seen:
                        seen[k] = x
        values = sorted(seen.values(), key=sort_key_of)
        return {'values': values, 'ok': 1.0}

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
        out_target = None
        if pipeline and isinstance(pipeline[-1], dict) and '$out' in pipeline[-1]:
            out_spec = pipeline[-1]['$out']
            pipeline = pipeline[:-1]
            if isinstance(out_spec, str):
                out_target = (db_name, out_spec)
            elif isinstance(out_spec, dict) and set(out_spec) <= {'db', 'coll'}:
                out_target = (out_spec.get('db', db_name), out_spec.get('coll'))
            else:
                raise NotSupported('$out with options %s' % fmt_value(out_spec))
            validate_db_name(out_target[0])
            validate_coll_name(out_target[1], '$out')
        coll = self.get_coll(db_name, target)
        check_hint(coll, cmd.get('hint'))
        odm_aggregate.check_pipeline(pipeline)
        source, rest = odm_aggregate.source_docs(coll, pipeline)
        results = odm_aggregate.run_pipeline(self, db_name, source, rest)
        ns = '%s.%s' % (db_name, target)
        if out_target is not None:
            self._write_out(out_target, results)
            return self.cursor_reply(ns, [], batch_size)
        return self.cursor_reply(ns, results, batch_size)

    def _write_out(self, target, results):
        db_name, coll_name = target
        old = self.get_coll(db_name, coll_name)
        tmp_db = Database(db_name)
        tmp = Collection(tmp_db, coll_name)
        if old is not None:
            tmp.indexes = copy.deepcopy(old.indexes)
            tmp.uuid = old.uuid
            tmp.options = old.options
        tmp.db = self.get_db(db_name, create=True)
        for d in results:
            if not isinstance(d, dict):
                continue
            d = copy.deepcopy(d)
            if '_id' not in d:
                n = {'_id': ObjectId()}
                n.update(d)
                d = n
            tmp.insert(move_id_first(d))
        tmp.db.collections[coll_name] = tmp

    # -- indexes ------------------------------------------------------------------------
    INDEX_OPTIONS = {'key', 'name', 'unique', 'sparse', 'partialFilterExpression',
                     'expireAfterSeconds', 'background', 'v', 'collation', 'hidden',
                     'weights', 'default_language', 'language_override', 'textIndexVersion',
                     '2dsphereIndexVersion', 'bits', 'min', 'max', 'wildcardProjection',
                     'storageEngine', 'ns', 'dropDups', 'bucketSize', 'prepareUnique'}

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
                if k not in self.INDEX_OPTIONS:
                    raise CommandError(197, "The field '%s' is not valid for an index "
                                       "specification. Specification: %s" % (k, fmt_value(spec)))
            key = spec.get('key')
            if not isinstance(key, dict) or not key:
                raise CommandError(67, "Error in specification %s :: caused by :: The 'key' "
                                   "field must be a non-empty object" % fmt_value(spec))
            for f, direction in key.items():
                if not (is_number(direction) and direction != 0) and \
                        direction not in ('text', '2d', '2dsphere', 'hashed', 'geoHaystack'):
                    raise CommandError(67, "Error in specification %s :: caused by :: Values in "
                                       "the index key pattern can only be numbers or strings"
                                       % fmt_value(spec))
            check_collation(spec.get('collation'), 'index %s' % spec.get('name'))
            name = spec.get('name') or default_index_name(key)
            if not isinstance(name, str):
                raise CommandError(14, "The field 'name' must be a string")
            ix = {'v': 2, 'key': SON(key.items()), 'name': name}
            for opt in ('unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds',
                        'hidden', 'weights', 'default_language', 'language_override',
                        'textIndexVersion', '2dsphereIndexVersion', 'bits', 'min', 'max',
                        'wildcardProjection'):
                if opt in spec:
                    val = spec[opt]
                    if opt in ('unique', 'sparse', 'hidden'):
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
                    if any(v in ('text', '2d', '2dsphere', 'hashed', 'geoHaystack')
                           for v in ix['key'].values()):
                        raise CommandError(67, "Index type '%s' does not support the unique "
                                           "option" % [v for v in ix['key'].values()
                                                       if isinstance(v, str)][0])
                    coll.unique_maps[ix['name']] = coll.build_unique_map(ix)
                coll.indexes.append(ix)
                created += 1
        except CommandError:
            if not existed and not coll.docs and len(coll.indexes) == 1:
                del coll.db.collections[coll_name]
            raise
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
        if spec == '*':
            to_drop = [ix for ix in coll.indexes if ix['name'] != '_id_']
        elif isinstance(spec, str):
            ix = coll.index_by_name(spec)
            if ix is None:
                raise CommandError(27, 'index not found with name [%s]' % spec)
            to_drop = [ix]
        elif isinstance(spec, list):
            to_drop = []
            for s in spec:
                ix = coll.index_by_name(s) if isinstance(s, str) else None
                if ix is None:
                    raise CommandError(27, 'index not found with name [%s]' % s)
                to_drop.append(ix)
        elif isinstance(spec, dict):
            found = [ix for ix in coll.indexes if list(ix['key']) == list(spec) and
                     bson_eq(dict(ix['key']), dict(spec))]
            if not found:
                raise CommandError(27, "can't find index with key: %s" % fmt_value(spec))
            if len(found) > 1:
                raise CommandError(181, '%d indexes found for key: %s, identify by name instead.'
                                   % (len(found), fmt_value(spec)))
            to_drop = found
        else:
            raise CommandError(14, "BSON field 'dropIndexes.index' is missing but a required "
                               "field")
        for ix in to_drop:
            if ix['name'] == '_id_':
                raise CommandError(72, 'cannot drop _id index')
        for ix in to_drop:
            coll.indexes.remove(ix)
            coll.unique_maps.pop(ix['name'], None)
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
        if cmd.get('validator'):
            raise NotSupported('collection validators')
        for opt, feature in (('viewOn', 'views'), ('timeseries', 'time series collections'),
                             ('clusteredIndex', 'clustered collections'),
                             ('encryptedFields', 'queryable encryption'),
                             ('expireAfterSeconds', 'collection-level expireAfterSeconds')):
            if cmd.get(opt) is not None:
                raise NotSupported(feature)
        check_collation(cmd.get('collation'), 'create')
        if self.get_coll(db_name, coll_name) is not None:
            raise CommandError(48, 'Collection %s.%s already exists.' % (db_name, coll_name))
        self.get_coll(db_name, coll_name, create=True)
        return {'ok': 1.0}

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

    def cmd_list_databases(self, db_name, cmd, conn):
        check_fields(cmd, 'listDatabases', {'filter', 'nameOnly', 'authorizedDatabases'})
        filt = get_doc(cmd, 'filter', 'listDatabases', {}) or {}
        name_only = get_bool(cmd, 'nameOnly', False)
        out = []
        total = 0
        for name in sorted(self.databases):
            db = self.databases[name]
            if not db.collections:
                continue
            size = sum(doc_size(d) for c in db.collections.values() for d in c.docs.values())
            total += size
            d = {'name': name, 'sizeOnDisk': Int64(max(size, 4096)), 'empty': False}
            if match(filt, d):
                out.append({'name': name} if name_only else d)
        reply = {'databases': out}
        if not name_only:
            reply['totalSize'] = Int64(total)
            reply['totalSizeMb'] = Int64(total // (1024 * 1024))
        reply['ok'] = 1.0
        return reply

    def cmd_rename_collection(self, db_name, cmd, conn):
        check_fields(cmd, 'renameCollection', {'to', 'dropTarget', 'stayTemp'})
        src, dst = cmd.get('renameCollection'), cmd.get('to')
        if not isinstance(src, str) or '.' not in src or not isinstance(dst, str) or '.' not in dst:
            raise CommandError(73, 'Invalid namespace specified')
        sdb, scoll = src.split('.', 1)
        ddb, dcoll = dst.split('.', 1)
        validate_db_name(sdb)
        validate_db_name(ddb)
        validate_coll_name(scoll, 'renameCollection')
        validate_coll_name(dcoll, 'renameCollection')
        source = self.get_coll(sdb, scoll)
        if source is None:
            raise CommandError(26, 'Source collection %s does not exist' % src)
        if src == dst:
            raise CommandError(20, "Can't rename a collection to itself")
        if self.get_coll(ddb, dcoll) is not None:
            if not get_bool(cmd, 'dropTarget', False):
                raise CommandError(48, 'target namespace exists')
            del self.databases[ddb].collections[dcoll]
        del source.db.collections[scoll]
        self._drop_cursors(source.ns)
        target_db = self.get_db(ddb, create=True)
        source.db = target_db
        source.name = dcoll
        target_db.collections[dcoll] = source
        return {'ok': 1.0}


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


