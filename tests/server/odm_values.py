"""BSON value semantics for the odm test server.

Comparison order, equality, hashing keys and numeric arithmetic the way
mongod does them (numbers compare by value across int32/int64/double/
Decimal128; bool is not a number; embedded documents compare field by field
in order).  Everything here is written for this server; nothing is copied.
"""

import datetime
import decimal
import fractions
import functools
import re

from bson import ObjectId
from bson.binary import Binary
from bson.decimal128 import Decimal128
from bson.int64 import Int64

# 34 significant digits, Decimal128 exponent range, round half even, no traps
# (inexact results are rounded like mongod does, overflow gives Infinity).
DEC_CTX = decimal.Context(prec=34, rounding=decimal.ROUND_HALF_EVEN,
                          Emin=-6143, Emax=6144, capitals=1, clamp=1,
                          flags=[], traps=[])

INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1

RE_TYPE = type(re.compile(''))


class _Missing(object):
    """Marker for a path that does not exist in a document."""
    __slots__ = ()

    def __repr__(self):
        return 'MISSING'

    def __bool__(self):
        return False


MISSING = _Missing()


def decimal128(value):
    """A Decimal128 of a decimal.Decimal, rounded to 34 digits as mongod does."""
    return Decimal128(DEC_CTX.create_decimal(value))


# ---------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------

def is_number(v):
    return isinstance(v, (int, float, Decimal128)) and not isinstance(v, bool)


def to_decimal_exact(v):
    if isinstance(v, Decimal128):
        return v.to_decimal()
    if isinstance(v, float):
        return decimal.Decimal(v)  # exact binary value
    return decimal.Decimal(int(v))


def to_decimal_for_arith(v):
    """mongod converts a double to Decimal128 rounded to 15 digits."""
    if isinstance(v, Decimal128):
        return v.to_decimal()
    if isinstance(v, float):
        if v != v or v in (float('inf'), float('-inf')):
            return decimal.Decimal(v)
        return decimal.Decimal(format(v, '.15g'))
    return decimal.Decimal(int(v))


def num_cmp(a, b):
    if not isinstance(a, Decimal128) and not isinstance(b, Decimal128):
        a_nan = isinstance(a, float) and a != a
        b_nan = isinstance(b, float) and b != b
        if a_nan or b_nan:
            return 0 if (a_nan and b_nan) else (-1 if a_nan else 1)
        return (a > b) - (a < b)
    da, db = to_decimal_exact(a), to_decimal_exact(b)
    an, bn = da.is_nan(), db.is_nan()
    if an or bn:
        return 0 if (an and bn) else (-1 if an else 1)
    return (da > db) - (da < db)


def num_kind(v):
    if isinstance(v, Decimal128):
        return 'decimal'
    if isinstance(v, float):
        return 'double'
    if isinstance(v, Int64) or not (INT32_MIN <= v <= INT32_MAX):
        return 'long'
    return 'int'


class ArithOverflow(Exception):
    pass


def arith(op, a, b):
    """a (op) b with mongod's type promotion (update operators $inc, $mul)."""
    kinds = (num_kind(a), num_kind(b))
    if 'decimal' in kinds:
        da, db = to_decimal_for_arith(a), to_decimal_for_arith(b)
        r = DEC_CTX.add(da, db) if op == 'add' else DEC_CTX.multiply(da, db)
        return decimal128(r)
    if 'double' in kinds:
        fa, fb = float(a), float(b)
        return fa + fb if op == 'add' else fa * fb
    ia, ib = int(a), int(b)
    r = ia + ib if op == 'add' else ia * ib
    if 'long' in kinds:
        if not (INT64_MIN <= r <= INT64_MAX):
            raise ArithOverflow()
        return Int64(r)
    if INT32_MIN <= r <= INT32_MAX:
        return r
    if INT64_MIN <= r <= INT64_MAX:
        return Int64(r)  # int32 overflow is promoted to int64
    raise ArithOverflow()


def zero_like(v):
    k = num_kind(v)
    if k == 'decimal':
        return Decimal128('0')
    if k == 'double':
        return 0.0
    if k == 'long':
        return Int64(0)
    return 0


# ---------------------------------------------------------------------------
# BSON canonical type order and comparison
# ---------------------------------------------------------------------------

# The BSON types odm stores, in mongod's comparison order (an empty array sorts first).
T_EMPTY_ARRAY_SORT, T_NULL, T_NUMBER, T_STRING, T_OBJECT, T_ARRAY, T_BINARY, T_OID, T_BOOL, \
    T_DATE = range(10)


class UnsupportedValue(TypeError):
    """A BSON type odm never stores (timestamp, regex, code, min/max key, DBRef) met
    where values are compared."""


def type_order(v):
    if v is None or v is MISSING:
        return T_NULL
    if isinstance(v, bool):
        return T_BOOL
    if isinstance(v, (int, float, Decimal128)):
        return T_NUMBER
    if isinstance(v, str):
        return T_STRING
    if isinstance(v, dict):
        return T_OBJECT
    if isinstance(v, (list, tuple)):
        return T_ARRAY
    if isinstance(v, bytes):
        return T_BINARY
    if isinstance(v, ObjectId):
        return T_OID
    if isinstance(v, datetime.datetime):
        return T_DATE
    if v is EMPTY_ARRAY_SORT_KEY:
        return T_EMPTY_ARRAY_SORT
    raise UnsupportedValue('comparing BSON values of type %s' % type(v).__name__)


