"""Collection validators for the odm test server: MongoDB's `$jsonSchema`, for the keywords
odm emits and the common ones beside them, per the manual
(https://www.mongodb.com/docs/manual/reference/operator/query/jsonSchema/ and
https://www.mongodb.com/docs/manual/core/schema-validation/).

A keyword this module does not implement is refused when the validator is set (create or
collMod), never ignored: a validator that silently checks less than asked would let a test
pass that real MongoDB fails.
"""

import re

from bson import Regex, Code, Timestamp, MinKey, MaxKey, DBRef

from odm_query import CommandError, NotSupported, match
from odm_values import bson_eq, num_cmp, is_number, type_name

# bsonType aliases (https://www.mongodb.com/docs/manual/reference/bson-types/); "number"
# stands for the four numeric types.
BSON_TYPES = frozenset([
    'double', 'string', 'object', 'array', 'binData', 'undefined', 'objectId', 'bool', 'date',
    'null', 'regex', 'dbPointer', 'javascript', 'symbol', 'javascriptWithScope', 'int',
    'timestamp', 'long', 'decimal', 'minKey', 'maxKey', 'number'])
# JSON Schema's `type`, as MongoDB reads it: no "integer".
JSON_TYPES = frozenset(['object', 'array', 'number', 'boolean', 'string', 'null'])

IGNORED = frozenset(['title', 'description'])
KEYWORDS = frozenset([
    'bsonType', 'type', 'required', 'properties', 'additionalProperties', 'items', 'enum',
    'anyOf', 'allOf', 'oneOf', 'not', 'minimum', 'maximum', 'exclusiveMinimum',
    'exclusiveMaximum', 'minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties',
    'maxProperties', 'pattern']) | IGNORED
UNSUPPORTED = {
    'patternProperties': 'patternProperties', 'additionalItems': 'additionalItems',
    'dependencies': 'dependencies', 'uniqueItems': 'uniqueItems',
    'multipleOf': 'multipleOf', 'encrypt': 'encrypt', 'encryptMetadata': 'encryptMetadata',
}

VALIDATION_LEVELS = ('off', 'strict', 'moderate')
VALIDATION_ACTIONS = ('error', 'warn', 'errorAndLog')

DOCUMENT_VALIDATION_FAILURE = 121


def bson_type(v):
    """MongoDB's $type name of a decoded value (the types odm_values names, and the rest)."""
    if isinstance(v, (Regex, re.Pattern)):
        return 'regex'
    if isinstance(v, Code):
        return 'javascriptWithScope' if v.scope else 'javascript'
    for cls, name in ((Timestamp, 'timestamp'), (MinKey, 'minKey'), (MaxKey, 'maxKey'),
                      (DBRef, 'object')):
        if isinstance(v, cls):
            return name
    return type_name(v)


def json_type(v):
    t = bson_type(v)
    if t in ('int', 'long', 'double', 'decimal'):
        return 'number'
    if t == 'bool':
        return 'boolean'
    return t


def _bad(msg):
    return CommandError(9, '$jsonSchema: ' + msg)


def _types(spec, keyword, allowed):
    names = spec if isinstance(spec, list) else [spec]
    if not names or not all(isinstance(n, str) for n in names):
        raise _bad("'%s' must be a string or an array of strings" % keyword)
    for n in names:
        if n not in allowed:
            raise _bad("unknown type name alias '%s' in '%s'" % (n, keyword))
    if len(set(names)) != len(names):
        raise _bad("'%s' has duplicate types" % keyword)
    return names


def _count(schema, keyword):
    v = schema[keyword]
    if not is_number(v) or v < 0 or v != int(v):
        raise _bad("'%s' must be a non-negative whole number" % keyword)


