#!/usr/bin/python3
"""Self-test of the odm test server through pymongo (Debian python3-pymongo).

Starts the server on a free port, runs the checks, stops it, prints
"N passed, M failed" and exits non-zero on any failure.

    /usr/bin/python3 tests/server/selftest.py [--verbose]
"""

import datetime
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid

import bson
import pymongo
from bson import SON, ObjectId, Regex, Timestamp
from bson.binary import Binary
from bson.codec_options import CodecOptions
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from bson.raw_bson import RawBSONDocument
from pymongo import monitoring
from pymongo.errors import (BulkWriteError, DuplicateKeyError, OperationFailure,
                            WriteError)

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, 'odm_test_server.py')
REFUSAL_PREFIX = 'odm test server does not support '
REFUSAL_SUFFIX = 'run the suite against a real mongod (docker-compose.yml)'

VERBOSE = '--verbose' in sys.argv
results = {'passed': 0, 'failed': 0}


def check(name, cond, detail=''):
    if cond:
        results['passed'] += 1
        if VERBOSE:
            print('ok   %s' % name)
    else:
        results['failed'] += 1
        print('FAIL %s %s' % (name, detail))


def expect_error(name, fn, code, prefix=None):
    try:
        fn()
    except (OperationFailure, BulkWriteError, WriteError) as e:
        details = getattr(e, 'details', None) or {}
        if isinstance(e, BulkWriteError):
            errs = details.get('writeErrors') or [{}]
            got_code, msg = errs[0].get('code'), errs[0].get('errmsg', '')
        else:
            got_code, msg = e.code, details.get('errmsg', str(e))
        ok = got_code == code and (prefix is None or (msg.startswith(prefix) and
                                                       REFUSAL_SUFFIX in msg))
        check(name, ok, 'code=%r msg=%r' % (got_code, msg))
        return details
    except Exception as e:  # noqa: B902
        check(name, False, 'unexpected %s: %s' % (type(e).__name__, e))
        return None
    check(name, False, 'no error raised')
    return None


class CommandCounter(monitoring.CommandListener):
    def __init__(self):
        self.counts = {}
        self.lock = threading.Lock()

    def started(self, event):
        with self.lock:
            self.counts[event.command_name] = self.counts.get(event.command_name, 0) + 1

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


# ---------------------------------------------------------------------------

def t_handshake(client, db):
    hello = client.admin.command('hello')
    check('hello ok', hello.get('ok') == 1.0)
    check('hello helloOk', hello.get('helloOk') is True)
    check('hello isWritablePrimary', hello.get('isWritablePrimary') is True)
    check('hello wire versions', hello.get('minWireVersion') == 0 and
          hello.get('maxWireVersion', 0) >= 17)
    check('hello limits', hello.get('maxBsonObjectSize') == 16777216 and
          hello.get('maxMessageSizeBytes') == 48000000 and
          hello.get('maxWriteBatchSize') == 100000)
    check('hello sessions', hello.get('logicalSessionTimeoutMinutes') == 30)
    check('hello localTime/connectionId', isinstance(hello.get('localTime'), datetime.datetime)
          and isinstance(hello.get('connectionId'), int))
    im = client.admin.command('isMaster')
    check('isMaster ismaster', im.get('ismaster') is True)
    check('ping', client.admin.command('ping').get('ok') == 1.0)
    bi = client.admin.command('buildInfo')
    check('buildInfo version and marker', bi.get('version') == '7.0.0' and
          bi.get('odmTestServer') is True, repr(bi))
    check('endSessions', client.admin.command('endSessions', []).get('ok') == 1.0)
    try:
        db.command('definitelyNotACommand')
        check('unknown command', False, 'no error')
    except OperationFailure as e:
        check('unknown command', e.code == 59 and
              e.details.get('codeName') == 'CommandNotFound' and
              e.details.get('errmsg') == "no such command: 'definitelyNotACommand'",
              repr(e.details))
    # Fields the server must ignore
    r = db.command(SON([('ping', 1), ('comment', 'x'), ('maxTimeMS', 100),
                        ('apiVersion', '1')]))
    check('ignored fields', r.get('ok') == 1.0)


def t_insert_find_batches(db, counter):
    c = db.batches
    c.drop()
    c.insert_many([{'_id': i, 'v': i % 7} for i in range(250)])
    check('count after insert', c.count_documents({}) == 250)
    before = counter.counts.get('getMore', 0)
    docs = list(c.find().sort('_id', 1))
    check('find > 101 docs returns all', [d['_id'] for d in docs] == list(range(250)))
    check('default find used getMore', counter.counts.get('getMore', 0) > before)
    before = counter.counts.get('getMore', 0)
    docs = list(c.find({'v': 3}).batch_size(5))
    check('small batchSize results', len(docs) == len([i for i in range(250) if i % 7 == 3]))
    check('small batchSize used several getMores',
          counter.counts.get('getMore', 0) - before >= 6)
    # Raw command shapes.
    r = db.command('find', 'batches', filter={}, sort={'_id': 1}, batchSize=3)
    first = r['cursor']['firstBatch']
    cid = r['cursor']['id']
    check('find firstBatch size', [d['_id'] for d in first] == [0, 1, 2])
    check('find cursor id int64', isinstance(cid, Int64) and cid != 0)
    check('find ns', r['cursor']['ns'] == db.name + '.batches')
    r2 = db.command('getMore', cid, collection='batches', batchSize=4)
    check('getMore nextBatch', [d['_id'] for d in r2['cursor']['nextBatch']] == [3, 4, 5, 6])
    check('getMore keeps cursor id', r2['cursor']['id'] == cid)
    r3 = db.command('getMore', cid, collection='batches')
    check('getMore rest exhausts', len(r3['cursor']['nextBatch']) == 243 and
          r3['cursor']['id'] == 0)
    r = db.command('find', 'batches', limit=5, batchSize=2)
    check('find limit + batchSize', len(r['cursor']['firstBatch']) == 2)
    r2 = db.command('getMore', r['cursor']['id'], collection='batches')
    check('limit respected across getMore', len(r2['cursor']['nextBatch']) == 3 and
          r2['cursor']['id'] == 0)
    r = db.command('find', 'batches', singleBatch=True, batchSize=4)
    check('singleBatch closes cursor', r['cursor']['id'] == 0 and
          len(r['cursor']['firstBatch']) == 4)
    r = db.command('find', 'batches', skip=245, sort={'_id': -1})
    check('skip + sort desc', [d['_id'] for d in r['cursor']['firstBatch']] == [4, 3, 2, 1, 0])
    r = db.command('find', 'batches', filter={'_id': {'$lt': 3}},
                   projection={'_id': 0, 'v': 1})
    check('projection', r['cursor']['firstBatch'] == [{'v': 0}, {'v': 1}, {'v': 2}])
    # killCursors
    r = db.command('find', 'batches', batchSize=2)
    cid = r['cursor']['id']
    k = db.command('killCursors', 'batches', cursors=[cid])
    check('killCursors reply', k.get('cursorsKilled') == [cid] and
          k.get('cursorsNotFound') == [] and 'cursorsAlive' in k and 'cursorsUnknown' in k)
    expect_error('getMore after killCursors', lambda: db.command('getMore', cid,
                                                                 collection='batches'), 43)


