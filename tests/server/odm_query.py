"""Query matching, sorting, projection and update operators for the odm test
server, following mongod's documented semantics.  Unsupported features raise
NotSupported (answered with code 115 CommandNotSupported) instead of giving
an approximate answer.
"""

import copy
import functools
import re

from bson import Regex
from bson.decimal128 import Decimal128

from odm_values import (MISSING, RE_TYPE, EMPTY_ARRAY_SORT_KEY,
                        bson_cmp, bson_eq, canon, is_number, arith,
                        zero_like, ArithOverflow, type_order, type_name,
                        fmt_value, fmt_doc)

SUPPORT_HINT = '; run the suite against a real mongod (docker-compose.yml)'

CODE_NAMES = {
    1: 'InternalError', 2: 'BadValue', 9: 'FailedToParse', 11: 'UserNotFound',
    13: 'Unauthorized', 14: 'TypeMismatch', 20: 'IllegalOperation',
    22: 'InvalidBSON', 26: 'NamespaceNotFound', 27: 'IndexNotFound',
    28: 'PathNotViable', 40: 'ConflictingUpdateOperators', 43: 'CursorNotFound',
    48: 'NamespaceExists', 52: 'DollarPrefixedFieldName', 53: 'InvalidIdField',
    54: 'NotSingleValueField', 56: 'EmptyFieldName', 59: 'CommandNotFound',
    66: 'ImmutableField', 67: 'CannotCreateIndex', 72: 'InvalidOptions',
    73: 'InvalidNamespace', 85: 'IndexOptionsConflict',
    86: 'IndexKeySpecsConflict', 121: 'DocumentValidationFailure', 115: 'CommandNotSupported',
    197: 'InvalidIndexSpecificationOption', 8: 'UnknownError',
    11000: 'DuplicateKey', 15: 'Overflow', 16: 'InvalidLength',
    40352: 'Location40352', 51246: 'Location51246', 31254: 'Location31254',
    10003: 'Location10003', 50: 'MaxTimeMSExpired', 64: 'WriteConcernFailed',
    79: 'UnknownReplWriteConcern', 100: 'UnsatisfiableWriteConcern', 112: 'WriteConflict',
    117: 'ConflictingOperationInProgress', 171: 'CannotIndexParallelArrays',
    225: 'TransactionTooOld', 251: 'NoSuchTransaction', 256: 'TransactionCommitted',
    263: 'OperationNotSupportedInTransaction', 6: 'HostUnreachable', 7: 'HostNotFound',
    89: 'NetworkTimeout', 91: 'ShutdownInProgress', 189: 'PrimarySteppedDown',
    262: 'ExceededTimeLimit', 9001: 'SocketException', 10107: 'NotWritablePrimary',
    11600: 'InterruptedAtShutdown', 11602: 'InterruptedDueToReplStateChange',
    13435: 'NotPrimaryNoSecondaryOk', 13436: 'NotPrimaryOrSecondary',
}


class CommandError(Exception):
    def __init__(self, code, errmsg, **extra):
        Exception.__init__(self, errmsg)
        self.code = code
        self.errmsg = errmsg
        self.extra = extra

    @property
    def code_name(self):
        return CODE_NAMES.get(self.code, 'Location%d' % self.code)

    def reply(self):
        doc = {'ok': 0.0, 'errmsg': self.errmsg, 'code': self.code,
               'codeName': self.code_name}
        doc.update(self.extra)
        return doc

    def write_error(self, index):
        doc = {'index': index, 'code': self.code, 'errmsg': self.errmsg}
        doc.update(self.extra)
        return doc


class NotSupported(CommandError):
    def __init__(self, feature):
        CommandError.__init__(
            self, 115, 'odm test server does not support %s%s' % (feature, SUPPORT_HINT))


def bad_value(msg):
    return CommandError(2, msg)


# ---------------------------------------------------------------------------
# Paths
# ---------------------------------------------------------------------------

def path_candidates(value, parts, i=0):
    """All values a dotted path reaches, with implicit array traversal.
    MISSING marks a branch where the path ends."""
    if i == len(parts):
        return [value]
    part = parts[i]
    if isinstance(value, dict):
        if part in value:
            return path_candidates(value[part], parts, i + 1)
        return [MISSING]
    if isinstance(value, list):
        out = []
        if part.isdigit():
            idx = int(part)
            if idx < len(value):
                out.extend(path_candidates(value[idx], parts, i + 1))
        for elem in value:
            if isinstance(elem, dict):
                out.extend(path_candidates(elem, parts, i))
        if not out:
            out.append(MISSING)
        return out
    return [MISSING]


def get_path(doc, path):
    """Plain lookup (numeric parts index arrays), no fan-out; MISSING if absent."""
    cur = doc
    for part in path.split('.'):
        if isinstance(cur, dict):
            if part not in cur:
                return MISSING
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit():
            idx = int(part)
            if idx >= len(cur):
                return MISSING
            cur = cur[idx]
        else:
            return MISSING
    return cur


# ---------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------

LOGICAL = ('$and', '$or', '$nor')
REFUSED_TOP = {'$where': '$where (server-side JavaScript)',
               '$text': '$text search',
               '$jsonSchema': '$jsonSchema',
               '$sampleRate': '$sampleRate'}
