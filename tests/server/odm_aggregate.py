"""Aggregation pipelines for the odm test server.

The stages odm and its planned typed aggregation use are written here, on this
server's matching, sorting and comparison: $match, $sort, $skip, $limit, $group,
$count, $project, $set/$addFields, $unwind, $lookup (localField/foreignField),
$facet and $unionWith. Any other stage is refused.

Expression operators ($arrayElemAt, $concat, ...) are evaluated by mongomock's
expression parser through a subclass of it that does what mongod does where
mongomock does not: comparisons (numbers across types, Decimal128 by value, a
missing value below null), integer arithmetic (int64 stays int64), and the
operators it lacks: $round (half to even, as the manual says) and $dateTrunc (binSize
1, UTC, weeks from Sunday: what odm writes). Nothing of mongomock or pymongo is patched.
"""

import copy
import datetime
import decimal

from sentinels import NOTHING as _MM_NOTHING
from mongomock import OperationFailure as _MongomockFailure
from mongomock import aggregate as mm_aggregate

from bson.decimal128 import Decimal128
from bson.int64 import Int64

from odm_values import (MISSING, DEC_CTX, ArithOverflow, arith, bson_cmp, canon, decimal128,
                        is_number, sort_key_of, type_name)
from odm_query import (CommandError, NotSupported, match, sort_docs, parse_sort,
                       path_candidates, get_path, Projection)


# ---------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------

