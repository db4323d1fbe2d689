"""Aggregation for the odm test server, delegated to mongomock's pipeline
engine with this server's matcher and comparison plugged in.

mongomock's $match and $sort handlers are replaced by this server's own
(numeric Decimal128, bool != number, mongod array sort rules); its value
comparison hook (filtering.bson_compare, used by $group and by $gt/$lt in
expressions) is replaced by odm_values.bson_cmp.  Stages or expressions that
mongomock does not implement are answered with CommandNotSupported.
"""

import copy

import mongomock
from sentinels import NOTHING as _MM_NOTHING
from mongomock import aggregate as mm_aggregate
from mongomock import filtering as mm_filtering

from bson.decimal128 import Decimal128

from odm_values import (MISSING, DEC_CTX, NumDecimal, ArithOverflow, arith, bson_cmp, canon,
                        is_number, sort_key_of, type_name, type_order)
from odm_query import (CommandError, NotSupported, match, sort_docs, parse_sort,
                       path_candidates)

try:
    from pymongo.errors import OperationFailure as _PyOperationFailure
except ImportError:  # pragma: no cover
    _PyOperationFailure = ()

_MM_OPERATION_FAILURE = getattr(mongomock, 'OperationFailure', Exception)


def _bson_compare(op, a, b, can_compare_types=True):
    a = None if a is MISSING else a
    b = None if b is MISSING else b
    if not can_compare_types and type_order(a) != type_order(b):
        return False
    return op(bson_cmp(a, b), 0)


class _SortWrap(object):
    __slots__ = ('v',)

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return bson_cmp(self.v, other.v) < 0

    def __eq__(self, other):
        return bson_cmp(self.v, other.v) == 0


def _resolve_sort_key(key, doc):
    cands = path_candidates(doc, key.split('.'))
    v = cands[0] if cands else MISSING
    return 1, _SortWrap(None if v is MISSING else v)


def _expr_cmp(a, b):
    a_missing = a is _MM_NOTHING or a is MISSING
    b_missing = b is _MM_NOTHING or b is MISSING
    if a_missing or b_missing:
        # In expressions a missing field sorts below null and equals only
        # another missing value.
        return 0 if (a_missing and b_missing) else (-1 if a_missing else 1)
    return bson_cmp(a, b)


def _handle_comparison_operator(self, op, values):
    if not isinstance(values, list) or len(values) != 2:
        raise CommandError(16020, 'Expression %s takes exactly 2 arguments. %d were passed in.'
                           % (op, len(values) if isinstance(values, list) else 1))
    c = _expr_cmp(self._parse_or_nothing(values[0]), self._parse_or_nothing(values[1]))
    if op == '$cmp':
        return c
    return {'$eq': c == 0, '$ne': c != 0, '$gt': c > 0, '$gte': c >= 0,
            '$lt': c < 0, '$lte': c <= 0}[op]


mm_aggregate._Parser._handle_comparison_operator = _handle_comparison_operator
mm_filtering.bson_compare = _bson_compare
mm_filtering.BsonComparable = _SortWrap
mm_filtering.resolve_sort_key = _resolve_sort_key
mm_filtering.filter_applies = lambda query, doc: match(query, doc)


def _match_stage(docs, database, options):
    if not isinstance(options, dict):
        raise CommandError(15959, 'the match filter must be an expression in an object')
    return [d for d in docs if match(options, d)]


def _sort_stage(docs, database, options):
    if not isinstance(options, dict) or not options:
        raise CommandError(15976, '$sort stage must have at least one sort key')
    parse_sort(options)
    return sort_docs(docs, options)


def _unset_stage(docs, database, options):
    fields = [options] if isinstance(options, str) else options
    if not isinstance(fields, list) or not fields or \
            not all(isinstance(f, str) and f for f in fields):
        raise CommandError(31002, '$unset specification must be a string or an array of '
                           'strings')
    spec = {f: 0 for f in fields}
    return mm_aggregate._PIPELINE_HANDLERS['$project'](docs, database, spec)


def _replace_with_stage(docs, database, options):
    return mm_aggregate._PIPELINE_HANDLERS['$replaceRoot'](docs, database, {'newRoot': options})