REFUSED_OPS = {
    '$bitsAllSet': 'the $bitsAllSet query operator',
    '$bitsAllClear': 'the $bitsAllClear query operator',
    '$bitsAnySet': 'the $bitsAnySet query operator',
    '$bitsAnyClear': 'the $bitsAnyClear query operator',
    '$geoWithin': 'geospatial queries ($geoWithin)',
    '$geoIntersects': 'geospatial queries ($geoIntersects)',
    '$near': 'geospatial queries ($near)',
    '$nearSphere': 'geospatial queries ($nearSphere)',
    '$within': 'geospatial queries ($within)',
    '$box': 'geospatial queries', '$center': 'geospatial queries',
    '$centerSphere': 'geospatial queries', '$polygon': 'geospatial queries',
    '$geometry': 'geospatial queries', '$maxDistance': 'geospatial queries',
    '$minDistance': 'geospatial queries', '$where': '$where',
    '$mod': 'the $mod query operator',
}

_expr_evaluator = [None]


def set_expr_evaluator(fn):
    _expr_evaluator[0] = fn


def is_operator_doc(cond):
    if not isinstance(cond, dict) or not cond:
        return False
    first = next(iter(cond))
    return first.startswith('$')


def match(query, doc):
    if not isinstance(query, dict):
        raise bad_value('the match filter must be an expression in an object')
    for key, cond in query.items():
        if key.startswith('$'):
            if key in LOGICAL:
                if not isinstance(cond, list) or not cond:
                    raise bad_value('%s must be a nonempty array' % key)
                for sub in cond:
                    if not isinstance(sub, dict):
                        raise bad_value('$or/$and/$nor entries need to be full objects')
                if key == '$and':
                    if not all(match(sub, doc) for sub in cond):
                        return False
                elif key == '$or':
                    if not any(match(sub, doc) for sub in cond):
                        return False
                else:
                    if any(match(sub, doc) for sub in cond):
                        return False
            elif key == '$expr':
                if not expr_truthy(_expr_evaluator[0](cond, doc)):
                    return False
            elif key == '$comment':
                continue
            elif key in REFUSED_TOP:
                raise NotSupported(REFUSED_TOP[key])
            else:
                raise bad_value('unknown top level operator: %s' % key)
        else:
            if not match_field(doc, key, cond):
                return False
    return True


def expr_truthy(v):
    if v is None or v is MISSING or v is False:
        return False
    if is_number(v):
        return bool(v != 0) if not isinstance(v, Decimal128) else not v.to_decimal().is_zero()
    return True


def _regex_from(pattern, options):
    if isinstance(pattern, Regex):
        p, flags = pattern.pattern, pattern.flags
        if isinstance(flags, int):
            from odm_values import regex_flags_to_str
            flags = regex_flags_to_str(flags)
        if options:
            flags = options
    elif isinstance(pattern, RE_TYPE):
        return pattern
    elif isinstance(pattern, str):
        p, flags = pattern, options or ''
    else:
        raise bad_value('$regex has to be a string')
    pyflags = 0
    for ch in flags:
        if ch == 'i':
            pyflags |= re.IGNORECASE
        elif ch == 'm':
            pyflags |= re.MULTILINE
        elif ch == 's':
            pyflags |= re.DOTALL
        elif ch == 'x':
            pyflags |= re.VERBOSE
        elif ch == 'u':
            pass
        else:
            raise bad_value("invalid flag in regex options: %s" % ch)
    try:
        return re.compile(p, pyflags)
    except re.error as e:
        raise CommandError(51091, 'Regular expression is invalid: %s' % e)


def _regex_matches(v, rx):
    return isinstance(v, str) and rx.search(v) is not None


def _expanded(cands):
    """Candidates plus the elements of array candidates (one level)."""
    for v in cands:
        yield v
        if isinstance(v, list):
            for e in v:
                yield e


def _eq_value(v, x):
    if x is None:
        return v is None or v is MISSING
    if v is MISSING:
        return False
    return bson_eq(v, x)


class _InList(object):
    """An $in list prepared once: hashed keys of its values (canon equality is
    bson_eq), whether it holds null, and its regexes."""
    __slots__ = ('source', 'keys', 'has_null', 'regexes')

    def __init__(self, arr):
        self.source = arr   # keeps the list alive while it is cached by id()
        self.keys = set()
        self.has_null = False
        self.regexes = []
        for x in arr:
            if isinstance(x, (Regex, RE_TYPE)):
                self.regexes.append(_regex_from(x, None))
            elif is_operator_doc(x):
                raise bad_value('cannot nest $ under $in')
            elif x is None:
                self.has_null = True
            else:
                self.keys.add(canon(x))

    def contains(self, v):
        if v is MISSING or v is None:
            return self.has_null
        try:
            if canon(v) in self.keys:
                return True
        except TypeError:
            pass
        return any(_regex_matches(v, rx) for rx in self.regexes)


# The $in lists of the command being run (its query is matched against many documents);
# the engine forgets them after each command.
_in_lists = {}


def forget_prepared_queries():
    _in_lists.clear()


def _in_match(cands, arr):
    if not isinstance(arr, list):
        raise bad_value('$in needs an array')
    prepared = _in_lists.get(id(arr))
    if prepared is None or prepared.source is not arr:
        if len(_in_lists) >= 16:
            _in_lists.clear()
        prepared = _in_lists[id(arr)] = _InList(arr)
    return any(prepared.contains(v) for v in _expanded(cands))


def _compare_match(cands, op, x):
    tx = type_order(x)
    for v in _expanded(cands):
        if v is MISSING:
            v = None
        tv = type_order(v)
        if tv == tx:
            c = bson_cmp(v, x)
            if (op == '$gt' and c > 0) or (op == '$gte' and c >= 0) or \
               (op == '$lt' and c < 0) or (op == '$lte' and c <= 0):
                return True
    return False