class _EmptyArraySortKey(object):
    __slots__ = ()


EMPTY_ARRAY_SORT_KEY = _EmptyArraySortKey()


def _cmp(a, b):
    return (a > b) - (a < b)


def binary_subtype(v):
    return v.subtype if isinstance(v, Binary) else 0


def regex_flags_to_str(flags):
    out = ''
    if flags & re.IGNORECASE:
        out += 'i'
    if flags & re.MULTILINE:
        out += 'm'
    if flags & re.DOTALL:
        out += 's'
    if flags & re.VERBOSE:
        out += 'x'
    return out


def _naive_utc(dt):
    if dt.tzinfo is not None:
        dt = (dt - dt.utcoffset()).replace(tzinfo=None)
    return dt


def bson_cmp(a, b):
    ta, tb = type_order(a), type_order(b)
    if ta != tb:
        return -1 if ta < tb else 1
    if ta == T_NUMBER:
        return num_cmp(a, b)
    if ta in (T_NULL, T_EMPTY_ARRAY_SORT):
        return 0
    if ta == T_STRING:
        return _cmp(a, b)
    if ta == T_OBJECT:
        ia, ib = list(a.items()), list(b.items())
        for (ka, va), (kb, vb) in zip(ia, ib):
            c = _cmp(type_order(va), type_order(vb))
            if c:
                return c
            c = _cmp(ka, kb)
            if c:
                return c
            c = bson_cmp(va, vb)
            if c:
                return c
        return _cmp(len(ia), len(ib))
    if ta == T_ARRAY:
        for va, vb in zip(a, b):
            c = bson_cmp(va, vb)
            if c:
                return c
        return _cmp(len(a), len(b))
    if ta == T_BINARY:
        c = _cmp(len(a), len(b))
        if c:
            return c
        c = _cmp(binary_subtype(a), binary_subtype(b))
        if c:
            return c
        return _cmp(bytes(a), bytes(b))
    if ta == T_OID:
        return _cmp(a.binary, b.binary)
    if ta == T_BOOL:
        return _cmp(a, b)
    return _cmp(_naive_utc(a), _naive_utc(b))   # T_DATE


def bson_eq(a, b):
    try:
        return bson_cmp(a, b) == 0
    except TypeError:
        return False


sort_key_of = functools.cmp_to_key(bson_cmp)


def canon(v):
    """A hashable key; two values get the same key iff mongod treats them as
    equal (index keys, _id uniqueness, distinct)."""
    if type(v) is int or type(v) is Int64:
        return ('n', int(v))   # equal to ('n', Fraction(v)), and hashes the same
    t = type_order(v)
    if t == T_NUMBER:
        d = to_decimal_exact(v)
        if d.is_nan():
            return ('n', 'nan')
        if d.is_infinite():
            return ('n', 'inf' if d > 0 else '-inf')
        return ('n', fractions.Fraction(d))
    if t == T_NULL:
        return ('null',)
    if t == T_STRING:
        return ('s', v)
    if t == T_OBJECT:
        return ('o', tuple((k, canon(x)) for k, x in v.items()))
    if t == T_ARRAY:
        return ('a', tuple(canon(x) for x in v))
    if t == T_BINARY:
        return ('b', binary_subtype(v), bytes(v))
    if t == T_OID:
        return ('oid', v.binary)
    if t == T_BOOL:
        return ('bool', bool(v))
    if t == T_DATE:
        return ('d', _naive_utc(v))
    return ('t', t)


# ---------------------------------------------------------------------------
# Formatting values the way mongod prints them in error messages
# ---------------------------------------------------------------------------

def fmt_value(v):
    if v is None or v is MISSING:
        return 'null'
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, Decimal128):
        return 'Decimal128("%s")' % (str(v),)
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e16:
            return '%.1f' % v
        return repr(v)
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, str):
        return '"%s"' % v.replace('"', '\\"')
    if isinstance(v, ObjectId):
        return "ObjectId('%s')" % v
    if isinstance(v, datetime.datetime):
        v = _naive_utc(v)
        return 'new Date(%d)' % int((v - datetime.datetime(1970, 1, 1)).total_seconds() * 1000)
    if isinstance(v, dict):
        items = list(v.items())
        if not items:
            return '{}'
        return '{ ' + ', '.join('%s: %s' % (k, fmt_value(x)) for k, x in items) + ' }'
    if isinstance(v, (list, tuple)):
        return '[ ' + ', '.join(fmt_value(x) for x in v) + ' ]'
    if isinstance(v, bytes):
        return 'BinData(%d, %s)' % (binary_subtype(v), bytes(v).hex().upper())
    return str(v)


def fmt_doc(items):
    """items: list of (name, value) pairs."""
    if not items:
        return '{}'
    return '{ ' + ', '.join('%s: %s' % (k, fmt_value(v)) for k, v in items) + ' }'


def type_name(v):
    if v is None:
        return 'null'
    if isinstance(v, bool):
        return 'bool'
    if isinstance(v, Decimal128):
        return 'decimal'
    if isinstance(v, float):
        return 'double'
    if isinstance(v, int):
        return 'long' if num_kind(v) == 'long' else 'int'
    if isinstance(v, str):
        return 'string'
    if isinstance(v, dict):
        return 'object'
    if isinstance(v, (list, tuple)):
        return 'array'
    if isinstance(v, bytes):
        return 'binData'
    if isinstance(v, ObjectId):
        return 'objectId'
    if isinstance(v, datetime.datetime):
        return 'date'
    return type(v).__name__