def _sort_by_count_stage(docs, database, options):
    grouped = _group_stage(
        docs, database, {'_id': options, 'count': {'$sum': 1}})
    return sort_docs(grouped, {'count': -1})


def _limit_stage(docs, database, options):
    if isinstance(options, bool) or not isinstance(options, (int, float)) or options <= 0 or \
            int(options) != options:
        raise CommandError(15958, 'the limit must be positive')
    return docs[:int(options)]


def _skip_stage(docs, database, options):
    if isinstance(options, bool) or not isinstance(options, (int, float)) or options < 0 or \
            int(options) != options:
        raise CommandError(15956, 'the number to skip cannot be negative')
    return docs[int(options):]


_MM_ACCUMULATE = mm_aggregate._accumulate_group


def _eval_or_missing(expr, doc):
    try:
        v = mm_aggregate._parse_expression(expr, doc, ignore_missing_keys=True)
    except KeyError:
        return MISSING
    return MISSING if v is _MM_NOTHING else v


def _acc_sum(values):
    total = 0
    for v in values:
        if is_number(v):
            try:
                total = arith('add', total, v)
            except ArithOverflow:
                total = float(total) + float(v)  # mongod falls back to double
    return total


def _acc_avg(values):
    nums = [v for v in values if is_number(v)]
    if not nums:
        return None
    if any(isinstance(v, Decimal128) for v in nums):
        total = _acc_sum(nums)
        return NumDecimal.from_decimal(DEC_CTX.divide(total.to_decimal(), len(nums)))
    return sum(float(v) for v in nums) / len(nums)


def _acc_extreme(values, sign):
    best = MISSING
    for v in values:
        if v is None:
            continue
        if best is MISSING or bson_cmp(v, best) * sign > 0:
            best = v
    return None if best is MISSING else best


def _accumulate(field, op, expr, members):
    if op == '$count':
        if expr != {}:
            raise CommandError(4544702, '$count takes no arguments, i.e. $count:{}')
        return len(members)
    if op in ('$first', '$last'):
        if not members:
            return None
        v = _eval_or_missing(expr, members[0] if op == '$first' else members[-1])
        return None if v is MISSING else v
    values = [_eval_or_missing(expr, d) for d in members]
    present = [v for v in values if v is not MISSING]
    if op == '$sum':
        return _acc_sum(present)
    if op == '$avg':
        return _acc_avg(present)
    if op == '$min':
        return _acc_extreme(present, -1)
    if op == '$max':
        return _acc_extreme(present, 1)
    if op == '$push':
        return present
    if op == '$addToSet':
        seen = {}
        for v in present:
            seen.setdefault(canon(v), v)
        return list(seen.values())
    # Anything else: mongomock's implementation (or its NotImplementedError).
    return _MM_ACCUMULATE({field: {op: expr}}, members).get(field)


def _group_stage(docs, database, options):
    if not isinstance(options, dict) or '_id' not in options:
        raise CommandError(15955, "a group specification must include an _id")
    gid = options['_id']
    groups = {}
    for d in docs:
        key = _eval_or_missing(gid, d)
        if key is MISSING:
            key = None
        groups.setdefault(canon(key), (key, []))[1].append(d)
    out = []
    for key, members in sorted(groups.values(), key=lambda kv: sort_key_of(kv[0])):
        nd = {'_id': key}
        for field, spec in options.items():
            if field == '_id':
                continue
            if not isinstance(spec, dict) or len(spec) != 1:
                raise CommandError(40234, "The field '%s' must be an accumulator object" % field)
            op, expr = next(iter(spec.items()))
            nd[field] = _accumulate(field, op, expr, members)
        out.append(nd)
    return out


# Stages that mongod rejects inside a $unionWith sub-pipeline (error 31441).
_NOT_IN_UNION = ('$out', '$merge', '$changeStream')