# $type's aliases and codes (https://www.mongodb.com/docs/manual/reference/operator/query/type/)
# for the types this server stores; 'number' is any numeric type.
_TYPE_CODES = {1: 'double', 2: 'string', 3: 'object', 4: 'array', 5: 'binData', 7: 'objectId', 8: 'bool',
               9: 'date', 10: 'null', 16: 'int', 18: 'long', 19: 'decimal'}
_TYPE_ALIASES = set(_TYPE_CODES.values()) | {'number', 'undefined', 'regex', 'dbPointer', 'javascript', 'symbol',
                                              'javascriptWithScope', 'timestamp', 'minKey', 'maxKey'}


def _type_names(arg):
    names = set()
    for a in (arg if isinstance(arg, list) else [arg]):
        if isinstance(a, str) and a in _TYPE_ALIASES:
            names.add(a)
        elif is_number(a) and not isinstance(a, bool) and int(a) == a and int(a) in _TYPE_CODES:
            names.add(_TYPE_CODES[int(a)])
        elif is_number(a) and not isinstance(a, bool) and int(a) == a and int(a) in (-1, 6, 11, 12, 13, 14, 15,
                                                                                       17, 127):
            names.add('unstored')  # a type this server never stores: matches nothing
        else:
            raise bad_value('$type: unknown type %r' % (a,))
    if not names:
        raise bad_value('$type must match at least one type')
    return names


def _type_match(cands, arg):
    names = _type_names(arg)
    for v in _expanded(cands):
        if v is MISSING:
            continue
        t = type_name(v)
        if t in names or ('number' in names and t in ('int', 'long', 'double', 'decimal')):
            return True
    return False


def _elem_match_value_mode(q):
    return is_operator_doc(q) and all(
        k.startswith('$') and k not in LOGICAL and k != '$expr' for k in q)


def elem_matches(elem, q):
    if _elem_match_value_mode(q):
        return match_field({'v': elem}, 'v', q, no_expand=True)
    if not isinstance(elem, dict):
        return False
    return match(q, elem)


def _elem_match(cands, q):
    if not isinstance(q, dict):
        raise bad_value('$elemMatch needs an Object')
    for v in cands:
        if isinstance(v, list):
            for e in v:
                if elem_matches(e, q):
                    return True
    return False


def _all_match(doc, path, cands, arr):
    if not isinstance(arr, list):
        raise bad_value('$all needs an array')
    if not arr:
        return False
    for x in arr:
        if isinstance(x, dict) and '$elemMatch' in x:
            if not _elem_match(cands, x['$elemMatch']):
                return False
        elif isinstance(x, (Regex, RE_TYPE)):
            rx = _regex_from(x, None)
            if not any(_regex_matches(v, rx) for v in _expanded(cands)):
                return False
        else:
            if not any(_eq_value(v, x) for v in _expanded(cands)):
                return False
    return True


def match_field(doc, path, cond, no_expand=False):
    cands = path_candidates(doc, path.split('.'))
    if is_operator_doc(cond):
        for op in cond:
            if not op.startswith('$'):
                raise bad_value('unknown operator: %s' % op)
        for op, arg in cond.items():
            if not _eval_operator(doc, path, cands, op, arg, cond):
                return False
        return True
    if isinstance(cond, (Regex, RE_TYPE)):
        rx = _regex_from(cond, None)
        return any(_regex_matches(v, rx) for v in _expanded(cands))
    return any(_eq_value(v, cond) for v in _expanded(cands))


def _eval_operator(doc, path, cands, op, arg, cond):
    if op == '$eq':
        return any(_eq_value(v, arg) for v in _expanded(cands))
    if op == '$ne':
        return not any(_eq_value(v, arg) for v in _expanded(cands))
    if op in ('$gt', '$gte', '$lt', '$lte'):
        if isinstance(arg, (Regex, RE_TYPE)):
            raise bad_value('Can\'t have RegEx as arg to predicate over field \'%s\'.' % path)
        return _compare_match(cands, op, arg)
    if op == '$in':
        return _in_match(cands, arg)
    if op == '$nin':
        return not _in_match(cands, arg)
    if op == '$exists':
        exists = any(v is not MISSING for v in cands)
        return exists if expr_truthy(arg) else not exists
    if op == '$regex':
        rx = _regex_from(arg, cond.get('$options'))
        return any(_regex_matches(v, rx) for v in _expanded(cands))
    if op == '$options':
        if '$regex' not in cond:
            raise bad_value('$options needs a $regex')
        return True
    if op == '$size':
        if not is_number(arg) or int(arg) != arg or arg < 0:
            raise bad_value('$size needs a non-negative integer')
        return any(isinstance(v, list) and len(v) == int(arg) for v in cands)
    if op == '$all':
        return _all_match(doc, path, cands, arg)
    if op == '$elemMatch':
        return _elem_match(cands, arg)
    if op == '$not':
        if isinstance(arg, (Regex, RE_TYPE)):
            rx = _regex_from(arg, None)
            return not any(_regex_matches(v, rx) for v in _expanded(cands))
        if not isinstance(arg, dict) or not arg:
            raise bad_value('$not needs a regex or a document')
        if not is_operator_doc(arg):
            raise bad_value('$not cannot have a value that is not an operator')
        return not match_field(doc, path, arg)
    if op == '$comment':
        return True
    if op == '$type':
        return _type_match(cands, arg)
    if op in REFUSED_OPS:
        raise NotSupported(REFUSED_OPS[op])
    raise bad_value('unknown operator: %s' % op)