def check_schema(schema, path='$jsonSchema'):
    """Refuses a malformed schema, or one with a keyword not implemented here."""
    if not isinstance(schema, dict):
        raise _bad('%s must be an object' % path)
    for k in schema:
        if k in UNSUPPORTED:
            raise NotSupported('the $jsonSchema keyword %s' % UNSUPPORTED[k])
        if k not in KEYWORDS:
            raise _bad("unknown keyword '%s' at %s" % (k, path))
    if 'bsonType' in schema and 'type' in schema:
        raise _bad("'bsonType' and 'type' together at %s" % path)
    if 'bsonType' in schema:
        _types(schema['bsonType'], 'bsonType', BSON_TYPES)
    if 'type' in schema:
        _types(schema['type'], 'type', JSON_TYPES)
    if 'required' in schema:
        req = schema['required']
        if not isinstance(req, list) or not req or not all(isinstance(r, str) for r in req) \
                or len(set(req)) != len(req):
            raise _bad("'required' must be a non-empty array of distinct strings at %s" % path)
    if 'properties' in schema:
        props = schema['properties']
        if not isinstance(props, dict):
            raise _bad("'properties' must be an object at %s" % path)
        for name, sub in props.items():
            check_schema(sub, '%s.properties.%s' % (path, name))
    if 'additionalProperties' in schema:
        ap = schema['additionalProperties']
        if not isinstance(ap, bool):
            check_schema(ap, path + '.additionalProperties')
    if 'items' in schema:
        items = schema['items']
        if isinstance(items, list):
            for i, sub in enumerate(items):
                check_schema(sub, '%s.items.%d' % (path, i))
        else:
            check_schema(items, path + '.items')
    if 'enum' in schema:
        if not isinstance(schema['enum'], list) or not schema['enum']:
            raise _bad("'enum' must be a non-empty array at %s" % path)
    for k in ('anyOf', 'allOf', 'oneOf'):
        if k in schema:
            if not isinstance(schema[k], list) or not schema[k]:
                raise _bad("'%s' must be a non-empty array at %s" % (k, path))
            for i, sub in enumerate(schema[k]):
                check_schema(sub, '%s.%s.%d' % (path, k, i))
    if 'not' in schema:
        check_schema(schema['not'], path + '.not')
    for k in ('minimum', 'maximum'):
        if k in schema and not is_number(schema[k]):
            raise _bad("'%s' must be a number at %s" % (k, path))
    for k, base in (('exclusiveMinimum', 'minimum'), ('exclusiveMaximum', 'maximum')):
        if k in schema:
            if not isinstance(schema[k], bool):
                raise _bad("'%s' must be a boolean at %s" % (k, path))
            if base not in schema:
                raise _bad("'%s' needs '%s' at %s" % (k, base, path))
    for k in ('minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'):
        if k in schema:
            _count(schema, k)
    if 'pattern' in schema:
        if not isinstance(schema['pattern'], str):
            raise _bad("'pattern' must be a string at %s" % path)
        try:
            re.compile(schema['pattern'])
        except re.error as e:
            raise _bad("'pattern' is not a valid regular expression: %s" % e)


def _type_ok(value, names, of):
    t = of(value)
    for n in names:
        if n == t or (n == 'number' and t in ('int', 'long', 'double', 'decimal')):
            return True
    return False


def violations(schema, value):
    """The rules `value` breaks, in the shape of MongoDB's schemaRulesNotSatisfied (empty
    when it satisfies the schema). Keywords that do not apply to the value's type (the
    `properties` of a string) are satisfied, as JSON Schema says."""
    out = []

    def fail(keyword, **details):
        d = {'operatorName': keyword}
        d.update(details)
        out.append(d)

    for keyword, of in (('bsonType', bson_type), ('type', json_type)):
        if keyword in schema:
            names = schema[keyword] if isinstance(schema[keyword], list) else [schema[keyword]]
            if not _type_ok(value, names, of):
                fail(keyword, specifiedAs={keyword: schema[keyword]}, reason='type did not match',
                     consideredValue=value, consideredType=bson_type(value))
    if 'enum' in schema and not any(bson_eq(value, e) for e in schema['enum']):
        fail('enum', specifiedAs={'enum': schema['enum']},
             reason='value was not found in enum', consideredValue=value)
    if isinstance(value, dict):
        if 'required' in schema:
            missing = [r for r in schema['required'] if r not in value]
            if missing:
                fail('required', specifiedAs={'required': schema['required']},
                     missingProperties=missing)
        props = schema.get('properties', {})
        not_satisfied = []
        for name, sub in props.items():
            if name in value:
                details = violations(sub, value[name])
                if details:
                    not_satisfied.append({'propertyName': name, 'details': details})
        if not_satisfied:
            fail('properties', propertiesNotSatisfied=not_satisfied)
        if 'additionalProperties' in schema:
            ap = schema['additionalProperties']
            extra = [k for k in value if k not in props]
            if ap is False and extra:
                fail('additionalProperties', specifiedAs={'additionalProperties': False},
                     additionalProperties=extra)
            elif isinstance(ap, dict):
                bad = []
                for k in extra:
                    details = violations(ap, value[k])
                    if details:
                        bad.append({'propertyName': k, 'details': details})
                if bad:
                    fail('additionalProperties', propertiesNotSatisfied=bad)
        for k, ok in (('minProperties', lambda n, m: n >= m), ('maxProperties', lambda n, m: n <= m)):
            if k in schema and not ok(len(value), schema[k]):
                fail(k, specifiedAs={k: schema[k]}, numberOfProperties=len(value))
    if isinstance(value, list):
        items = schema.get('items')
        if isinstance(items, dict):
            for i, element in enumerate(value):
                details = violations(items, element)
                if details:
                    fail('items', reason='At least one item did not match the sub-schema',
                         itemIndex=i, details=details)
                    break
        elif isinstance(items, list):
            for i, (sub, element) in enumerate(zip(items, value)):
                details = violations(sub, element)
                if details:
                    fail('items', itemIndex=i, details=details)
                    break
        for k, ok in (('minItems', lambda n, m: n >= m), ('maxItems', lambda n, m: n <= m)):
            if k in schema and not ok(len(value), schema[k]):
                fail(k, specifiedAs={k: schema[k]}, numberOfItems=len(value))
    if isinstance(value, str):
        length = len(value)  # code points, as the manual counts
        for k, ok in (('minLength', lambda n, m: n >= m), ('maxLength', lambda n, m: n <= m)):
            if k in schema and not ok(length, schema[k]):
                fail(k, specifiedAs={k: schema[k]}, consideredValue=value)
        if 'pattern' in schema and re.search(schema['pattern'], value) is None:
            fail('pattern', specifiedAs={'pattern': schema['pattern']},
                 reason='regular expression did not match', consideredValue=value)
    if is_number(value):
        if 'minimum' in schema:
            c = num_cmp(value, schema['minimum'])
            if c < 0 or (c == 0 and schema.get('exclusiveMinimum', False)):
                fail('minimum', specifiedAs={'minimum': schema['minimum']},
                     reason='comparison failed', consideredValue=value)
        if 'maximum' in schema:
            c = num_cmp(value, schema['maximum'])
            if c > 0 or (c == 0 and schema.get('exclusiveMaximum', False)):
                fail('maximum', specifiedAs={'maximum': schema['maximum']},
                     reason='comparison failed', consideredValue=value)
    if 'anyOf' in schema and all(violations(s, value) for s in schema['anyOf']):
        fail('anyOf', reason='none of the subschemas matched')
    if 'allOf' in schema:
        for s in schema['allOf']:
            details = violations(s, value)
            if details:
                fail('allOf', reason='at least one subschema did not match', details=details)
                break
    if 'oneOf' in schema:
        n = sum(1 for s in schema['oneOf'] if not violations(s, value))
        if n != 1:
            fail('oneOf', reason='%s subschemas matched' % ('none of the' if n == 0 else 'more than one'))
    if 'not' in schema and not violations(schema['not'], value):
        fail('not', reason='child expression matched')
    return out