def _parse_union_with(options):
    """Validate a $unionWith spec as mongod 7.0 does; returns (coll, pipeline)."""
    if isinstance(options, str):
        coll, pipeline = options, []
    elif isinstance(options, dict):
        for k in options:
            if k not in ('coll', 'pipeline'):
                raise CommandError(40415, "BSON field '$unionWith.%s' is an unknown field." % k)
        coll = options.get('coll')
        pipeline = options.get('pipeline')
        if coll is not None and not isinstance(coll, str):
            raise CommandError(14, "BSON field '$unionWith.coll' is the wrong type '%s', "
                               "expected type 'string'" % type_name(coll))
        if pipeline is not None and not isinstance(pipeline, list):
            raise CommandError(14, "BSON field '$unionWith.pipeline' is the wrong type '%s', "
                               "expected type 'array'" % type_name(pipeline))
        pipeline = pipeline or []
        for i, st in enumerate(pipeline):
            if not isinstance(st, dict):
                raise CommandError(14, "BSON field '$unionWith.pipeline.%d' is the wrong type "
                                   "'%s', expected type 'object'" % (i, type_name(st)))
        if coll is None:
            # mongod 6.0+: a collectionless $unionWith must start with $documents.
            if pipeline and next(iter(pipeline[0]), None) == '$documents':
                raise NotSupported('the aggregation stage $documents')
            raise CommandError(9, '$unionWith stage without explicit collection must have a '
                               'pipeline with $documents as first stage')
    else:
        raise CommandError(9, 'the $unionWith stage specification must be an object or '
                           'string, but found %s' % type_name(options))
    if not coll or '\0' in coll or coll.startswith('.'):
        raise CommandError(73, 'Invalid collection name: %s' % coll)
    if coll.startswith('system.') or '$' in coll:
        raise NotSupported('$unionWith on the collection %s' % coll)
    return coll, pipeline


def source_docs(coll, pipeline):
    """Copies of coll's documents in natural order, as the input of pipeline.
    A leading $match is applied here (before copying, using the _id index when
    it can); returns (documents, rest of the pipeline)."""
    if coll is None:
        return [], pipeline
    if pipeline and isinstance(pipeline[0], dict) and len(pipeline[0]) == 1 and \
            isinstance(pipeline[0].get('$match'), dict):
        return [copy.deepcopy(d) for d in coll.matching_docs(pipeline[0]['$match'])], \
            pipeline[1:]
    return [copy.deepcopy(d) for d in coll.docs.values()], pipeline


def _union_with_stage(docs, database, options):
    """$unionWith: the input documents, then the documents that the sub-pipeline
    produces from collection coll of the same database (natural order when the
    sub-pipeline is empty; nothing when coll does not exist).  The sub-pipeline
    runs through the same handlers as a top-level pipeline, so $match/$sort
    use this server's comparison."""
    coll_name, pipeline = _parse_union_with(options)
    out = list(docs)
    source, pipeline = source_docs(database.engine.get_coll(database.db_name, coll_name),
                                   pipeline)
    if pipeline:
        out.extend(mm_aggregate.process_pipeline(source, database, pipeline, None))
    else:
        out.extend(source)
    return out


mm_aggregate._PIPELINE_HANDLERS['$group'] = _group_stage
mm_aggregate._PIPELINE_HANDLERS['$match'] = _match_stage
mm_aggregate._PIPELINE_HANDLERS['$sort'] = _sort_stage
mm_aggregate._PIPELINE_HANDLERS['$unset'] = _unset_stage
mm_aggregate._PIPELINE_HANDLERS['$replaceWith'] = _replace_with_stage
mm_aggregate._PIPELINE_HANDLERS['$sortByCount'] = _sort_by_count_stage
mm_aggregate._PIPELINE_HANDLERS['$limit'] = _limit_stage
mm_aggregate._PIPELINE_HANDLERS['$skip'] = _skip_stage
mm_aggregate._PIPELINE_HANDLERS['$unionWith'] = _union_with_stage

REFUSED_STAGES = {
    '$merge': '$merge', '$changeStream': 'change streams ($changeStream)',
    '$currentOp': '$currentOp', '$listSessions': '$listSessions',
    '$listLocalSessions': '$listLocalSessions', '$collStats': '$collStats',
    '$indexStats': '$indexStats', '$planCacheStats': '$planCacheStats',
    '$geoNear': '$geoNear', '$search': 'Atlas Search ($search)',
    '$searchMeta': 'Atlas Search', '$vectorSearch': 'vector search',
    '$setWindowFields': '$setWindowFields', '$densify': '$densify', '$fill': '$fill',
    '$documents': '$documents', '$redact': '$redact',
    '$bucketAuto': '$bucketAuto', '$out': '$out (only allowed as the last stage)',
    '$listSearchIndexes': 'search indexes', '$changeStreamSplitLargeEvent': 'change streams',
}