# ---------------------------------------------------------------------------
# Positional ($) support: which array element did the query match?
# ---------------------------------------------------------------------------

def _leaf_conditions(query, out):
    for key, cond in query.items():
        if key == '$and':
            for sub in cond:
                _leaf_conditions(sub, out)
        elif key.startswith('$'):
            continue
        else:
            out.append((key, cond))
    return out


def positional_index(query, array_path, array_value):
    """Index of the array element at array_path that the query matched, or
    None."""
    if not isinstance(array_value, list):
        return None
    conds = []
    for key, cond in _leaf_conditions(query, []):
        if key == array_path:
            conds.append((None, cond))
        elif key.startswith(array_path + '.'):
            conds.append((key[len(array_path) + 1:], cond))
    if not conds:
        return None

    def elem_ok(elem, rest, cond):
        if rest is None:
            if isinstance(cond, dict) and set(cond) == {'$elemMatch'}:
                return elem_matches(elem, cond['$elemMatch'])
            return match_field({'v': elem}, 'v', cond)
        if isinstance(elem, (dict, list)):
            return match_field(elem, rest, cond)
        return False

    for i, elem in enumerate(array_value):
        if all(elem_ok(elem, rest, cond) for rest, cond in conds):
            return i
    for i, elem in enumerate(array_value):
        if any(elem_ok(elem, rest, cond) for rest, cond in conds):
            return i
    return None


# ---------------------------------------------------------------------------
# Sorting
# ---------------------------------------------------------------------------

def parse_sort(sort):
    if sort is None:
        return []
    if not isinstance(sort, dict):
        raise bad_value('sort must be an object')
    out = []
    for k, v in sort.items():
        if isinstance(v, dict):
            raise NotSupported('$meta sort (%s)' % k)
        if not is_number(v) or v not in (1, -1):
            raise bad_value('$sort key ordering must be 1 (for ascending) or -1 (for descending)')
        out.append((k, 1 if v > 0 else -1))
    return out


def _sort_value(doc, path, direction):
    cands = path_candidates(doc, path.split('.'))
    flat = []
    empty_array = False
    for v in cands:
        if v is MISSING:
            flat.append(None)
        elif isinstance(v, list):
            if not v:
                empty_array = True
            flat.extend(v)
        else:
            flat.append(v)
    if not flat:
        return EMPTY_ARRAY_SORT_KEY if empty_array else None
    best = flat[0]
    for v in flat[1:]:
        c = bson_cmp(v, best)
        if (direction > 0 and c < 0) or (direction < 0 and c > 0):
            best = v
    return best


def sort_docs(docs, sort_spec):
    spec = parse_sort(sort_spec) if not isinstance(sort_spec, list) else sort_spec
    if not spec:
        return list(docs)
    keyed = [([_sort_value(d, p, dr) for p, dr in spec], d) for d in docs]

    def cmp(a, b):
        for (p, dr), va, vb in zip(spec, a[0], b[0]):
            c = bson_cmp(va, vb)
            if c:
                return c * dr
        return 0
    keyed.sort(key=functools.cmp_to_key(cmp))
    return [d for _, d in keyed]


# ---------------------------------------------------------------------------
# Find projection
# ---------------------------------------------------------------------------

def _truthy_projection(v):
    if isinstance(v, bool):
        return v
    if is_number(v):
        return not (v == 0)
    return None


class Projection(object):
    """A find projection: fields to include (dotted paths too), and _id unless it is
    excluded. Exclusion, $slice, $elemMatch and positional projections are refused."""

    def __init__(self, spec):
        self.spec = spec or {}
        self.include_id = True
        self.inclusions = []
        for k, v in self.spec.items():
            t = _truthy_projection(v)
            if isinstance(v, dict) or t is None:
                raise NotSupported('%s in find projections (%s)'
                                   % ('$slice and $elemMatch' if isinstance(v, dict) else
                                      'computed or literal values', k))
            if k == '_id':
                self.include_id = t
            elif not t:
                raise NotSupported('exclusion projections (%s: 0)' % k)
            elif '$' in k:
                raise NotSupported('positional projections (%s)' % k)
            else:
                self.inclusions.append(k)
        for i, a in enumerate(self.inclusions):
            for b in self.inclusions[i + 1:]:
                if a == b or a.startswith(b + '.') or b.startswith(a + '.'):
                    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
                    raise CommandError(31250, 'Path collision at %s remaining portion %s'
                                       % (longer, longer[len(shorter) + 1:] or longer))
        self.empty = not self.spec

    def apply(self, doc, query=None):
        if self.empty:
            return doc
        if not self.inclusions:
            return doc if self.include_id else {k: v for k, v in doc.items() if k != '_id'}
        tree = {}
        for p in self.inclusions:
            _tree_add(tree, p.split('.'))
        if self.include_id:
            tree['_id'] = True
        return _include(doc, tree)


def _tree_add(tree, parts):
    node = tree
    for i, p in enumerate(parts):
        if i == len(parts) - 1:
            node[p] = True
        else:
            nxt = node.get(p)
            if nxt is True:
                return
            if nxt is None:
                nxt = node[p] = {}
            node = nxt