class _Expression(mm_aggregate._Parser):
    """mongomock's expression parser with mongod's comparisons and integer arithmetic."""

    def _handle_comparison_operator(self, op, values):
        if not isinstance(values, list) or len(values) != 2:
            raise CommandError(16020, 'Expression %s takes exactly 2 arguments. %d were passed in.'
                               % (op, len(values) if isinstance(values, list) else 1))
        a, b = (self._parse_or_nothing(v) for v in values)
        a_missing, b_missing = a is _MM_NOTHING, b is _MM_NOTHING
        if a_missing or b_missing:
            # A missing value sorts below null and equals only another missing value.
            c = 0 if (a_missing and b_missing) else (-1 if a_missing else 1)
        else:
            c = bson_cmp(a, b)
        if op == '$cmp':
            return c
        return {'$eq': c == 0, '$ne': c != 0, '$gt': c > 0, '$gte': c >= 0,
                '$lt': c < 0, '$lte': c <= 0}[op]

    def parse(self, expression):
        if isinstance(expression, dict) and len(expression) == 1:
            if '$round' in expression:
                return self._round(expression['$round'])
            if '$dateTrunc' in expression:
                return self._date_trunc(expression['$dateTrunc'])
        return super().parse(expression)

    def _round(self, args):
        if not isinstance(args, list) or not 1 <= len(args) <= 2:
            raise CommandError(28667, 'Expression $round takes at least 1 argument, and at most 2.')
        number = self._parse_or_nothing(args[0])
        place = self.parse(args[1]) if len(args) == 2 else 0
        if number is _MM_NOTHING or number is None:
            return None
        if isinstance(place, bool) or not isinstance(place, (int, Int64)) or not -20 <= place < 100:
            raise CommandError(51083, 'place must be an integer between -20 and 100, got %r' % (place,))
        if not is_number(number):
            raise CommandError(51081, '$round only supports numeric types, not %s' % type_name(number))
        quantum = decimal.Decimal(1).scaleb(-int(place))
        if isinstance(number, Decimal128):
            value = number.to_decimal()
            if not value.is_finite():
                return number
            return Decimal128(value.quantize(quantum, rounding=decimal.ROUND_HALF_EVEN, context=DEC_CTX))
        if isinstance(number, float):
            if number != number or number in (float('inf'), float('-inf')):
                return number
            return float(decimal.Decimal(repr(number)).quantize(quantum, rounding=decimal.ROUND_HALF_EVEN,
                                                                context=DEC_CTX))
        if place >= 0:
            return number
        rounded = int(decimal.Decimal(int(number)).quantize(quantum, rounding=decimal.ROUND_HALF_EVEN,
                                                              context=DEC_CTX))
        return Int64(rounded) if isinstance(number, Int64) else rounded

    _TRUNC_UNITS = ('year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second')

    def _date_trunc(self, args):
        if not isinstance(args, dict) or 'date' not in args or 'unit' not in args:
            raise CommandError(5439007, "$dateTrunc requires 'date' and 'unit' arguments")
        for option in args:
            if option not in ('date', 'unit', 'binSize'):
                raise NotSupported('$dateTrunc with %s (the odm test server truncates with binSize 1, in UTC, '
                                   'weeks from Sunday)' % option)
        if self.parse(args.get('binSize', 1)) != 1:
            raise NotSupported('$dateTrunc with a binSize other than 1')
        date = self._parse_or_nothing(args['date'])
        unit = self.parse(args['unit'])
        if date is _MM_NOTHING or date is None:
            return None
        if unit not in self._TRUNC_UNITS:
            raise CommandError(5439014, "$dateTrunc parameter 'unit' value cannot be recognized as a time unit: %s"
                               % (unit,))
        if not isinstance(date, datetime.datetime):
            raise CommandError(5439012, "$dateTrunc requires 'date' to be a date, but got %s" % type_name(date))
        if unit == 'year':
            return date.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
        if unit == 'quarter':
            return date.replace(month=(date.month - 1) // 3 * 3 + 1, day=1, hour=0, minute=0, second=0,
                                microsecond=0)
        if unit == 'month':
            return date.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        day = date.replace(hour=0, minute=0, second=0, microsecond=0)
        if unit == 'week':  # Sunday: Python's weekday() is 0 on Monday
            return day - datetime.timedelta(days=(date.weekday() + 1) % 7)
        if unit == 'day':
            return day
        if unit == 'hour':
            return date.replace(minute=0, second=0, microsecond=0)
        if unit == 'minute':
            return date.replace(second=0, microsecond=0)
        return date.replace(microsecond=0)

    def _handle_arithmetic_operator(self, op, values):
        if op in ('$add', '$multiply', '$subtract') and isinstance(values, list):
            numbers = list(self.parse_many(values))
            if any(v is None for v in numbers):
                return None
            if numbers and all(is_number(v) for v in numbers):
                if op == '$subtract':
                    if len(numbers) != 2:
                        raise CommandError(16020, 'Expression $subtract takes exactly 2 '
                                           'arguments. %d were passed in.' % len(numbers))
                    numbers = [numbers[0], arith('mul', numbers[1], -1)]
                result = numbers[0]
                try:
                    for v in numbers[1:]:
                        result = arith('mul' if op == '$multiply' else 'add', result, v)
                except ArithOverflow:
                    raise CommandError(15, '%s overflowed' % op)
                return result
        return super()._handle_arithmetic_operator(op, values)


def _translate_exception(e, what):
    if isinstance(e, CommandError):
        return e
    if isinstance(e, NotImplementedError):
        return NotSupported('%s: %s' % (what, e))
    if isinstance(e, _MongomockFailure):
        code = getattr(e, 'code', None)
        return CommandError(code if isinstance(code, int) else 2, str(e))
    return NotSupported('%s (mongomock raised %s: %s)' % (what, type(e).__name__, e))


def evaluate(expr, doc):
    """The value of an aggregation expression on doc; MISSING for a missing field."""
    try:
        v = _Expression(doc, ignore_missing_keys=True).parse(expr)
    except KeyError:
        return MISSING
    except Exception as e:  # noqa: B902 - every failure becomes an error reply
        raise _translate_exception(e, 'the expression %s' % (expr,))
    return MISSING if v is _MM_NOTHING else v


def evaluate_expr(expr, doc):
    """$expr in a query."""
    return evaluate(expr, doc)