class Validator(object):
    """A collection's validator: a $jsonSchema and/or other query operators."""

    def __init__(self, spec):
        if not isinstance(spec, dict):
            raise CommandError(14, "'validator' has to be a document")
        self.spec = spec
        self.schema = spec.get('$jsonSchema')
        if '$jsonSchema' in spec:
            check_schema(self.schema)
        self.rest = {k: v for k, v in spec.items() if k != '$jsonSchema'}
        for k in self.rest:
            if k in ('$expr', '$where', '$near', '$nearSphere', '$text'):
                raise CommandError(9, '%s is not allowed in collection validators' % k)
        match(self.rest, {})  # refuses an operator the query engine lacks, now

    def failures(self, doc):
        """schemaRulesNotSatisfied, plus a marker when the query part fails; empty if valid."""
        out = []
        if self.schema is not None:
            rules = violations(self.schema, doc)
            if rules:
                out.append({'operatorName': '$jsonSchema', 'schemaRulesNotSatisfied': rules})
        if self.rest and not match(self.rest, doc):
            out.append({'operatorName': '$and', 'reason': 'query operators did not match'})
        return out


def parse_options(cmd, name, current=None):
    """The validation options of a create or collMod command, merged into `current`."""
    options = dict(current or {})
    if 'validator' in cmd:
        Validator(cmd['validator'])
        options['validator'] = cmd['validator']
    if 'validationLevel' in cmd:
        if cmd['validationLevel'] not in VALIDATION_LEVELS:
            raise CommandError(2, "Enumeration value '%s' for field '%s.validationLevel' is not a "
                               'valid value.' % (cmd['validationLevel'], name))
        options['validationLevel'] = cmd['validationLevel']
    if 'validationAction' in cmd:
        if cmd['validationAction'] not in VALIDATION_ACTIONS:
            raise CommandError(2, "Enumeration value '%s' for field '%s.validationAction' is not "
                               'a valid value.' % (cmd['validationAction'], name))
        options['validationAction'] = cmd['validationAction']
    return options


def check_write(options, old, new, bypass, log=None):
    """Raises MongoDB's DocumentValidationFailure (121) when `new` (replacing `old`, None
    for an insert) breaks the collection's validator, per its level and action."""
    spec = options.get('validator')
    if not spec or bypass:
        return
    level = options.get('validationLevel', 'strict')
    action = options.get('validationAction', 'error')
    if level == 'off':
        return
    validator = Validator(spec)
    # moderate: an update of a document that was already invalid is not checked.
    if level == 'moderate' and old is not None and validator.failures(old):
        return
    failures = validator.failures(new)
    if not failures:
        return
    info = {'failingDocumentId': new.get('_id'), 'details': failures[0]}
    if action == 'warn':
        if log is not None:
            log('Document would fail validation: %r' % (info,))
        return
    raise CommandError(DOCUMENT_VALIDATION_FAILURE, 'Document failed validation', errInfo=info)