class _AggCollection(object):
    """What mongomock's $lookup / $graphLookup need from a foreign collection."""

    def __init__(self, engine, db_name, name):
        self.engine = engine
        self.db_name = db_name
        self.name = name

    def find(self, query=None, *args, **kwargs):
        coll = self.engine.get_coll(self.db_name, self.name)
        if coll is None:
            return []
        return [copy.deepcopy(d) for d in coll.docs.values() if match(query or {}, d)]

    def find_one(self, query=None, *args, **kwargs):
        found = self.find(query)
        return found[0] if found else None


class _AggDatabase(object):
    def __init__(self, engine, db_name):
        self.engine = engine
        self.db_name = db_name

    def get_collection(self, name, *args, **kwargs):
        return _AggCollection(self.engine, self.db_name, name)

    def __getitem__(self, name):
        return self.get_collection(name)


def _check_stages(pipeline, in_union=False):
    for stage in pipeline:
        if not isinstance(stage, dict) or len(stage) != 1:
            raise CommandError(40323, 'A pipeline stage specification object must contain '
                               'exactly one field.')
        name = next(iter(stage))
        if in_union and name in _NOT_IN_UNION:
            raise CommandError(31441, "%s is not allowed within a $unionWith's sub-pipeline"
                               % name)
        if name == '$unionWith':
            _check_stages(_parse_union_with(stage[name])[1], in_union=True)
        if name in REFUSED_STAGES:
            raise NotSupported('the aggregation stage %s' % REFUSED_STAGES[name])
        if name == '$facet':
            for sub in stage[name].values():
                if isinstance(sub, list):
                    _check_stages(sub, in_union)
        if name == '$lookup' and isinstance(stage[name], dict):
            if 'pipeline' in stage[name] or 'let' in stage[name]:
                raise NotSupported('$lookup with let/pipeline (correlated subqueries)')
        if name not in mm_aggregate._PIPELINE_HANDLERS:
            raise CommandError(40324, "Unrecognized pipeline stage name: '%s'" % name)
        if mm_aggregate._PIPELINE_HANDLERS[name] is None:
            raise NotSupported('the aggregation stage %s' % name)


def _translate_exception(e, what):
    if isinstance(e, CommandError):
        return e
    if isinstance(e, NotImplementedError):
        return NotSupported('%s: %s' % (what, e))
    if _PyOperationFailure and isinstance(e, _PyOperationFailure) or \
            isinstance(e, _MM_OPERATION_FAILURE):
        code = getattr(e, 'code', None) or 2
        return CommandError(code if isinstance(code, int) else 2, str(e))
    return NotSupported('%s (mongomock raised %s: %s)' % (what, type(e).__name__, e))


def check_pipeline(pipeline):
    """Validate every stage (and refuse unsupported ones) before anything runs."""
    _check_stages(pipeline)


def run_pipeline(engine, db_name, docs, pipeline):
    _check_stages(pipeline)
    try:
        result = mm_aggregate.process_pipeline(docs, _AggDatabase(engine, db_name),
                                               pipeline, None)
        out = list(result)
    except Exception as e:  # noqa: B902 - translate every failure into a reply
        raise _translate_exception(e, 'this aggregation')
    _check_output(out)
    return out


def _check_output(docs):
    for d in docs:
        _scan(d)


def _scan(v):
    if v is MISSING or v is _MM_NOTHING:
        raise NotSupported('this aggregation (mongomock produced a missing value)')
    if isinstance(v, dict):
        for x in v.values():
            _scan(x)
    elif isinstance(v, (list, tuple)):
        for x in v:
            _scan(x)


def evaluate_expr(expr, doc):
    try:
        return mm_aggregate._parse_expression(expr, doc, ignore_missing_keys=True)
    except Exception as e:  # noqa: B902
        raise _translate_exception(e, '$expr')