def _set_path(doc, path, value):
    parts = path.split('.')
    for part in parts[:-1]:
        if not isinstance(doc.get(part), dict):
            doc[part] = {}
        doc = doc[part]
    doc[parts[-1]] = value


def _add_computed(out, doc, fields):
    """out with each (path, expression) of fields evaluated on doc (a missing result
    adds nothing)."""
    for field, expr in fields:
        v = evaluate(expr, doc)
        if v is not MISSING:
            _set_path(out, field, v)
    return out


# ---------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------

def _match_stage(docs, ctx, options):
    if not isinstance(options, dict):
        raise CommandError(15959, 'the match filter must be an expression in an object')
    return [d for d in docs if match(options, d)]


def _sort_stage(docs, ctx, options):
    if not isinstance(options, dict) or not options:
        raise CommandError(15976, '$sort stage must have at least one sort key')
    parse_sort(options)
    return sort_docs(docs, options)


def _positive_int(options, code, message, allow_zero):
    if isinstance(options, bool) or not is_number(options) or int(options) != options or \
            options < (0 if allow_zero else 1):
        raise CommandError(code, message)
    return int(options)


def _limit_stage(docs, ctx, options):
    return docs[:_positive_int(options, 15958, 'the limit must be positive', False)]


def _skip_stage(docs, ctx, options):
    return docs[_positive_int(options, 15956, 'the number to skip cannot be negative', True):]


def _count_stage(docs, ctx, options):
    if not isinstance(options, str) or not options or options.startswith('$') or '.' in options:
        raise CommandError(40156, "the count field must be a non-empty string that neither "
                           "starts with '$' nor contains '.'")
    # As mongod: no document at all when nothing reaches $count.
    return [{options: len(docs)}] if docs else []


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
        return decimal128(DEC_CTX.divide(_acc_sum(nums).to_decimal(), len(nums)))
    return sum(float(v) for v in nums) / len(nums)


def _acc_extreme(values, sign):
    best = MISSING
    for v in values:
        if v is None:
            continue
        if best is MISSING or bson_cmp(v, best) * sign > 0:
            best = v
    return None if best is MISSING else best


def _accumulate(op, expr, members):
    if op == '$count':
        if expr != {}:
            raise CommandError(4544702, '$count takes no arguments, i.e. $count:{}')
        return len(members)
    if op in ('$first', '$last'):
        if not members:
            return None
        v = evaluate(expr, members[0] if op == '$first' else members[-1])
        return None if v is MISSING else v
    present = [v for v in (evaluate(expr, d) for d in members) if v is not MISSING]
    if op == '$sum':
        return _acc_sum(present)
    if op == '$avg':
        return _acc_avg(present)
    if op in ('$min', '$max'):
        return _acc_extreme(present, -1 if op == '$min' else 1)
    if op == '$push':
        return present
    if op == '$addToSet':
        seen = {}
        for v in present:
            seen.setdefault(canon(v), v)
        return list(seen.values())
    raise NotSupported('the $group accumulator %s' % op)


def _group_stage(docs, ctx, options):
    if not isinstance(options, dict) or '_id' not in options:
        raise CommandError(15955, "a group specification must include an _id")
    for field, spec in options.items():
        if field != '_id' and (not isinstance(spec, dict) or len(spec) != 1):
            raise CommandError(40234, "The field '%s' must be an accumulator object" % field)
    groups = {}
    for d in docs:
        key = evaluate(options['_id'], d)
        if key is MISSING:
            key = None
        groups.setdefault(canon(key), (key, []))[1].append(d)
    out = []
    # mongod leaves the order of groups unspecified; sorting them makes results stable.
    for key, members in sorted(groups.values(), key=lambda kv: sort_key_of(kv[0])):
        nd = {'_id': key}
        for field, spec in options.items():
            if field != '_id':
                op, expr = next(iter(spec.items()))
                nd[field] = _accumulate(op, expr, members)
        out.append(nd)
    return out