def _include(value, tree):
    out = {}
    for k, v in value.items():
        if k not in tree:
            continue
        sub = tree[k]
        if sub is True:
            out[k] = v
        elif isinstance(v, dict):
            out[k] = _include(v, sub)
        elif isinstance(v, list):
            out[k] = _include_array(v, sub)
    return out


def _include_array(arr, tree):
    res = []
    for e in arr:
        if isinstance(e, dict):
            res.append(_include(e, tree))
        elif isinstance(e, list):
            res.append(_include_array(e, tree))
    return res


# ---------------------------------------------------------------------------
# Update operators
# ---------------------------------------------------------------------------

UPDATE_OPERATORS = ('$set', '$unset', '$inc', '$mul', '$min', '$max', '$setOnInsert',
                    '$push', '$addToSet', '$pop', '$pull', '$pullAll', '$rename')
REFUSED_UPDATE_OPERATORS = ('$bit', '$currentDate')


def is_operator_update(update):
    return isinstance(update, dict) and any(k.startswith('$') for k in update)


def _field_order_key(path):
    return tuple((0, int(p), '') if p.isdigit() else (1, 0, p) for p in path.split('.'))


def check_update_supported(update):
    """Refuse features this server does not implement, before any write."""
    if isinstance(update, list):
        raise NotSupported('pipeline-style updates (update given as an array)')
    if not isinstance(update, dict):
        raise CommandError(9, 'Update argument must be either an object or an array')


# An arrayFilters identifier: a lowercase letter, then letters and digits.
_IDENTIFIER = re.compile(r'^[a-z][a-zA-Z0-9]*$')


def _filter_identifiers(flt, out):
    for key, cond in flt.items():
        if key in LOGICAL and isinstance(cond, list):
            for sub in cond:
                if isinstance(sub, dict):
                    _filter_identifiers(sub, out)
        elif not key.startswith('$'):
            out.add(key.split('.', 1)[0])
    return out


def parse_array_filters(array_filters, update):
    """{identifier: filter} from an update's arrayFilters, checked as mongod does: one
    identifier per filter, each used by a $[<identifier>] of the update and each
    $[<identifier>] given a filter."""
    filters = {}
    if array_filters is not None:
        if not isinstance(array_filters, list):
            raise CommandError(14, "BSON field 'arrayFilters' is the wrong type '%s', expected "
                               "type 'array'" % type_name(array_filters))
        for flt in array_filters:
            if not isinstance(flt, dict):
                raise CommandError(14, 'arrayFilters must be an array of objects')
            names = _filter_identifiers(flt, set())
            if len(names) != 1:
                raise CommandError(9, 'Error parsing array filter :: caused by :: Expected a '
                                   'single top-level field name, found %s'
                                   % (', '.join("'%s'" % n for n in sorted(names)) or 'none'))
            name = names.pop()
            if not _IDENTIFIER.match(name):
                raise CommandError(2, 'Error parsing array filter :: caused by :: The top-level '
                                   'field name must be an alphanumeric string beginning with a '
                                   "lowercase letter, found '%s'" % name)
            if name in filters:
                raise CommandError(9, 'Found multiple array filters with the same top-level '
                                   "field name %s" % name)
            filters[name] = flt
    used = set()
    if is_operator_update(update):
        for fields in update.values():
            if not isinstance(fields, dict):
                continue
            for path in fields:
                for part in str(path).split('.'):
                    if part.startswith('$[') and part.endswith(']') and part != '$[]':
                        name = part[2:-1]
                        if name not in filters:
                            raise CommandError(2, "No array filter found for identifier '%s' in "
                                               "path '%s'" % (name, path))
                        used.add(name)
    for name in filters:
        if name not in used:
            raise CommandError(9, "The array filter for identifier '%s' was not used in the "
                               "update %s" % (name, fmt_value(update)))
    return filters


class UpdateContext(object):
    def __init__(self, query, is_insert, doc_id, array_filters=None):
        self.query = query
        self.is_insert = is_insert
        self.doc_id = doc_id
        self.array_filters = array_filters or {}


def _id_repr(ctx):
    return fmt_doc([('_id', ctx.doc_id)])


def _resolve_positional(doc, parts, ctx, full_path):
    if '$' not in parts:
        return parts
    if parts.count('$') > 1:
        raise bad_value("Too many positional (i.e. '$') elements found in path '%s'" % full_path)
    i = parts.index('$')
    if i == 0:
        raise bad_value("Cannot have positional (i.e. '$') element in the first position in "
                        "path '%s'" % full_path)
    array_path = '.'.join(parts[:i])
    if ctx.is_insert:
        raise bad_value('The positional operator did not find the match needed from the query.')
    arr = get_path(doc, array_path)
    idx = positional_index(ctx.query, array_path, arr)
    if idx is None:
        raise bad_value('The positional operator did not find the match needed from the query.')
    return parts[:i] + [str(idx)] + parts[i + 1:]


def _split_path(path):
    if not isinstance(path, str) or path == '':
        raise CommandError(56, 'An empty update path is not valid.')
    parts = path.split('.')
    for p in parts:
        if p == '':
            raise CommandError(56, "The update path '%s' contains an empty field name, which is "
                               "not allowed." % path)
    return parts