def t_update(db):
    c = db.upd
    c.drop()
    r = c.update_one({'name': 'x'}, {'$set': {'a': 1}}, upsert=True)
    check('upsert result', r.matched_count == 0 and r.upserted_id is not None)
    doc = c.find_one({'name': 'x'})
    check('upserted doc', doc is not None and doc['a'] == 1 and list(doc)[0] == '_id')
    raw = db.command(SON([('update', 'upd'), ('updates', [
        {'q': {'_id': 'fixed'}, 'u': {'$set': {'b': 2}}, 'upsert': True},
        {'q': {'name': 'x'}, 'u': {'$set': {'a': 2}}},
        {'q': {'name': 'x'}, 'u': {'$set': {'a': 2}}},
    ])]))
    check('update reply n/nModified', raw.get('n') == 3 and raw.get('nModified') == 1,
          repr(raw))
    check('update reply upserted', raw.get('upserted') == [{'index': 0, '_id': 'fixed'}])
    c.insert_many([{'k': 1, 'arr': [{'sku': 'a', 'q': 1}, {'sku': 'b', 'q': 2}]},
                   {'k': 1, 'arr': []}])
    r = c.update_many({'k': 1}, {'$inc': {'n': 1}})
    check('update_many', r.matched_count == 2 and r.modified_count == 2)
    c.update_one({'arr.sku': 'b'}, {'$set': {'arr.$.q': 9}})
    d = c.find_one({'arr.sku': 'b'})
    check('positional $ update', d['arr'] == [{'sku': 'a', 'q': 1}, {'sku': 'b', 'q': 9}])
    c.update_one({'arr.sku': 'b'}, {'$push': {'arr': {'$each': [{'sku': 'c', 'q': 0}],
                                                      '$sort': {'q': 1}}},
                                    '$set': {'ts': 1}})
    d = c.find_one({'arr.sku': 'b'})
    check('$push $each $sort', [e['sku'] for e in d['arr']] == ['c', 'a', 'b'])
    c.update_one({'_id': d['_id']}, {'$pull': {'arr': {'q': {'$gte': 5}}},
                                     '$addToSet': {'tags': {'$each': ['x', 'y', 'x']}}})
    d = c.find_one({'_id': d['_id']})
    check('$pull / $addToSet', [e['sku'] for e in d['arr']] == ['c', 'a'] and
          d['tags'] == ['x', 'y'])
    c.update_one({'_id': d['_id']}, {'$mul': {'price': 3, 'n': Int64(4)},
                                     '$unset': {'tags': ''}})
    d = c.find_one({'_id': d['_id']})
    check('$mul / $unset', d.get('price') == 0 and d.get('n') == 4 and
          isinstance(d.get('n'), Int64) and 'tags' not in d, repr(d))
    c.update_one({'_id': d['_id']}, {'$set': {'old': {'x': 1}, 'when': 0}})
    c.update_one({'_id': d['_id']}, {'$rename': {'old': 'when', 'absent': 'gone'}})
    d = c.find_one({'_id': d['_id']})
    check('$rename moves the value over the target, a missing source does nothing',
          d.get('when') == {'x': 1} and 'old' not in d and 'gone' not in d and list(d)[-1] == 'when', repr(d))
    c.update_one({'_id': d['_id']}, {'$rename': {'when.x': 'top'}})
    d = c.find_one({'_id': d['_id']})
    check('$rename out of a sub-document', d.get('top') == 1 and d.get('when') == {}, repr(d))
    expect_error('$rename onto a path another operator writes',
                 lambda: c.update_one({'_id': d['_id']}, {'$rename': {'top': 'n2'}, '$set': {'n2': 1}}), 40)
    expect_error('$rename to the same name',
                 lambda: c.update_one({'_id': d['_id']}, {'$rename': {'top': 'top'}}), 2)
    c.update_one({'_id': d['_id']}, {'$set': {'arr2': [{'a': 1}]}})
    expect_error('$rename into an array element',
                 lambda: c.update_one({'_id': d['_id']}, {'$rename': {'top': 'arr2.0.b'}}), 2)
    check('a refused $rename writes nothing', c.find_one({'_id': d['_id']}).get('top') == 1)
    for op, arg in (('$currentDate', {'ts': True}), ('$bit', {'n': {'and': 1}})):
        expect_error('%s refused' % op, lambda: c.update_one({'_id': d['_id']}, {op: arg}),
                     115, REFUSAL_PREFIX + 'the %s update operator' % op)
    r = c.replace_one({'_id': 'fixed'}, {'replaced': True})
    d = c.find_one({'_id': 'fixed'})
    check('replacement update', r.modified_count == 1 and d == {'_id': 'fixed', 'replaced': True})
    r = db.command(SON([('insert', 'upd'), ('documents', [{'_id': 'inbody1'},
                                                         {'_id': 'inbody2'}])]))
    check('insert with documents in the command body', r.get('n') == 2 and
          c.count_documents({'_id': {'$in': ['inbody1', 'inbody2']}}) == 2)
    c.update_one({'_id': 'inbody1'}, {'$set': {'b': 1, 'x.z': 1}, '$inc': {'a': 1, 'x.y': 1}})
    check('update fields applied in lexicographic order',
          list(c.find_one({'_id': 'inbody1'})) == ['_id', 'a', 'b', 'x'] and
          list(c.find_one({'_id': 'inbody1'})['x']) == ['y', 'z'])
    c.update_one({'k': 5, 'z.w': 2, '$and': [{'q': 3}], 'r': {'$gt': 1}},
                 {'$setOnInsert': {'soi': 1}, '$set': {'s': 2}}, upsert=True)
    d = c.find_one({'k': 5}, {'_id': 0})
    check('upsert copies equality fields from the query', d == {'k': 5, 'q': 3, 's': 2,
                                                                'soi': 1, 'z': {'w': 2}},
          repr(d))
    c.update_one({'k': 5}, {'$setOnInsert': {'soi': 2}})
    check('$setOnInsert ignored on update', c.find_one({'k': 5})['soi'] == 1)
    expect_error('immutable _id', lambda: c.update_one({'_id': 'fixed'},
                                                       {'$set': {'_id': 'other'}}), 66)
    expect_error('conflicting update paths', lambda: c.update_one(
        {'_id': 'fixed'}, {'$set': {'a.b': 1}, '$inc': {'a': 1}}), 40)


def t_find_and_modify(db):
    c = db.fam
    c.drop()
    c.insert_many([{'_id': 1, 'v': 10}, {'_id': 2, 'v': 20}])
    before = c.find_one_and_update({'_id': 1}, {'$inc': {'v': 1}},
                                   return_document=pymongo.ReturnDocument.BEFORE)
    after = c.find_one_and_update({'_id': 1}, {'$inc': {'v': 1}},
                                  return_document=pymongo.ReturnDocument.AFTER)
    check('findAndModify before', before == {'_id': 1, 'v': 10})
    check('findAndModify after', after == {'_id': 1, 'v': 12})
    r = db.command(SON([('findAndModify', 'fam'), ('query', {'_id': 3}),
                        ('update', {'$set': {'v': 30}}), ('upsert', True), ('new', True)]))
    check('findAndModify upsert reply', r['value'] == {'_id': 3, 'v': 30} and
          r['lastErrorObject'] == {'n': 1, 'updatedExisting': False, 'upserted': 3}, repr(r))
    r = db.command(SON([('findAndModify', 'fam'), ('query', {'_id': 2}),
                        ('update', {'$set': {'v': 21}})]))
    check('findAndModify existing reply', r['value'] == {'_id': 2, 'v': 20} and
          r['lastErrorObject'] == {'n': 1, 'updatedExisting': True})
    r = db.command(SON([('findAndModify', 'fam'), ('query', {'_id': 99}),
                        ('update', {'$set': {'v': 1}})]))
    check('findAndModify no match', r['value'] is None and
          r['lastErrorObject'] == {'n': 0, 'updatedExisting': False})
    r = db.command(SON([('findAndModify', 'fam'), ('query', {}), ('sort', {'v': -1}),
                        ('remove', True), ('fields', {'v': 1, '_id': 0})]))
    check('findAndModify remove with sort and fields', r['value'] == {'v': 30} and
          r['lastErrorObject'] == {'n': 1})
    d = c.find_one_and_delete({'_id': 1})
    check('find_one_and_delete', d == {'_id': 1, 'v': 12} and c.count_documents({}) == 1)


def t_delete_count_distinct(db):
    c = db.delc
    c.drop()
    c.insert_many([{'i': i, 'g': i % 3, 'tags': ['t%d' % (i % 2)]} for i in range(30)])
    check('delete_one', c.delete_one({'g': 0}).deleted_count == 1)
    check('delete_many', c.delete_many({'g': 1}).deleted_count == 10)
    check('count_documents', c.count_documents({}) == 19)
    check('count_documents skip/limit', c.count_documents({'g': 2}, skip=2, limit=5) == 5)
    check('count_documents of a missing collection', db.nothere.count_documents({}) == 0)
    expect_error('count refused', lambda: db.command('count', 'delc'), 115, REFUSAL_PREFIX)
    expect_error('distinct refused', lambda: c.distinct('g'), 115, REFUSAL_PREFIX)