def _is_flag(v):
    return isinstance(v, bool) or (is_number(v) and not isinstance(v, Decimal128))


def _project_stage(docs, ctx, options):
    """Inclusion with computed fields, as mongod's $project (exclusions are refused, as
    in find projections)."""
    if not isinstance(options, dict) or not options:
        raise CommandError(51272, '$project requires at least one output field')
    include_id = True
    included, excluded, computed = [], [], []
    for field, value in options.items():
        if field == '_id' and _is_flag(value):
            include_id = bool(value)
        elif _is_flag(value):
            (included if value else excluded).append(field)
        else:
            computed.append((field, value))
    if excluded and (included or computed):
        raise CommandError(31254, 'Invalid $project :: caused by :: Cannot do exclusion on field '
                           '%s in inclusion projection' % excluded[0])
    out = []
    for d in docs:
        if excluded or (not included and not computed):
            spec = {f: 0 for f in excluded}
            if not include_id:
                spec['_id'] = 0
            out.append(Projection(spec).apply(d) if spec else dict(d))
            continue
        spec = {f: 1 for f in included}
        spec['_id'] = 1 if include_id else 0
        nd = Projection(spec).apply(d) if included or include_id else {}
        out.append(_add_computed(nd, d, computed))
    return out


def _set_stage(docs, ctx, options):
    if not isinstance(options, dict) or not options:
        raise CommandError(40177, 'Invalid $set :: caused by :: specification must have at '
                           'least one field')
    return [_add_computed(copy.deepcopy(d), d, options.items()) for d in docs]


def _unwind_stage(docs, ctx, options):
    spec = options if isinstance(options, dict) else {'path': options}
    path = spec.get('path')
    if not isinstance(path, str) or not path.startswith('$') or len(path) < 2:
        raise CommandError(28818, "$unwind path must be prefixed with a '$': %s" % (path,))
    path = path[1:]
    preserve = bool(spec.get('preserveNullAndEmptyArrays'))
    index_field = spec.get('includeArrayIndex')
    out = []
    for d in docs:
        value = get_path(d, path)
        if isinstance(value, list) and value:
            for i, elem in enumerate(value):
                nd = copy.deepcopy(d)
                _set_path(nd, path, copy.deepcopy(elem))
                if index_field:
                    nd[index_field] = Int64(i)
                out.append(nd)
        elif value is MISSING or value is None or value == []:
            if preserve:
                nd = copy.deepcopy(d)
                if value == []:
                    parent = get_path(nd, path.rsplit('.', 1)[0]) if '.' in path else nd
                    parent.pop(path.rsplit('.', 1)[-1], None)
                if index_field:
                    nd[index_field] = None
                out.append(nd)
        else:
            nd = copy.deepcopy(d)   # a non-array value unwinds to itself
            if index_field:
                nd[index_field] = None
            out.append(nd)
    return out


def _lookup_stage(docs, ctx, options):
    if not isinstance(options, dict) or set(options) != {'from', 'localField', 'foreignField',
                                                         'as'}:
        if isinstance(options, dict) and ('pipeline' in options or 'let' in options):
            raise NotSupported('$lookup with let/pipeline (correlated subqueries)')
        raise CommandError(4570, '$lookup needs from, localField, foreignField and as')
    foreign = ctx.engine.get_coll(ctx.db_name, options['from'])
    out = []
    for d in docs:
        values = []
        for v in path_candidates(d, options['localField'].split('.')):
            values.extend(v if isinstance(v, list) else [None if v is MISSING else v])
        found = foreign.matching_docs({options['foreignField']: {'$in': values}}) \
            if foreign is not None else []
        nd = copy.deepcopy(d)
        _set_path(nd, options['as'], copy.deepcopy(found))
        out.append(nd)
    return out