def _navigate(doc, parts, create, full_path):
    """Return (container, last_key) for parts, creating intermediate documents
    when create is set.  Returns (None, None) when the path cannot exist and
    create is False."""
    cur = doc
    for i, p in enumerate(parts[:-1]):
        if isinstance(cur, dict):
            if p not in cur:
                if not create:
                    return None, None
                cur[p] = {}
            nxt = cur[p]
            if not isinstance(nxt, (dict, list)):
                if not create:
                    return None, None
                raise CommandError(28, "Cannot create field '%s' in element {%s: %s}"
                                   % (parts[i + 1], p, fmt_value(nxt)))
            cur = nxt
        elif isinstance(cur, list):
            if not p.isdigit():
                if not create:
                    return None, None
                raise CommandError(28, "Cannot create field '%s' in element {%s: %s}"
                                   % (p, parts[i - 1] if i else '', fmt_value(cur)))
            idx = int(p)
            if idx >= len(cur):
                if not create:
                    return None, None
                cur.extend([None] * (idx + 1 - len(cur)))
                cur[idx] = {}
            nxt = cur[idx]
            if not isinstance(nxt, (dict, list)):
                if not create:
                    return None, None
                raise CommandError(28, "Cannot create field '%s' in element {%s: %s}"
                                   % (parts[i + 1], p, fmt_value(nxt)))
            cur = nxt
        else:
            return None, None
    return cur, parts[-1]


def _get_in(container, key):
    if isinstance(container, dict):
        return container.get(key, MISSING)
    if isinstance(container, list):
        if key.isdigit() and int(key) < len(container):
            return container[int(key)]
        return MISSING
    return MISSING


def _set_in(container, key, value, full_path):
    if isinstance(container, dict):
        container[key] = value
    elif isinstance(container, list):
        if not key.isdigit():
            raise CommandError(28, "Cannot create field '%s' in element {%s}"
                               % (key, fmt_value(container)))
        idx = int(key)
        if idx >= len(container):
            container.extend([None] * (idx + 1 - len(container)))
        container[idx] = value
    else:
        raise CommandError(28, "Cannot create field '%s'" % full_path)


def _num_op(doc, parts, full, arg, ctx, op_name, opkind):
    if not is_number(arg):
        word = 'increment' if opkind == 'add' else 'multiply'
        raise CommandError(14, 'Cannot %s with non-numeric argument: {%s: %s}'
                           % (word, full, fmt_value(arg)))
    container, key = _navigate(doc, parts, True, full)
    cur = _get_in(container, key)
    if cur is MISSING:
        newval = arg if opkind == 'add' else zero_like(arg)
        _set_in(container, key, newval, full)
        return
    if not is_number(cur):
        raise CommandError(14, "Cannot apply %s to a value of non-numeric type. %s has the field "
                           "'%s' of non-numeric type %s" % (op_name, _id_repr(ctx), key,
                                                            type_name(cur)))
    try:
        newval = arith(opkind, cur, arg)
    except ArithOverflow:
        raise CommandError(2, 'Failed to apply %s operations to current value (%s) for document %s'
                           % (op_name, fmt_value(cur), _id_repr(ctx)))
    _set_in(container, key, newval, full)


def _push_sort(values, spec):
    if is_number(spec):
        d = 1 if spec > 0 else -1
        return sorted(values, key=functools.cmp_to_key(lambda a, b: bson_cmp(a, b) * d))
    if isinstance(spec, dict):
        for v in spec.values():
            if not is_number(v) or v not in (1, -1):
                raise bad_value('The $sort element value must be either 1 or -1')
        return sort_docs(values, [(k, 1 if v > 0 else -1) for k, v in spec.items()])
    raise bad_value('The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} '
                    'to sort embedded fields')


def _array_at(doc, parts, full, ctx, op_name, create):
    container, key = _navigate(doc, parts, create, full)
    if container is None:
        return None, None, MISSING
    cur = _get_in(container, key)
    if cur is not MISSING and not isinstance(cur, list):
        raise CommandError(2, "The field '%s' must be an array but is of type %s in document %s"
                           % (full, type_name(cur), _id_repr(ctx)))
    return container, key, cur


def _existing_array(doc, parts, full, not_an_array):
    """(container, key, array) at parts, or None when the path does not exist; raises
    not_an_array(value) for another value there."""
    container, key = _navigate(doc, parts, False, full)
    if container is None:
        return None
    cur = _get_in(container, key)
    if cur is MISSING:
        return None
    if not isinstance(cur, list):
        raise not_an_array(cur)
    return container, key, cur


def _pull_matches(elem, cond):
    if isinstance(cond, dict):
        if _elem_match_value_mode(cond):
            return match_field({'v': elem}, 'v', cond)
        if isinstance(elem, dict):
            return match(cond, elem)
        return False
    if isinstance(cond, (Regex, RE_TYPE)):
        return _regex_matches(elem, _regex_from(cond, None))
    return bson_eq(elem, cond)


def _unset(doc, parts):
    container, key = _navigate(doc, parts, False, '.'.join(parts))
    if container is None:
        return
    if isinstance(container, dict):
        container.pop(key, None)
    elif isinstance(container, list) and key.isdigit() and int(key) < len(container):
        container[int(key)] = None


def _check_rename(source, target):
    """The checks mongod makes of one {$rename: {source: target}} before any write."""
    if not isinstance(target, str):
        raise CommandError(2, "The 'to' field for $rename must be a string: %s: %s"
                           % (source, fmt_value(target)))
    _split_path(target)
    if source == target:
        raise CommandError(2, 'The source and target field for $rename must differ: %s: "%s"'
                           % (source, target))
    if source.startswith(target + '.') or target.startswith(source + '.'):
        raise CommandError(2, 'The source and target field for $rename must not be on the same '
                           'path: %s: "%s"' % (source, target))
    for which, path in (('source', source), ('destination', target)):
        if any(part.startswith('$') for part in path.split('.')):
            raise CommandError(2, 'The %s field for $rename may not be dynamic: %s' % (which, path))