def t_aggregate(db):
    a = db.agg_authors
    b = db.agg_books
    a.drop()
    b.drop()
    a.insert_many([{'_id': 1, 'name': 'Ann'}, {'_id': 2, 'name': 'Bob'}])
    b.insert_many([
        {'_id': 10, 'author': 1, 'price': 5, 'tags': ['x', 'y']},
        {'_id': 11, 'author': 1, 'price': 7, 'tags': ['y']},
        {'_id': 12, 'author': 2, 'price': 3, 'tags': []},
    ])
    r = list(b.aggregate([{'$match': {'price': {'$gt': 2}}},
                          {'$group': {'_id': '$author', 'total': {'$sum': '$price'},
                                      'n': {'$sum': 1}}},
                          {'$sort': {'total': -1}}]))
    check('aggregate $group/$sort', r == [{'_id': 1, 'total': 12, 'n': 2},
                                          {'_id': 2, 'total': 3, 'n': 1}], repr(r))
    r = list(b.aggregate([{'$sort': {'_id': 1}}, {'$skip': 1}, {'$limit': 1},
                          {'$project': {'price': 1, '_id': 0}}]))
    check('aggregate $skip/$limit/$project', r == [{'price': 7}], repr(r))
    r = list(b.aggregate([{'$unwind': '$tags'}, {'$count': 'n'}]))
    check('aggregate $unwind/$count', r == [{'n': 3}], repr(r))
    r = list(a.aggregate([{'$lookup': {'from': 'agg_books', 'localField': '_id',
                                       'foreignField': 'author', 'as': 'books'}},
                          {'$sort': {'_id': 1}}]))
    check('aggregate $lookup', [len(x['books']) for x in r] == [2, 1], repr(r))
    g = db.agg_group
    g.drop()
    g.insert_many([{'k': 1, 'v': 0, 'n': Int64(2)}, {'k': True, 'v': 0, 'n': Int64(3)},
                   {'k': 1, 'v': 4, 'n': Int64(5)}, {'k': 1.0, 'v': None},
                   {'k': Decimal128('1.0'), 'v': 2}])
    r = list(g.aggregate([{'$group': {'_id': '$k', 'vals': {'$addToSet': '$v'},
                                      'avg': {'$avg': '$v'}, 'min': {'$min': '$v'},
                                      'max': {'$max': '$v'}, 'sum': {'$sum': '$n'},
                                      'first': {'$first': '$v'}, 'cnt': {'$sum': 1}}},
                          {'$sort': {'cnt': -1}}]))
    check('$group keeps true apart from 1 and merges 1/1.0/Decimal 1.0',
          [x['cnt'] for x in r] == [4, 1] and r[1]['_id'] is True, repr(r))
    top = r[0]
    check('$group accumulators', sorted(top['vals'], key=lambda v: (v is None, v)) ==
          [0, 2, 4, None] and top['avg'] == 2.0 and top['min'] == 0 and top['max'] == 4 and
          top['first'] == 0, repr(top))
    check('$sum of Int64 stays Int64', isinstance(top['sum'], Int64) and top['sum'] == 7,
          repr(top['sum']))
    raw = db.command('aggregate', 'agg_books', pipeline=[{'$sort': {'_id': 1}}],
                     cursor={'batchSize': 1})
    check('aggregate cursor shape', len(raw['cursor']['firstBatch']) == 1 and
          raw['cursor']['id'] != 0)
    more = db.command('getMore', raw['cursor']['id'], collection='agg_books')
    check('aggregate getMore', [d['_id'] for d in more['cursor']['nextBatch']] == [11, 12])
    expect_error('aggregate without cursor', lambda: db.command(
        'aggregate', 'agg_books', pipeline=[]), 9)
    expect_error('aggregate $merge refused', lambda: list(b.aggregate(
        [{'$merge': {'into': 'x'}}])), 115, REFUSAL_PREFIX)
    for stage in ({'$out': 'agg_out'}, {'$sample': {'size': 1}}, {'$bucket': {}},
                  {'$graphLookup': {}}, {'$sortByCount': '$author'}):
        expect_error('aggregate %s refused' % next(iter(stage)), lambda: list(b.aggregate(
            [stage])), 115, REFUSAL_PREFIX + 'the aggregation stage')
    r = list(b.aggregate([{'$sort': {'_id': 1}}, {'$set': {'twice': {'$multiply': [
        '$price', Int64(2)]}, 'label.cheap': {'$lt': ['$price', 6]}}},
        {'$project': {'_id': 0, 'twice': 1, 'label': 1}}]))
    check('$set / $project computed fields, int64 arithmetic stays int64',
          r[0] == {'twice': 10, 'label': {'cheap': True}} and isinstance(r[0]['twice'], Int64),
          repr(r))
    r = list(b.aggregate([{'$facet': {'cheap': [{'$match': {'price': {'$lt': 6}}},
                                                {'$count': 'n'}],
                                      'none': [{'$match': {'price': 0}}, {'$count': 'n'}]}}]))
    check('$facet, and $count of nothing is nothing', r == [{'cheap': [{'n': 2}], 'none': []}],
          repr(r))
    r = list(b.aggregate([{'$match': {'_id': 11}}, {'$project': {
        '_id': 0,
        'even': {'$round': [Decimal128('2.345'), 2]}, 'odd': {'$round': [Decimal128('2.355'), 2]},
        'double': {'$round': [2.5, 0]}, 'tens': {'$round': [1250, -2]}, 'none': {'$round': ['$nothing', 1]},
        'month': {'$dateTrunc': {'date': datetime.datetime(2026, 5, 17, 13, 4, 5), 'unit': 'month'}},
        'week': {'$dateTrunc': {'date': datetime.datetime(2026, 12, 4, 13, 4, 5), 'unit': 'week'}},
        'quarter': {'$dateTrunc': {'date': datetime.datetime(2026, 8, 31, 23, 59), 'unit': 'quarter'}}}}]))
    check('$round half to even, by type; $dateTrunc in UTC, weeks from Sunday',
          r == [{'even': Decimal128('2.34'), 'odd': Decimal128('2.36'), 'double': 2.0, 'tens': 1200,
                 'none': None, 'month': datetime.datetime(2026, 5, 1),
                 'week': datetime.datetime(2026, 11, 29), 'quarter': datetime.datetime(2026, 7, 1)}],
          repr(r))
    expect_error('$round places beyond 100', lambda: list(b.aggregate(
        [{'$project': {'r': {'$round': [1.5, 101]}}}])), 51083)
    r = list(b.aggregate([{'$match': {'_id': 12}},
                          {'$unwind': {'path': '$tags', 'preserveNullAndEmptyArrays': True,
                                       'includeArrayIndex': 'i'}}]))
    check('$unwind keeps an empty array when asked, without the field',
          r == [{'_id': 12, 'author': 2, 'price': 3, 'i': None}], repr(r))


def t_union_with(db):
    par, kid = db.uw_parent, db.uw_child
    par.drop()
    kid.drop()
    db.uw_missing.drop()
    par.insert_many([{'_id': 1, 'k': 'p'}, {'_id': 2, 'k': 'p'}])
    kid.insert_many([{'_id': 12, 'v': Int64(5)}, {'_id': 10, 'v': Decimal128('2.0990')},
                     {'_id': 11, 'v': 3}])
    ids = [d['_id'] for d in par.aggregate([{'$unionWith': 'uw_child'}])]
    check('$unionWith string form (input, then coll in natural order)',
          ids == [1, 2, 12, 10, 11], repr(ids))
    for spec in ({'coll': 'uw_child'}, {'coll': 'uw_child', 'pipeline': []}):
        ids = [d['_id'] for d in par.aggregate([{'$unionWith': spec}])]
        check('$unionWith object form, empty pipeline %r' % (spec,),
              ids == [1, 2, 12, 10, 11], repr(ids))
    r = list(par.aggregate([{'$match': {'_id': 2}}, {'$unionWith': {
        'coll': 'uw_child', 'pipeline': [{'$match': {'v': {'$gte': Decimal128('2.099')}}},
                                         {'$sort': {'v': -1}}, {'$limit': 2},
                                         {'$project': {'v': 1, 'x': 'y'}}]}}]))
    check('$unionWith sub-pipeline $match/$sort/$limit/$project (Decimal128 by value)',
          [d['_id'] for d in r] == [2, 12, 11] and r[1] == {'_id': 12, 'v': 5, 'x': 'y'},
          repr(r))
    check('$unionWith keeps int64', isinstance(r[1]['v'], Int64), repr(r[1]))
    r = list(par.aggregate([{'$unionWith': {'coll': 'uw_child', 'pipeline': [
        {'$match': {'v': Decimal128('2.099')}}]}}]))
    check('$unionWith Decimal128 text preserved',
          [str(d.get('v')) for d in r] == ['None', 'None', '2.0990'], repr(r))
    ids = [d['_id'] for d in par.aggregate([
        {'$unionWith': {'coll': 'uw_child', 'pipeline': [{'$skip': 2}]}},
        {'$unionWith': {'coll': 'uw_parent', 'pipeline': [{'$match': {'_id': 1}}]}}])]
    check('$unionWith chained', ids == [1, 2, 11, 1], repr(ids))
    ids = [d['_id'] for d in par.aggregate([{'$match': {'_id': 1}}, {'$unionWith': {
        'coll': 'uw_child', 'pipeline': [{'$match': {'_id': 10}}, {'$unionWith': {
            'coll': 'uw_parent', 'pipeline': [{'$match': {'_id': 2}}]}}]}}])]
    check('$unionWith nested', ids == [1, 10, 2], repr(ids))
    ids = [d['_id'] for d in par.aggregate([{'$unionWith': 'uw_missing'},
                                            {'$unionWith': {'coll': 'uw_missing', 'pipeline': [
                                                {'$match': {'a': 1}}]}}])]
    check('$unionWith missing collection contributes nothing', ids == [1, 2], repr(ids))
    ids = [d['_id'] for d in db.uw_missing.aggregate([{'$unionWith': 'uw_parent'}])]
    check('$unionWith from a missing collection', ids == [1, 2], repr(ids))
    ids = [d['_id'] for d in par.aggregate([{'$unionWith': 'uw_child'},
                                            {'$match': {'_id': {'$ne': 10}}},
                                            {'$sort': {'_id': -1}}])]
    check('$unionWith then $match/$sort on the combined stream', ids == [12, 11, 2, 1],
          repr(ids))
    r = list(par.aggregate([{'$unionWith': 'uw_child'}, {'$sort': {'v': 1, '_id': 1}}]))
    check('$unionWith then $sort numeric across Decimal128/int/int64',
          [d['_id'] for d in r] == [1, 2, 10, 11, 12], repr(r))
    r = list(par.aggregate([{'$unionWith': 'uw_child'},
                            {'$group': {'_id': None, 'n': {'$sum': 1}}}]))
    check('$unionWith then $group', r == [{'_id': None, 'n': 5}], repr(r))
    r = list(par.aggregate([{'$facet': {'n': [{'$unionWith': 'uw_child'}, {'$count': 'c'}]}}]))
    check('$unionWith inside $facet', r == [{'n': [{'c': 5}]}], repr(r))

    # odm's "newest N children of each of K parents" in one aggregate.
    log = db.uw_logmsg
    log.drop()
    base = datetime.datetime(2024, 5, 1)
    docs = []
    for i in range(450):
        host = 'ABC'[i % 3]
        docs.append({'_id': i, 'host': host, 'seq': Int64(i),
                     'time': base + datetime.timedelta(seconds=(i * 7919) % 4001,
                                                       milliseconds=i % 997)})
    log.insert_many(docs)

    def newest(host, n):
        return [d['_id'] for d in sorted((d for d in docs if d['host'] == host),
                                         key=lambda d: d['time'], reverse=True)[:n]]

    ids = [d['_id'] for d in log.aggregate([{'$match': {'host': 'A'}},
                                            {'$sort': {'time': -1}}, {'$limit': 40}])]
    check('aggregate $match, $sort date descending, $limit', ids == newest('A', 40), repr(ids))
    pipeline = [{'$match': {'host': 'A'}}, {'$sort': {'time': -1}}, {'$limit': 120}]
    for h in 'BC':
        pipeline.append({'$unionWith': {'coll': 'uw_logmsg', 'pipeline': [
            {'$match': {'host': h}}, {'$sort': {'time': -1}}, {'$limit': 120}]}})
    expected = newest('A', 120) + newest('B', 120) + newest('C', 120)
    raw = db.command('aggregate', 'uw_logmsg', pipeline=pipeline, cursor={})
    first = raw['cursor']['firstBatch']
    got = [d['_id'] for d in first]
    cid = raw['cursor']['id']
    check('$unionWith first batch is 101 documents', len(first) == 101 and cid != 0,
          '%d id=%r' % (len(first), cid))
    batches = []
    while cid:
        more = db.command('getMore', cid, collection='uw_logmsg', batchSize=100)
        batches.append(len(more['cursor']['nextBatch']))
        got += [d['_id'] for d in more['cursor']['nextBatch']]
        cid = more['cursor']['id']
    check('$unionWith getMore batches honour batchSize', batches == [100, 100, 59],
          repr(batches))
    check('$unionWith newest N per parent over getMore', got == expected,
          '%d vs %d' % (len(got), len(expected)))
    r = list(log.aggregate(pipeline + [{'$sort': {'time': -1, '_id': 1}}], batchSize=50))
    want = sorted((d for d in docs if d['_id'] in set(expected)),
                  key=lambda d: (base - d['time'], d['_id']))
    check('$unionWith with a trailing $sort (driver getMore, batchSize 50)',
          [d['_id'] for d in r] == [d['_id'] for d in want], '%d docs' % len(r))
    check('$unionWith results keep int64 and dates',
          all(isinstance(d['seq'], Int64) and isinstance(d['time'], datetime.datetime)
              for d in r))

    def agg(spec):
        return lambda: list(par.aggregate([{'$unionWith': spec}]))
    expect_error('$unionWith non-object spec', agg(5), 9)
    expect_error('$unionWith coll wrong type', agg({'coll': 1}), 14)
    expect_error('$unionWith pipeline wrong type', agg({'coll': 'uw_child', 'pipeline': 1}),
                 14)
    expect_error('$unionWith unknown field', agg({'coll': 'uw_child', 'x': 1}), 40415)
    expect_error('$unionWith without coll', agg({'pipeline': [{'$match': {}}]}), 9)
    expect_error('$unionWith $out in sub-pipeline', agg(
        {'coll': 'uw_child', 'pipeline': [{'$out': 'uw_x'}]}), 31441)
    expect_error('$unionWith nested $merge in sub-pipeline', agg(
        {'coll': 'uw_child', 'pipeline': [{'$unionWith': {'coll': 'uw_child', 'pipeline': [
            {'$merge': 'uw_x'}]}}]}), 31441)
    expect_error('$unionWith bad sub-pipeline stage', agg(
        {'coll': 'uw_child', 'pipeline': [{'$nope': 1}]}), 40324)
    expect_error('$unionWith sub-pipeline $limit 0', agg(
        {'coll': 'uw_child', 'pipeline': [{'$limit': 0}]}), 15958)
    expect_error('$unionWith refused stage in sub-pipeline', agg(
        {'coll': 'uw_child', 'pipeline': [{'$densify': {}}]}), 115, REFUSAL_PREFIX)
    expect_error('$unionWith on system.* refused', agg('system.views'), 115, REFUSAL_PREFIX)
    check('refused $unionWith wrote nothing', 'uw_x' not in db.list_collection_names())