def _facet_stage(docs, ctx, options):
    if not isinstance(options, dict) or not options:
        raise CommandError(40169, 'the $facet specification must be a non-empty object')
    return [{name: _run(copy.deepcopy(docs), ctx, pipeline)
             for name, pipeline in options.items()}]


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
        if coll is None:
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
    """Copies of coll's documents in natural order, as the input of pipeline. A leading
    $match is applied here (before copying, with the indexes); returns (documents,
    rest of the pipeline)."""
    if coll is None:
        return [], pipeline
    if pipeline and isinstance(pipeline[0], dict) and len(pipeline[0]) == 1 and \
            isinstance(pipeline[0].get('$match'), dict):
        return [copy.deepcopy(d) for d in coll.matching_docs(pipeline[0]['$match'])], \
            pipeline[1:]
    return [copy.deepcopy(d) for d in coll.docs.values()], pipeline


def _union_with_stage(docs, ctx, options):
    """The input documents, then what the sub-pipeline makes of collection coll of the
    same database (all of it, in natural order, without one; nothing when it does not
    exist)."""
    coll_name, pipeline = _parse_union_with(options)
    source, pipeline = source_docs(ctx.engine.get_coll(ctx.db_name, coll_name), pipeline)
    return list(docs) + _run(source, ctx, pipeline)


STAGES = {
    '$match': _match_stage, '$sort': _sort_stage, '$limit': _limit_stage,
    '$skip': _skip_stage, '$count': _count_stage, '$group': _group_stage,
    '$project': _project_stage, '$set': _set_stage, '$addFields': _set_stage,
    '$unwind': _unwind_stage, '$lookup': _lookup_stage, '$facet': _facet_stage,
    '$unionWith': _union_with_stage,
}

# mongod's stages this server does not implement.
KNOWN_STAGES = frozenset([
    '$out', '$merge', '$changeStream', '$currentOp', '$listSessions', '$listLocalSessions',
    '$collStats', '$indexStats', '$planCacheStats', '$geoNear', '$search', '$searchMeta',
    '$vectorSearch', '$setWindowFields', '$densify', '$fill', '$documents', '$redact',
    '$bucket', '$bucketAuto', '$sample', '$graphLookup', '$sortByCount', '$replaceRoot',
    '$replaceWith', '$unset', '$listSearchIndexes', '$changeStreamSplitLargeEvent'])


def _check_stages(pipeline, in_union=False):
    for stage in pipeline:
        if not isinstance(stage, dict) or len(stage) != 1:
            raise CommandError(40323, 'A pipeline stage specification object must contain '
                               'exactly one field.')
        name = next(iter(stage))
        if in_union and name in _NOT_IN_UNION:
            raise CommandError(31441, "%s is not allowed within a $unionWith's sub-pipeline"
                               % name)
        if name in KNOWN_STAGES:
            raise NotSupported('the aggregation stage %s' % name)
        if name not in STAGES:
            raise CommandError(40324, "Unrecognized pipeline stage name: '%s'" % name)
        if name == '$unionWith':
            _check_stages(_parse_union_with(stage[name])[1], in_union=True)
        if name == '$facet' and isinstance(stage[name], dict):
            for sub in stage[name].values():
                if not isinstance(sub, list):
                    raise CommandError(40170, 'a $facet sub-pipeline must be an array')
                _check_stages(sub, in_union)


class _Context(object):
    def __init__(self, engine, db_name):
        self.engine = engine
        self.db_name = db_name


def _run(docs, ctx, pipeline):
    for stage in pipeline:
        name, options = next(iter(stage.items()))
        docs = STAGES[name](docs, ctx, options)
    return docs


def check_pipeline(pipeline):
    """Validate every stage (and refuse unsupported ones) before anything runs."""
    _check_stages(pipeline)


def run_pipeline(engine, db_name, docs, pipeline):
    _check_stages(pipeline)
    return _run(docs, _Context(engine, db_name), pipeline)