def _rename(doc, source, target, ctx):
    """$rename (MongoDB's manual): an $unset of both names, then a $set of the target to the
    source's value; nothing when the source is missing; neither path may pass through an
    array."""
    for which, path in (('source', source), ('destination', target)):
        cur = doc
        for part in path.split('.')[:-1]:
            if not isinstance(cur, dict) or part not in cur:
                break
            cur = cur[part]
            if isinstance(cur, list):
                raise CommandError(2, "The %s field cannot be an array element, '%s' in doc with "
                                   "%s has an array field called '%s'"
                                   % (which, path, _id_repr(ctx), part))
    parts = source.split('.')
    container, key = _navigate(doc, parts, False, source)
    value = MISSING if container is None or not isinstance(container, dict) else container.get(key, MISSING)
    if value is MISSING:
        return
    _unset(doc, parts)
    target_parts = target.split('.')
    _unset(doc, target_parts)
    container, key = _navigate(doc, target_parts, True, target)
    _set_in(container, key, value, target)


def apply_update(old_doc, update, ctx):
    """Return the new document (old_doc is not modified)."""
    doc = copy.deepcopy(old_doc)
    if not is_operator_update(update):
        for k in update:
            if k.startswith('$'):
                raise CommandError(52, "The dollar ($) prefixed field '%s' in '%s' is not valid "
                                   "for storage." % (k, k))
        new = {}
        if '_id' in doc:
            new['_id'] = doc['_id']
        for k, v in update.items():
            if k == '_id' and '_id' in doc:
                if not bson_identical(v, doc['_id']):
                    raise CommandError(66, "After applying the update, the (immutable) field "
                                       "'_id' was found to have been altered to _id: %s"
                                       % fmt_value(v))
                continue
            new[k] = copy.deepcopy(v)
        if '_id' in new:
            new = move_id_first(new)
        return new

    # Validate operators and detect conflicting paths.
    targets = []
    for op, fields in update.items():
        if op in REFUSED_UPDATE_OPERATORS:
            raise NotSupported('the %s update operator' % op)
        if op not in UPDATE_OPERATORS:
            raise CommandError(9, 'Unknown modifier: %s. Expected a valid update modifier or '
                               'pipeline-style update specified as an array' % op)
        if not isinstance(fields, dict):
            raise CommandError(9, "Modifiers operate on fields but we found type %s instead. For "
                               "example: {$mod: {<field>: ...}} not {%s: %s}"
                               % (type_name(fields), op, fmt_value(fields)))
        for path in fields:
            _split_path(path)
            targets.append(path)
            if op == '$rename':
                _check_rename(path, fields[path])
                targets.append(fields[path])
    for i, a in enumerate(targets):
        for b in targets[i + 1:]:
            if a == b or a.startswith(b + '.') or b.startswith(a + '.'):
                short, _long = (a, b) if len(a) <= len(b) else (b, a)
                raise CommandError(40, "Updating the path '%s' would create a conflict at '%s'"
                                   % (_long, short))

    # mongod (5.0+) applies all modifications of one update in field-name
    # order (numeric names numerically), whatever operator they belong to.
    mods = [(op, path, arg) for op, fields in update.items() for path, arg in fields.items()]
    mods.sort(key=lambda m: _field_order_key(m[1]))
    for op, path, arg in mods:
        if op == '$rename':
            _rename(doc, path, arg, ctx)
            continue
        resolved = _resolve_positional(doc, _split_path(path), ctx, path)
        for parts in _expand_array_updates(doc, resolved, ctx, path):
            full = '.'.join(parts)
            if op == '$set' or (op == '$setOnInsert' and ctx.is_insert):
                container, key = _navigate(doc, parts, True, full)
                _set_in(container, key, copy.deepcopy(arg), full)
            elif op == '$setOnInsert':
                continue
            elif op == '$unset':
                _unset(doc, parts)
            elif op == '$inc':
                _num_op(doc, parts, full, arg, ctx, '$inc', 'add')
            elif op == '$mul':
                _num_op(doc, parts, full, arg, ctx, '$mul', 'mul')
            elif op in ('$min', '$max'):
                container, key = _navigate(doc, parts, True, full)
                cur = _get_in(container, key)
                if cur is MISSING:
                    _set_in(container, key, copy.deepcopy(arg), full)
                else:
                    c = bson_cmp(arg, cur)
                    if (op == '$min' and c < 0) or (op == '$max' and c > 0):
                        _set_in(container, key, copy.deepcopy(arg), full)
            elif op == '$push':
                container, key, cur = _array_at(doc, parts, full, ctx, '$push', True)
                values = cur if cur is not MISSING else []
                values = list(values)
                if isinstance(arg, dict) and '$each' in arg:
                    unknown = set(arg) - {'$each', '$slice', '$sort', '$position'}
                    if unknown:
                        raise bad_value('Unrecognized clause in $push: %s' % sorted(unknown)[0])
                    each = arg['$each']
                    if not isinstance(each, list):
                        raise bad_value('The argument to $each in $push must be an array but it '
                                        'was of type: %s' % type_name(each))
                    each = copy.deepcopy(each)
                    if '$position' in arg:
                        pos = arg['$position']
                        if not is_number(pos) or int(pos) != pos:
                            raise bad_value('The value for $position must be an integer value')
                        pos = int(pos)
                        if pos < 0:
                            pos = max(len(values) + pos, 0)
                        values[pos:pos] = each
                    else:
                        values.extend(each)
                    if '$sort' in arg:
                        values = _push_sort(values, arg['$sort'])
                    if '$slice' in arg:
                        sl = arg['$slice']
                        if not is_number(sl) or int(sl) != sl:
                            raise bad_value('The value for $slice must be an integer value')
                        sl = int(sl)
                        values = values[:sl] if sl >= 0 else values[sl:]
                else:
                    values.append(copy.deepcopy(arg))
                _set_in(container, key, values, full)
            elif op == '$addToSet':
                container, key, cur = _array_at(doc, parts, full, ctx, '$addToSet', True)
                values = list(cur) if cur is not MISSING else []
                if isinstance(arg, dict) and '$each' in arg:
                    if set(arg) != {'$each'}:
                        raise bad_value('Found unexpected fields after $each in $addToSet')
                    each = arg['$each']
                    if not isinstance(each, list):
                        raise bad_value('The argument to $each in $addToSet must be an array but '
                                        'it was of type %s' % type_name(each))
                else:
                    each = [arg]
                for v in each:
                    if not any(bson_eq(v, x) and type_order(v) == type_order(x) for x in values):
                        values.append(copy.deepcopy(v))
                _set_in(container, key, values, full)
            elif op == '$pop':
                if not is_number(arg) or arg not in (1, -1):
                    raise bad_value('$pop expects 1 or -1, found: %s' % fmt_value(arg))
                found = _existing_array(doc, parts, full, lambda cur: CommandError(
                    14, "Path '%s' contains an element of non-array type '%s'"
                    % (full, type_name(cur))))
                if found is None:
                    continue
                container, key, cur = found
                if cur:
                    values = cur[:-1] if arg > 0 else cur[1:]
                    _set_in(container, key, values, full)
            elif op in ('$pull', '$pullAll'):
                if op == '$pullAll' and not isinstance(arg, list):
                    raise bad_value('$pullAll requires an array argument but was given a %s'
                                    % type_name(arg))
                found = _existing_array(doc, parts, full, lambda cur: bad_value(
                    'Cannot apply %s to a non-array value' % op))
                if found is None:
                    continue
                container, key, cur = found
                if op == '$pull':
                    values = [e for e in cur if not _pull_matches(e, arg)]
                else:
                    values = [e for e in cur if not any(bson_eq(e, x) for x in arg)]
                if len(values) != len(cur):
                    _set_in(container, key, values, full)
    if '_id' in old_doc and not ctx.is_insert:
        if '_id' not in doc or not bson_identical(doc['_id'], old_doc['_id']):
            raise CommandError(66, "Performing an update on the path '_id' would modify the "
                               "immutable field '_id'")
    return doc