def t_indexes(db):
    c = db.idx
    c.drop()
    spec = [{'key': {'a': 1}, 'name': 'a_1'}, {'key': {'b': -1, 'c': 1}, 'name': 'b_-1_c_1'}]
    r1 = db.command(SON([('createIndexes', 'idx'), ('indexes', spec)]))
    check('createIndexes first', r1.get('numIndexesBefore') == 1 and
          r1.get('numIndexesAfter') == 3 and r1.get('createdCollectionAutomatically') is True
          and 'note' not in r1, repr(r1))
    r2 = db.command(SON([('createIndexes', 'idx'), ('indexes', spec)]))
    check('createIndexes idempotent', r2.get('numIndexesBefore') == 3 and
          r2.get('numIndexesAfter') == 3 and r2.get('note') == 'all indexes already exist' and
          r2.get('createdCollectionAutomatically') is False, repr(r2))
    names = [ix['name'] for ix in c.list_indexes()]
    check('listIndexes', names == ['_id_', 'a_1', 'b_-1_c_1'], repr(names))
    expect_error('same name, other key', lambda: db.command(SON([
        ('createIndexes', 'idx'), ('indexes', [{'key': {'z': 1}, 'name': 'a_1'}])])), 86)
    expect_error('same key, other name', lambda: db.command(SON([
        ('createIndexes', 'idx'), ('indexes', [{'key': {'a': 1}, 'name': 'other'}])])), 85)
    expect_error('listIndexes missing ns', lambda: db.command('listIndexes', 'nothere'), 26)
    c.create_index([('email', 1)], unique=True, name='email_1')
    c.insert_one({'_id': 1, 'email': 'a@x'})
    try:
        c.insert_one({'_id': 2, 'email': 'a@x'})
        check('duplicate key', False, 'no error')
    except DuplicateKeyError as e:
        d = e.details
        check('duplicate key code 11000', e.code == 11000)
        check('duplicate key keyPattern/keyValue', d.get('keyPattern') == {'email': 1} and
              d.get('keyValue') == {'email': 'a@x'}, repr(d))
        check('duplicate key errmsg', d.get('errmsg') ==
              'E11000 duplicate key error collection: %s.idx index: email_1 dup key: '
              '{ email: "a@x" }' % db.name, repr(d.get('errmsg')))
    try:
        c.insert_many([{'_id': 3, 'email': 'b@x'}, {'_id': 4, 'email': 'a@x'},
                       {'_id': 5, 'email': 'c@x'}], ordered=True)
        check('ordered insert stops', False, 'no error')
    except BulkWriteError as e:
        check('ordered insert stops', e.details['nInserted'] == 1 and
              e.details['writeErrors'][0]['index'] == 1)
    try:
        c.insert_many([{'_id': 6, 'email': 'a@x'}, {'_id': 7, 'email': 'd@x'},
                       {'_id': 3, 'email': 'e@x'}, {'_id': 8, 'email': 'f@x'}], ordered=False)
        check('unordered insert continues', False, 'no error')
    except BulkWriteError as e:
        errs = e.details['writeErrors']
        check('unordered insert continues', e.details['nInserted'] == 2 and
              [x['index'] for x in errs] == [0, 2] and errs[1]['keyPattern'] == {'_id': 1},
              repr(e.details))
    expect_error('dup key via update', lambda: c.update_one({'_id': 7},
                                                            {'$set': {'email': 'a@x'}}), 11000)
    cd = db.idx_dups
    cd.drop()
    cd.insert_many([{'_id': 100, 'dupfield': 1}, {'_id': 101, 'dupfield': 1}])
    expect_error('unique index build on duplicates', lambda: cd.create_index(
        'dupfield', unique=True), 11000)
    check('failed index build leaves no index', [ix['name'] for ix in cd.list_indexes()] ==
          ['_id_'])
    # sparse / partial unique indexes
    cs = db.idx_sparse
    cs.drop()
    cs.create_index('sp', unique=True, sparse=True)
    cs.insert_many([{'_id': 200}, {'_id': 201}])
    check('sparse unique allows missing', cs.count_documents({'_id': {'$in': [200, 201]}}) == 2)
    expect_error('sparse unique still enforced', lambda: cs.insert_many(
        [{'_id': 202, 'sp': 1}, {'_id': 203, 'sp': 1}]), 11000)
    cs.create_index('pf', unique=True, name='pf_1',
                    partialFilterExpression={'active': True})
    cs.insert_many([{'_id': 300, 'pf': 1, 'active': False}, {'_id': 301, 'pf': 1,
                                                             'active': False}])
    expect_error('partial unique enforced', lambda: cs.insert_many([
        {'_id': 302, 'pf': 1, 'active': True}, {'_id': 303, 'pf': 1, 'active': True}]), 11000)
    r = db.command('dropIndexes', 'idx', index='a_1')
    check('dropIndexes by name', r.get('ok') == 1.0 and 'a_1' not in
          [ix['name'] for ix in c.list_indexes()])
    expect_error('dropIndexes _id_', lambda: db.command('dropIndexes', 'idx', index='_id_'), 72)
    expect_error('dropIndexes missing', lambda: db.command('dropIndexes', 'idx',
                                                           index='nope'), 27)
    # numeric equality of index keys: 1 and 1.0 and Int64(1) collide
    c2 = db.idx_num
    c2.drop()
    c2.insert_one({'_id': 1})
    expect_error('_id 1 vs 1.0 duplicate', lambda: c2.insert_one({'_id': 1.0}), 11000)
    expect_error('_id 1 vs Int64(1) duplicate', lambda: c2.insert_one({'_id': Int64(1)}), 11000)
    c2.insert_one({'_id': True})
    check('_id true distinct from 1', c2.count_documents({}) == 2)
    # unique multikey indexes: a document may repeat an element, two may not share one
    c3 = db.idx_multi
    c3.drop()
    c3.create_index('tags', unique=True)
    c3.insert_one({'_id': 1, 'tags': ['a', 'b', 'a']})
    d = expect_error('multikey unique: shared element', lambda: c3.insert_one(
        {'_id': 2, 'tags': ['c', 'b']}), 11000)
    check('multikey unique: keyValue is the element', (d or {}).get('keyValue') == {'tags': 'b'},
          repr(d))
    c3.insert_one({'_id': 3, 'tags': []})
    expect_error('multikey unique: two empty arrays collide', lambda: c3.insert_one(
        {'_id': 4, 'tags': []}), 11000)
    c3.update_one({'_id': 1}, {'$pull': {'tags': 'b'}})
    c3.insert_one({'_id': 5, 'tags': ['b']})
    check('multikey unique: a released element is free', c3.count_documents({'tags': 'b'}) == 1)
    c4 = db.idx_parallel
    c4.drop()
    c4.create_index([('a', 1), ('b', 1)])
    expect_error('parallel arrays refused', lambda: c4.insert_one({'a': [1], 'b': [2]}), 171)
    # a declared index answers equality and $in (the results are what a scan gives)
    c5 = db.idx_eq
    c5.drop()
    c5.create_index('k')
    c5.insert_many([{'_id': i, 'k': i % 7, 'arr': [i, -i]} for i in range(200)] +
                   [{'_id': 1000, 'k': [3, 4]}, {'_id': 1001, 'k': 3.0}, {'_id': 1002}])
    got = [x['_id'] for x in c5.find({'k': 3})]
    check('index equality finds scalars, array elements and 3.0', got ==
          [i for i in range(200) if i % 7 == 3] + [1000, 1001], repr(got))
    got = [x['_id'] for x in c5.find({'k': {'$in': [4, Int64(5)]}, '_id': {'$lt': 30}})]
    check('index $in', got == [i for i in range(30) if i % 7 in (4, 5)], repr(got))
    got = [x['_id'] for x in c5.find({'_id': {'$in': [199, 3, 3, 500]}})]
    check('_id $in keeps natural order', got == [3, 199], repr(got))
    check('null still matches missing', [x['_id'] for x in c5.find({'k': None})] == [1002])
    c5.update_one({'_id': 3}, {'$set': {'k': 100}})
    check('index follows updates', [x['_id'] for x in c5.find({'k': 100})] == [3] and
          3 not in [x['_id'] for x in c5.find({'k': 3})])
    c5.drop_index('k_1')
    check('without the index, same answer', [x['_id'] for x in c5.find({'k': 100})] == [3])


def t_decimal(db):
    c = db.dec
    c.drop()
    c.insert_many([{'_id': 1, 'p': Decimal128('2.0990')}, {'_id': 2, 'p': Decimal128('10')},
                   {'_id': 3, 'p': Decimal128('9.5')}, {'_id': 4, 'p': Decimal128('-1')},
                   {'_id': 5, 'p': 3}, {'_id': 6, 'p': 4.25}, {'_id': 7, 'p': Int64(7)}])
    check('Decimal128 2.0990 == 2.099', [d['_id'] for d in c.find({'p': Decimal128('2.099')})]
          == [1])
    check('Decimal128 $in numeric', [d['_id'] for d in c.find(
        {'p': {'$in': [Decimal128('10.00'), Decimal128('3.0')]}})] == [2, 5])
    check('stored Decimal128 text preserved', str(c.find_one({'_id': 1})['p']) == '2.0990')
    order = [d['_id'] for d in c.find().sort('p', 1)]
    check('numeric sort across types', order == [4, 1, 5, 6, 7, 3, 2], repr(order))
    gt = [d['_id'] for d in c.find({'p': {'$gt': Decimal128('4')}}).sort('_id', 1)]
    check('Decimal128 $gt', gt == [2, 3, 6, 7], repr(gt))
    lt = sorted(d['_id'] for d in c.find({'p': {'$lt': 3}}))
    check('int $lt against Decimal128', lt == [1, 4], repr(lt))
    c.update_one({'_id': 1}, {'$inc': {'p': Decimal128('0.0010')}})
    check('$inc Decimal128 exact', str(c.find_one({'_id': 1})['p']) == '2.1000')
    c.insert_one({'_id': 10, 'p': Decimal128('0.1')})
    c.update_one({'_id': 10}, {'$inc': {'p': Decimal128('0.2')}})
    check('$inc 0.1 + 0.2 == 0.3', c.find_one({'_id': 10})['p'] == Decimal128('0.3'))
    c.update_one({'_id': 10}, {'$inc': {'p': 1}})
    v = c.find_one({'_id': 10})['p']
    check('$inc Decimal128 by int stays Decimal128', isinstance(v, Decimal128) and
          str(v) == '1.3', repr(v))
    c.update_one({'_id': 10}, {'$mul': {'p': Decimal128('3')}})
    check('$mul Decimal128', str(c.find_one({'_id': 10})['p']) == '3.9')
    r = list(c.aggregate([{'$match': {'_id': {'$in': [2, 3]}}},
                          {'$group': {'_id': None, 's': {'$sum': '$p'}}}]))
    check('$sum Decimal128 exact', r and str(r[0]['s']) == '19.5', repr(r))


def t_int64(db):
    c = db.ints
    c.drop()
    c.insert_one({'_id': 1, 'big': Int64(5), 'small': 5, 'dbl': 5.0,
                  'edge': 2147483647})
    c.update_one({'_id': 1}, {'$inc': {'big': 1, 'small': 1, 'dbl': 1, 'edge': 1}})
    raw = c.with_options(codec_options=CodecOptions(document_class=RawBSONDocument)) \
        .find_one({'_id': 1}).raw
    d = bson.decode(raw)
    check('Int64 stays Int64 after $inc', isinstance(d['big'], Int64) and d['big'] == 6)
    check('int32 stays int32 after $inc', type(d['small']) is int and d['small'] == 6)
    check('double stays double after $inc', isinstance(d['dbl'], float) and d['dbl'] == 6.0)
    check('int32 overflow promoted to int64', isinstance(d['edge'], Int64) and
          d['edge'] == 2147483648)
    c.update_one({'_id': 1}, {'$inc': {'small': Int64(1)}})
    d = c.find_one({'_id': 1})
    check('int32 + int64 gives int64', isinstance(d['small'], Int64) and d['small'] == 7)
    expect_error('$inc non-numeric', lambda: c.update_one({'_id': 1}, {'$inc': {'s': 'x'}}), 14)


def t_types_roundtrip(db):
    c = db.types
    c.drop()
    doc = SON([
        ('_id', ObjectId()),
        ('z', 1), ('a', Int64(2)), ('m', 3.5), ('d', Decimal128('1.10')),
        ('when', datetime.datetime(2024, 2, 29, 23, 59, 58, 123000)),
        ('bin0', Binary(b'\x00\x01', 0)), ('uuid3', Binary(b'0123456789abcdef', 3)),
        ('uuid4', Binary(uuid.UUID('12345678-1234-5678-1234-567812345678').bytes, 4)),
        ('md5', Binary(b'0123456789abcdef', 5)), ('user', Binary(b'xyz', 0x80)),
        ('nested', SON([('y', 1), ('b', SON([('q', None), ('p', [1, 'two', 3.0])]))])),
        ('re', Regex('^ab', 'i')), ('t', True), ('ts', bson.Timestamp(100, 2)),
    ])
    encoded = bson.encode(doc)
    c.insert_one(RawBSONDocument(encoded))
    raw = c.with_options(codec_options=CodecOptions(document_class=RawBSONDocument)) \
        .find_one({'_id': doc['_id']})
    check('BSON round trip is byte-identical', raw is not None and raw.raw == encoded)
    got = c.find_one({'when': datetime.datetime(2024, 2, 29, 23, 59, 58, 123000)})
    check('datetime query with ms', got is not None)
    check('datetime range query', c.count_documents({'when': {
        '$gt': datetime.datetime(2024, 2, 29, 23, 59, 58, 122000),
        '$lt': datetime.datetime(2024, 2, 29, 23, 59, 58, 124000)}}) == 1)
    check('query by uuid binary', c.count_documents({'uuid4': doc['uuid4']}) == 1)
    check('bool is not a number', c.count_documents({'t': 1}) == 0 and
          c.count_documents({'t': True}) == 1)
    check('int64 and int32 compare by value', c.count_documents({'a': 2}) == 1 and
          c.count_documents({'a': Int64(2), 'z': Int64(1)}) == 1)
    check('embedded doc equality is order sensitive',
          c.count_documents({'nested.b': SON([('q', None), ('p', [1, 'two', 3.0])])}) == 1 and
          c.count_documents({'nested.b': SON([('p', [1, 'two', 3.0]), ('q', None)])}) == 0)