def _expand_array_updates(doc, parts, ctx, path):
    """The concrete paths an update path names: $[] stands for every element of the
    array before it, $[<identifier>] for those its array filter matches."""
    if not any(p.startswith('$[') for p in parts):
        return [parts]
    out = []

    def walk(value, i, prefix):
        if i == len(parts):
            out.append(prefix)
            return
        part = parts[i]
        if not (part.startswith('$[') and part.endswith(']')):
            if isinstance(value, dict):
                nxt = value.get(part, MISSING)
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                nxt = value[int(part)]
            else:
                nxt = MISSING
            if nxt is MISSING:
                # The rest of the path is created (or ignored) by the operator itself,
                # unless it needs an array to expand.
                if any(p.startswith('$[') for p in parts[i + 1:]):
                    raise bad_value("The path '%s' must exist in the document in order to "
                                    "apply array updates." % '.'.join(prefix + [part]))
                out.append(prefix + parts[i:])
                return
            walk(nxt, i + 1, prefix + [part])
            return
        if not isinstance(value, list):
            raise bad_value("Cannot apply array updates to non-array element %s: %s"
                            % (prefix[-1] if prefix else path, fmt_value(value)))
        name = part[2:-1]
        flt = ctx.array_filters.get(name) if name else None
        for idx, elem in enumerate(value):
            if flt is None or match(flt, {name: elem}):
                walk(elem, i + 1, prefix + [str(idx)])

    walk(doc, 0, [])
    return out


def bson_identical(a, b):
    import bson
    return bson.encode({'v': a}) == bson.encode({'v': b})


def move_id_first(doc):
    if '_id' not in doc or next(iter(doc)) == '_id':
        return doc
    new = {'_id': doc['_id']}
    for k, v in doc.items():
        if k != '_id':
            new[k] = v
    return new


def upsert_seed(query):
    """Fields copied from the query into an upserted document (equality
    conditions at top level and inside $and)."""
    seed = {}
    paths = []

    def add(path, value):
        for p in paths:
            if p == path or p.startswith(path + '.') or path.startswith(p + '.'):
                raise CommandError(54, "cannot infer query fields to set, path '%s' is matched "
                                   "twice" % path)
        paths.append(path)
        parts = path.split('.')
        container, key = _navigate(seed, parts, True, path)
        _set_in(container, key, copy.deepcopy(value), path)

    def walk(q):
        for k, v in q.items():
            if k == '$and':
                for sub in v:
                    walk(sub)
            elif k.startswith('$'):
                continue
            elif is_operator_doc(v):
                if '$eq' in v:
                    add(k, v['$eq'])
            elif isinstance(v, (Regex, RE_TYPE)):
                continue
            else:
                add(k, v)
    walk(query)
    return seed