def t_queries(db):
    c = db.q
    c.drop()
    c.insert_many([
        {'_id': 1, 'name': 'alice', 'age': 30, 'tags': ['a', 'b'],
         'addr': {'city': 'Oslo'}, 'items': [{'sku': 'x', 'qty': 2}, {'sku': 'y', 'qty': 8}]},
        {'_id': 2, 'name': 'bob', 'age': 25, 'tags': ['b'], 'addr': {'city': 'Rome'},
         'items': [{'sku': 'x', 'qty': 9}]},
        {'_id': 3, 'name': 'carol', 'age': None, 'tags': []},
        {'_id': 4, 'name': 'dave'},
    ])

    def ids(q, **kw):
        return sorted(d['_id'] for d in c.find(q, **kw))
    check('$and/$or', ids({'$or': [{'age': {'$gte': 30}}, {'name': 'bob'}]}) == [1, 2])
    check('dotted path', ids({'addr.city': 'Rome'}) == [2])
    check('array contains', ids({'tags': 'b'}) == [1, 2])
    check('$all', ids({'tags': {'$all': ['a', 'b']}}) == [1])
    check('$size', ids({'tags': {'$size': 0}}) == [3])
    check('$exists', ids({'age': {'$exists': False}}) == [4])
    check('null matches missing', ids({'age': None}) == [3, 4])
    check('$ne null', ids({'age': {'$ne': None}}) == [1, 2])
    check('$nin', ids({'name': {'$nin': ['alice', 'bob']}}) == [3, 4])
    check('$regex', ids({'name': {'$regex': '^[ab]', '$options': 'i'}}) == [1, 2])
    check('regex literal', ids({'name': Regex('ol$')}) == [3])
    check('$elemMatch', ids({'items': {'$elemMatch': {'sku': 'x', 'qty': {'$gt': 5}}}}) == [2])
    check('array of docs dotted', ids({'items.qty': {'$gt': 5}}) == [1, 2])
    check('$not', ids({'age': {'$not': {'$gt': 26}}}) == [2, 3, 4])
    expect_error('$mod refused', lambda: ids({'age': {'$mod': [10, 5]}}), 115, REFUSAL_PREFIX)
    check('$type alias', ids({'age': {'$type': 'number'}}) == [1, 2])
    check('$type list', ids({'_id': {'$type': ['string', 'int']}}) == [1, 2, 3, 4])
    check('$type missing matches nothing', ids({'nothing': {'$type': 'null'}}) == [])
    check('$expr', ids({'$expr': {'$gt': ['$age', 26]}}) == [1])
    check('comparison type bracketing', ids({'name': {'$gt': 5}}) == [])
    r = c.find_one({'_id': 1}, {'items.sku': 1, '_id': 0})
    check('nested inclusion projection', r == {'items': [{'sku': 'x'}, {'sku': 'y'}]}, repr(r))
    r = c.find_one({'_id': 1}, {'_id': 0})
    check('projection without _id', r is not None and '_id' not in r and r['name'] == 'alice')
    for projection in ({'items.$': 1}, {'items': {'$slice': 1}}, {'items': 0}):
        expect_error('projection %r refused' % (projection,), lambda: c.find_one(
            {'items.sku': 'y'}, projection), 115, REFUSAL_PREFIX)
    r = [d['_id'] for d in c.find({}, sort=[('age', -1), ('_id', 1)])]
    check('sort with nulls/missing', r == [1, 2, 3, 4], repr(r))
    check('$expr with missing field', ids({'$expr': {'$lt': ['$age', 26]}}) == [2, 3, 4])
    check('$expr $eq missing vs null', ids({'$expr': {'$eq': ['$age', None]}}) == [3])
    expect_error('unknown operator', lambda: list(c.find({'a': {'$foo': 1}})), 2)
    c.create_index('name')
    check('hint of an index by name', len(list(c.find({}).hint('name_1'))) == len(list(c.find({}))))
    check('hint of an index by keys', len(list(c.find({}).hint([('name', 1)]))) == len(list(c.find({}))))
    expect_error('hint naming no index', lambda: list(c.find({}).hint('nope_1')), 2)
    expect_error('hint with keys of no index', lambda: list(c.find({}).hint([('age', -1)])), 2)
    expect_error('$where refused', lambda: list(c.find({'$where': 'true'})), 115,
                 REFUSAL_PREFIX)


def t_collections(db, client):
    name = db.name
    db.coll_a.drop()
    db.create_collection('coll_a')
    expect_error('create existing', lambda: db.command('create', 'coll_a'), 48)
    names = db.list_collection_names()
    check('listCollections', 'coll_a' in names)
    r = db.command('listCollections', filter={'name': 'coll_a'})
    batch = r['cursor']['firstBatch']
    check('listCollections shape', len(batch) == 1 and batch[0]['type'] == 'collection' and
          'options' in batch[0] and 'info' in batch[0] and 'idIndex' in batch[0])
    r = db.command('drop', 'coll_a')
    check('drop', r.get('ok') == 1.0 and 'coll_a' not in db.list_collection_names())
    check('drop missing is ok', db.command('drop', 'coll_a').get('ok') == 1.0)
    expect_error('listDatabases refused', lambda: client.list_database_names(), 115,
                 REFUSAL_PREFIX)
    expect_error('renameCollection refused', lambda: client.admin.command(
        'renameCollection', name + '.coll_b', to=name + '.coll_c'), 115, REFUSAL_PREFIX)
    other = client['odm_selftest_dropme']
    other.x.insert_one({'a': 1})
    client.drop_database('odm_selftest_dropme')
    check('dropDatabase', other.list_collection_names() == [])
    expect_error('capped refused', lambda: db.create_collection('capped_c', capped=True,
                                                                size=4096), 115,
                 REFUSAL_PREFIX)


def t_validators(db):
    """$jsonSchema validators, per the manual's schema validation pages."""
    from bson.decimal128 import Decimal128
    from bson.int64 import Int64
    db.drop_collection('valid')
    schema = {'bsonType': 'object', 'required': ['_id', 'price', 'at'],
              'additionalProperties': False,
              'properties': {'_id': {'bsonType': 'objectId'}, 'price': {'bsonType': 'decimal'},
                             'at': {'bsonType': 'date'}, 'n': {'bsonType': 'number'},
                             'count': {'bsonType': 'long', 'minimum': 0},
                             'tags': {'bsonType': 'array', 'items': {'bsonType': 'string'}},
                             'kind': {'enum': ['a', 'b']},
                             'note': {'bsonType': ['string', 'null']},
                             'either': {'anyOf': [{'bsonType': 'int'}, {'bsonType': 'string'}]},
                             'sub': {'bsonType': 'object', 'required': ['x'],
                                     'properties': {'x': {'bsonType': 'int'}}}}}
    db.create_collection('valid', validator={'$jsonSchema': schema})
    c = db.valid
    now = datetime.datetime(2026, 1, 2, 3, 4, 5)
    good = {'price': Decimal128('1.50'), 'at': now, 'n': 2.5, 'count': Int64(3), 'tags': ['x'],
            'kind': 'a', 'note': None, 'either': 'z', 'sub': {'x': 1}}
    c.insert_one(dict(good))
    check('a valid document is stored', c.count_documents({}) == 1)
    for name, change in (('a double for a decimal', {'price': 1.5}),
                         ('a string for a date', {'at': '2026-01-02'}),
                         ('an int for a long', {'count': 3}),
                         ('a long below minimum', {'count': Int64(-1)}),
                         ('a wrong array element', {'tags': ['x', 1]}),
                         ('a value outside enum', {'kind': 'c'}),
                         ('a type outside the list', {'note': 1}),
                         ('no anyOf alternative', {'either': 1.5}),
                         ('a wrong nested type', {'sub': {'x': 'one'}}),
                         ('a missing nested required field', {'sub': {}}),
                         ('an undeclared field', {'other': 1}),
                         ('a string for "number"', {'n': 'two'})):
        doc = dict(good)
        doc.update(change)
        details = expect_error('validator refuses ' + name, lambda: c.insert_one(doc), 121)
        if details:
            info = details.get('errInfo') or {}
            check('errInfo of ' + name, 'failingDocumentId' in info and
                  info.get('details', {}).get('operatorName') == '$jsonSchema', repr(info))
    missing = dict(good)
    del missing['at']
    expect_error('validator refuses a missing required field', lambda: c.insert_one(missing), 121)
    for alias, value in (('number', 1), ('number', Int64(1)), ('number', Decimal128('1'))):
        doc = dict(good)
        doc['n'] = value
        c.insert_one(doc)
    check('"number" takes int, long, double and decimal', c.count_documents({}) == 4)
    expect_error('update refused', lambda: c.update_one({'kind': 'a'}, {'$set': {'price': 2.0}}),
                 121)
    expect_error('replace refused', lambda: c.replace_one({'kind': 'a'}, {'price': Decimal128('1')}),
                 121)
    expect_error('findAndModify refused', lambda: c.find_one_and_update(
        {'kind': 'a'}, {'$set': {'at': 'now'}}), 121)
    expect_error('upsert refused', lambda: c.update_one({'kind': 'zz'}, {'$set': {'x': 1}},
                                                        upsert=True), 121)
    c.insert_one({'price': 1.5, 'bypassed': True}, bypass_document_validation=True)
    check('bypassDocumentValidation stores an invalid document',
          c.count_documents({'bypassed': True}) == 1)
    db.command('collMod', 'valid', validationAction='warn')
    c.insert_one({'price': 2.5})
    check('validationAction warn stores the invalid document', c.count_documents({'price': 2.5}) == 1)
    db.command('collMod', 'valid', validationAction='error', validationLevel='moderate')
    c.update_one({'price': 2.5}, {'$set': {'more': 1}})
    check('moderate: an invalid document may be updated', c.count_documents({'more': 1}) == 1)
    expect_error('moderate: a valid document may not become invalid',
                 lambda: c.update_one({'kind': 'a'}, {'$set': {'price': 2.0}}), 121)
    expect_error('moderate: inserts are checked', lambda: c.insert_one({'price': 3.5}), 121)
    info = db.command('listCollections', filter={'name': 'valid'})['cursor']['firstBatch'][0]
    options = info['options']
    check('listCollections reports the validator', options.get('validator') == {'$jsonSchema': schema}
          and options.get('validationLevel') == 'moderate' and
          options.get('validationAction') == 'error', repr(options))
    db.command('collMod', 'valid', validationLevel='off')
    c.insert_one({'price': 4.5})
    check('validationLevel off checks nothing', c.count_documents({'price': 4.5}) == 1)
    expect_error('collMod of a missing collection', lambda: db.command(
        'collMod', 'nothing_here', validationLevel='strict'), 26)
    expect_error('an unknown keyword is refused', lambda: db.create_collection(
        'valid2', validator={'$jsonSchema': {'bsonType': 'object', 'nonsense': 1}}), 9)
    expect_error('an unknown type alias is refused', lambda: db.create_collection(
        'valid2', validator={'$jsonSchema': {'bsonType': 'integer'}}), 9)
    expect_error('a keyword not implemented is refused', lambda: db.create_collection(
        'valid2', validator={'$jsonSchema': {'uniqueItems': True}}), 115, REFUSAL_PREFIX)
    db.create_collection('valid3', validator={'$jsonSchema': {'properties': {'a': {'minimum': 5}}}})
    db.valid3.insert_one({'a': 'text'})
    check('a keyword for another type does not apply', db.valid3.count_documents({}) == 1)
    expect_error('minimum applies to numbers', lambda: db.valid3.insert_one({'a': 4}), 121)


def t_refusals(db, client):
    c = db.ref
    c.drop()
    c.insert_one({'_id': 1, 'arr': [{'x': 1}, {'x': 2}], 'name': 'a'})
    expect_error('collation on find refused', lambda: list(c.find(
        {}, collation={'locale': 'en', 'strength': 2})), 115, REFUSAL_PREFIX + 'collation')
    expect_error('collation on update refused', lambda: c.update_one(
        {'name': 'A'}, {'$set': {'y': 1}}, collation={'locale': 'en', 'strength': 2}), 115,
        REFUSAL_PREFIX + 'collation')
    expect_error('collation on index refused', lambda: c.create_index(
        'name', collation={'locale': 'en'}), 115, REFUSAL_PREFIX + 'collation')
    check('simple collation accepted', len(list(c.find({}, collation={'locale': 'simple'}))) == 1)
    expect_error('pipeline update refused', lambda: c.update_one(
        {'_id': 1}, [{'$set': {'y': 1}}]), 115, REFUSAL_PREFIX)
    expect_error('explain refused', lambda: db.command('explain', {'find': 'ref'}), 115,
                 REFUSAL_PREFIX)
    expect_error('$text refused', lambda: list(c.find({'$text': {'$search': 'a'}})), 115,
                 REFUSAL_PREFIX)


def t_array_updates(db):
    c = db.arrays
    c.drop()
    c.insert_many([{'_id': 1, 'grades': [95, 92, 90]}, {'_id': 2, 'grades': [98, 100, 102]},
                   {'_id': 3, 'items': [{'t': 'quiz', 'q': [8, 10, 7]}, {'t': 'hw', 'q': [9]}]}])
    c.update_many({'grades': {'$exists': True}}, {'$inc': {'grades.$[]': 10}})
    check('$[] updates every element', c.find_one({'_id': 1})['grades'] == [105, 102, 100])
    r = c.update_many({'grades': {'$exists': True}}, {'$set': {'grades.$[g]': 0}},
                      array_filters=[{'g': {'$gte': 110}}])
    check('$[<id>] updates the matching elements', c.find_one({'_id': 2})['grades'] ==
          [108, 0, 0] and r.modified_count == 1, repr(r.raw_result))
    c.update_one({'_id': 3}, {'$inc': {'items.$[i].q.$[s]': 1}},
                 array_filters=[{'i.t': 'quiz'}, {'s': {'$gte': 8}}])
    check('nested $[<id>]', c.find_one({'_id': 3})['items'] ==
          [{'t': 'quiz', 'q': [9, 11, 7]}, {'t': 'hw', 'q': [9]}])
    d = c.find_one_and_update({'_id': 3}, {'$set': {'items.$[i].t': 'test'}},
                              array_filters=[{'i.t': 'hw'}], return_document=True)
    check('findAndModify arrayFilters', d['items'][1]['t'] == 'test')
    expect_error('identifier without filter', lambda: c.update_one(
        {'_id': 1}, {'$set': {'grades.$[x]': 0}}), 2)
    expect_error('unused filter', lambda: c.update_one(
        {'_id': 1}, {'$set': {'grades.0': 0}}, array_filters=[{'x': 1}]), 9)
    expect_error('two identifiers in a filter', lambda: c.update_one(
        {'_id': 1}, {'$set': {'grades.$[x]': 0}}, array_filters=[{'x': 1, 'y': 2}]), 9)
    expect_error('duplicate identifier', lambda: c.update_one(
        {'_id': 1}, {'$set': {'grades.$[x]': 0}}, array_filters=[{'x': 1}, {'x': 2}]), 9)
    expect_error('bad identifier', lambda: c.update_one(
        {'_id': 1}, {'$set': {'grades.$[X]': 0}}, array_filters=[{'X': 1}]), 2)
    expect_error('$[] over a missing array', lambda: c.update_one(
        {'_id': 1}, {'$set': {'nope.$[]': 0}}), 2)
    expect_error('$[] over a scalar', lambda: c.update_one(
        {'_id': 3}, {'$set': {'_id.$[]': 0}}), 2)
    check('failed array updates changed nothing', c.find_one({'_id': 1})['grades'] ==
          [105, 102, 100])


def t_sessions(client, db, port):
    hello = db.command('hello')
    check('hello: replica set primary', hello.get('setName') == 'odm' and
          hello.get('hosts') == ['127.0.0.1:%d' % port] and hello.get('isWritablePrimary') is True)
    c = db.txn
    c.drop()
    c.insert_one({'_id': 1, 'v': 0})
    reply = db.command('ping')
    check('replies carry $clusterTime and operationTime', '$clusterTime' in reply and
          'operationTime' in reply)
    # snapshot isolation and commit
    with client.start_session() as s:
        s.start_transaction()
        check('transaction reads', c.find_one({'_id': 1}, session=s)['v'] == 0)
        c.update_one({'_id': 1}, {'$set': {'v': 5}})
        check('transaction reads its snapshot', c.find_one({'_id': 1}, session=s)['v'] == 0)
        c.insert_one({'_id': 2}, session=s)
        check('uncommitted insert invisible outside', c.find_one({'_id': 2}) is None)
        s.commit_transaction()
    check('committed insert visible', c.find_one({'_id': 2}) == {'_id': 2})
    # abort
    with client.start_session() as s:
        s.start_transaction()
        c.insert_one({'_id': 3}, session=s)
        s.abort_transaction()
    check('aborted insert gone', c.find_one({'_id': 3}) is None)
    # write conflict between two transactions
    s1, s2 = client.start_session(), client.start_session()
    s1.start_transaction()
    s2.start_transaction()
    c.update_one({'_id': 1}, {'$inc': {'v': 1}}, session=s1)
    try:
        c.update_one({'_id': 1}, {'$inc': {'v': 1}}, session=s2)
        check('write conflict', False, 'no error')
    except OperationFailure as e:
        check('write conflict', e.code == 112 and
              'TransientTransactionError' in (e.details or {}).get('errorLabels', []), repr(e.details))
    s2.abort_transaction()
    s1.commit_transaction()
    s1.end_session()
    s2.end_session()
    check('first writer committed', c.find_one({'_id': 1})['v'] == 6)
    # a duplicate key ends the transaction
    with client.start_session() as s:
        s.start_transaction()
        expect_error('duplicate key in a transaction', lambda: c.insert_one({'_id': 1}, session=s),
                     11000)
        expect_error('the transaction was aborted', lambda: c.find_one({}, session=s), 251)
        s.abort_transaction()
    # a command that cannot run in a transaction
    with client.start_session() as s:
        s.start_transaction()
        expect_error('listIndexes refused in a transaction', lambda: db.command(
            'listIndexes', 'txn', session=s), 263)
        s.abort_transaction()
    # a retryable write is applied at most once
    lsid = {'id': Binary(uuid.uuid4().bytes, 4)}
    cmd = SON([('insert', 'txn'), ('documents', [{'_id': 10}]), ('lsid', lsid),
               ('txnNumber', Int64(7))])
    first = db.command(cmd)
    again = db.command(cmd)
    check('retried write answered from the record', first['n'] == 1 and again['n'] == 1 and
          c.count_documents({'_id': 10}) == 1)
    expect_error('an older txnNumber is refused', lambda: db.command(SON([
        ('insert', 'txn'), ('documents', [{'_id': 11}]), ('lsid', lsid),
        ('txnNumber', Int64(6))])), 225)
    expect_error('txnNumber on a read is refused', lambda: db.command(SON([
        ('find', 'txn'), ('lsid', lsid), ('txnNumber', Int64(8))])), 50768)
    expect_error('afterClusterTime ahead of the server', lambda: db.command(SON([
        ('find', 'txn'), ('readConcern', {'afterClusterTime': Timestamp(4000000000, 1)})])), 72)
    # failCommand
    admin = client.admin
    admin.command(SON([('configureFailPoint', 'failCommand'), ('mode', {'times': 1}),
                       ('data', {'failCommands': ['ping'], 'errorCode': 8})]))
    expect_error('failCommand errorCode', lambda: db.command('ping'), 8)
    check('failCommand times: 1', db.command('ping')['ok'] == 1)
    admin.command(SON([('configureFailPoint', 'failCommand'), ('mode', 'alwaysOn'),
                       ('data', {'failCommands': ['ping'], 'errorCode': 2,
                                 'appName': 'someone else'})]))
    check('failCommand appName', db.command('ping')['ok'] == 1)
    admin.command(SON([('configureFailPoint', 'failCommand'), ('mode', {'skip': 1}),
                       ('data', {'failCommands': ['insert'], 'errorCode': 262,
                                 'errorLabels': ['Custom']})]))
    db.command(SON([('insert', 'txn'), ('documents', [{'_id': 20}])]))
    d = expect_error('failCommand skip, then errorLabels', lambda: db.command(SON([
        ('insert', 'txn'), ('documents', [{'_id': 21}]), ('lsid', lsid),
        ('txnNumber', Int64(9))])), 262)
    check('errorLabels replace the labels', (d or {}).get('errorLabels') == ['Custom'], repr(d))
    admin.command(SON([('configureFailPoint', 'failCommand'), ('mode', 'off')]))
    check('failCommand off', c.count_documents({'_id': 21}) == 0 and
          db.command(SON([('insert', 'txn'), ('documents', [{'_id': 21}])]))['n'] == 1)
    admin.command(SON([('configureFailPoint', 'failCommand'), ('mode', {'times': 1}),
                       ('data', {'failCommands': ['insert'],
                                 'writeConcernError': {'code': 91, 'errmsg': 'down'}})]))
    r = db.command(SON([('insert', 'txn'), ('documents', [{'_id': 22}]), ('lsid', lsid),
                        ('txnNumber', Int64(10))]), check=False)
    check('writeConcernError: executed, labelled', r.get('n') == 1 and
          r.get('writeConcernError', {}).get('code') == 91 and
          r.get('errorLabels') == ['RetryableWriteError'], repr(r))
    admin.command(SON([('configureFailPoint', 'failCommand'), ('mode', {'times': 1}),
                       ('data', {'failCommands': ['ping'], 'closeConnection': True})]))
    try:
        db.command('ping')
        check('closeConnection', False, 'no error')
    except pymongo.errors.AutoReconnect:
        check('closeConnection', True)
    admin.command(SON([('configureFailPoint', 'failCommand'), ('mode', {'times': 1}),
                       ('data', {'failCommands': ['ping'], 'blockConnection': True,
                                 'blockTimeMS': 150})]))
    started = time.time()
    db.command('ping')
    check('blockConnection', time.time() - started >= 0.14)
    # maxTimeAlwaysTimeOut scoped by appName (this client gave none): no trigger is taken
    admin.command(SON([('configureFailPoint', 'maxTimeAlwaysTimeOut'), ('mode', {'times': 1}),
                       ('data', {'appName': 'someone else'})]))
    check('maxTimeAlwaysTimeOut appName', db.command(SON([('ping', 1), ('maxTimeMS', 100)]))['ok'] == 1)
    admin.command(SON([('configureFailPoint', 'maxTimeAlwaysTimeOut'), ('mode', {'times': 1})]))
    expect_error('maxTimeAlwaysTimeOut, any client', lambda: db.command(SON([('ping', 1), ('maxTimeMS', 100)])), 50)
    admin.command(SON([('configureFailPoint', 'maxTimeAlwaysTimeOut'), ('mode', 'off')]))


def t_checkout_race(port):
    client = pymongo.MongoClient('127.0.0.1', port, maxPoolSize=25,
                                 serverSelectionTimeoutMS=5000)
    c = client.odm_selftest.books
    c.drop()
    c.insert_one({'_id': 'book', 'available': 3, 'borrowers': []})
    barrier = threading.Barrier(20)
    outcome = []
    lock = threading.Lock()

    def worker(i):
        barrier.wait()
        r = c.update_one({'_id': 'book', 'available': {'$gt': 0}},
                         {'$inc': {'available': -1}, '$push': {'borrowers': 'user%d' % i}})
        with lock:
            outcome.append(r.modified_count)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    book = c.find_one({'_id': 'book'})
    check('20-thread checkout: exactly 3 succeed', sum(outcome) == 3 and len(outcome) == 20,
          repr(outcome))
    check('20-thread checkout: final state', book['available'] == 0 and
          len(book['borrowers']) == 3, repr(book))
    client.close()


def t_unacknowledged(db):
    c = db.get_collection('unack', write_concern=pymongo.WriteConcern(w=0))
    c.insert_one({'_id': 'w0'})
    deadline = time.time() + 5
    while time.time() < deadline and db.unack.count_documents({'_id': 'w0'}) == 0:
        time.sleep(0.05)
    check('w:0 insert (moreToCome) applied', db.unack.count_documents({'_id': 'w0'}) == 1)
    check('connection still usable after w:0', db.command('ping').get('ok') == 1.0)


# ---------------------------------------------------------------------------

def start_server(tmpdir):
    port_file = os.path.join(tmpdir, 'port')
    log = open(os.path.join(tmpdir, 'server.log'), 'w')
    proc = subprocess.Popen(['/usr/bin/python3', SERVER, '--port', '0', '--port-file', port_file],
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 15
    while time.time() < deadline:
        if os.path.exists(port_file):
            with open(port_file) as f:
                text = f.read().strip()
            if text:
                return proc, int(text)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    with open(os.path.join(tmpdir, 'server.log')) as f:
        sys.stderr.write(f.read())
    raise SystemExit('server did not start')


def main():
    tmpdir = tempfile.mkdtemp(prefix='odm-selftest-')
    proc, port = start_server(tmpdir)
    counter = CommandCounter()
    client = pymongo.MongoClient('127.0.0.1', port, serverSelectionTimeoutMS=5000,
                                 event_listeners=[counter])
    db = client.odm_selftest
    tests = [
        ('handshake', lambda: t_handshake(client, db)),
        ('insert/find/getMore/killCursors', lambda: t_insert_find_batches(db, counter)),
        ('update', lambda: t_update(db)),
        ('findAndModify', lambda: t_find_and_modify(db)),
        ('delete/count/distinct', lambda: t_delete_count_distinct(db)),
        ('aggregate', lambda: t_aggregate(db)),
        ('$unionWith', lambda: t_union_with(db)),
        ('indexes', lambda: t_indexes(db)),
        ('decimal128', lambda: t_decimal(db)),
        ('int64', lambda: t_int64(db)),
        ('types', lambda: t_types_roundtrip(db)),
        ('queries', lambda: t_queries(db)),
        ('collections', lambda: t_collections(db, client)),
        ('validators', lambda: t_validators(db)),
        ('refusals', lambda: t_refusals(db, client)),
        ('array updates', lambda: t_array_updates(db)),
        ('sessions, transactions, failCommand', lambda: t_sessions(client, db, port)),
        ('checkout race', lambda: t_checkout_race(port)),
        ('unacknowledged writes', lambda: t_unacknowledged(db)),
    ]
    try:
        for name, fn in tests:
            try:
                fn()
            except Exception:  # noqa: B902
                results['failed'] += 1
                print('FAIL %s raised:\n%s' % (name, traceback.format_exc()))
    finally:
        client.close()
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        check('server exits cleanly on SIGTERM', rc == 0, 'rc=%r' % rc)
        with open(os.path.join(tmpdir, 'server.log')) as f:
            log = f.read()
        check('server log has no internal errors', 'internal error' not in log and
              'Traceback' not in log, log[-3000:])
        if results['failed']:
            print('--- server log (%s) ---\n%s' % (tmpdir, log[-5000:]))
        else:
            shutil.rmtree(tmpdir, ignore_errors=True)
    print('%d passed, %d failed' % (results['passed'], results['failed']))
    return 1 if results['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
