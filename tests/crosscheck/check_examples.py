#!/usr/bin/python3
"""Reads, with another driver (pymongo), every collection the examples leave behind and
checks the guides' shapes: field names in declaration order, BSON types (int32, int64,
double, Decimal128, date, ObjectId), exact money, references that resolve, the subset
holding exactly the newest reviews, and the indexes each model implies.

    MONGODB_URI=mongodb://... /usr/bin/python3 tests/crosscheck/check_examples.py [DB]

DB defaults to $ODM_EXAMPLES_DB, else odm_examples. Prints one line per failed check
and a summary; exits 1 on any failure, 2 when the server cannot be reached.
"""

import datetime
import os
import sys

import pymongo
from bson import ObjectId
from bson.decimal128 import Decimal128
from bson.int64 import Int64

failures = []
passed = [0]


def check(what, ok, detail=''):
    if ok:
        passed[0] += 1
    else:
        failures.append('%s%s' % (what, (': ' + detail) if detail else ''))


# ---------------------------------------------------------------------------
# BSON types and shapes
# ---------------------------------------------------------------------------

def bson_type(v):
    """The BSON type name pymongo decoded v from."""
    if isinstance(v, bool):
        return 'bool'
    if isinstance(v, Int64):
        return 'long'
    if isinstance(v, int):
        return 'int'
    if isinstance(v, float):
        return 'double'
    if isinstance(v, Decimal128):
        return 'decimal'
    if isinstance(v, str):
        return 'string'
    if isinstance(v, datetime.datetime):
        return 'date'
    if isinstance(v, ObjectId):
        return 'objectId'
    if isinstance(v, list):
        return 'array'
    if isinstance(v, dict):
        return 'object'
    if v is None:
        return 'null'
    return type(v).__name__


def matches(value, shape, where, problems):
    """shape: a type name, 'a|b' alternatives, [element shape], or an ordered list of
    (field, shape) pairs for a document (exactly those fields, in that order)."""
    if isinstance(shape, str):
        if bson_type(value) not in shape.split('|'):
            problems.append('%s is %s, not %s' % (where, bson_type(value), shape))
    elif isinstance(shape, list) and len(shape) == 1 and not isinstance(shape[0], tuple):
        if not isinstance(value, list):
            problems.append('%s is %s, not an array' % (where, bson_type(value)))
            return
        for i, elem in enumerate(value):
            matches(elem, shape[0], '%s.%d' % (where, i), problems)
    elif isinstance(shape, tuple) and shape[0] == 'either':
        attempts = []
        for alternative in shape[1:]:
            sub = []
            matches(value, alternative, where, sub)
            if not sub:
                return
            attempts.extend(sub)
        problems.append(' or '.join(attempts))
    else:
        if not isinstance(value, dict):
            problems.append('%s is %s, not a document' % (where, bson_type(value)))
            return
        names = [name for name, _ in shape]
        if list(value) != names:
            problems.append('%s has fields %s, expected %s' % (where, list(value), names))
        for name, sub in shape:
            if name in value:
                matches(value[name], sub, '%s.%s' % (where, name) if where else name, problems)


def check_shape(coll, shape, expected_count=None):
    docs = list(coll.find())
    if expected_count is not None:
        check('%s holds %d documents' % (coll.name, expected_count), len(docs) == expected_count,
              'it holds %d' % len(docs))
    else:
        check('%s is not empty' % coll.name, bool(docs))
    for doc in docs:
        problems = []
        matches(doc, shape, '', problems)
        check('%s %r has the model\'s shape' % (coll.name, doc.get('_id')), not problems,
              '; '.join(problems))
    return docs


def check_indexes(coll, expected):
    """expected: [(key pattern as a list of pairs, unique)], besides _id."""
    found = sorted((list(ix['key'].items()), bool(ix.get('unique')))
                   for ix in coll.list_indexes() if ix['name'] != '_id_')
    want = sorted((list(key), unique) for key, unique in expected)
    check('%s has the indexes its model implies' % coll.name, found == want,
          'found %s, expected %s' % (found, want))


def check_references(coll, docs, field, target, many=False, nullable=False):
    ids = {d['_id'] for d in target.find({}, {'_id': 1})}
    for doc in docs:
        refs = doc.get(field)
        if refs is None and nullable:
            continue
        for ref in (refs if many else [refs]):
            check('%s %r: %s %r resolves in %s' % (coll.name, doc['_id'], field, ref, target.name),
                  ref in ids)


def midnight(d):
    return isinstance(d, datetime.datetime) and d.time() == datetime.time(0)


def decimal_text(v):
    return str(v) if isinstance(v, Decimal128) else None


# ---------------------------------------------------------------------------
# The examples' collections
# ---------------------------------------------------------------------------

ADDRESS = [('street', 'string'), ('city', 'string'), ('state', 'string'), ('zip', 'string')]
AUTHORS = 'string|array'


def check_books_and_publishers(db):
    publisher = check_shape(db.publisher, [('_id', 'string'), ('name', 'string'),
                                           ('founded', 'int'), ('location', 'string')], 1)
    check('publisher is the seed\'s', publisher and publisher[0]['_id'] == 'oreilly')
    book = [('_id', 'int'), ('title', 'string'), ('author', AUTHORS), ('published_date', 'date'),
            ('pages', 'int'), ('language', 'string'), ('publisher_id', 'string')]
    checked_out = book + [('available', 'int'),
                          ('checkout', [[('by', 'string'), ('date', 'date')]])]
    books = check_shape(db.books, ('either', book, checked_out), 2)
    for b in books:
        check('books %r: author is a string or an array of strings' % b['_id'],
              isinstance(b['author'], str) or all(isinstance(a, str) for a in b['author']))
        check('books %r: published_date is a day (midnight UTC)' % b['_id'],
              midnight(b['published_date']))
    check_references(db.books, books, 'publisher_id', db.publisher)
    check_indexes(db.books, [([('publisher_id', 1)], False)])
    check_indexes(db.publisher, [])


def check_category_tree(db):
    categories = check_shape(db.categories, [('_id', 'string'), ('parent', 'string|null'),
                                             ('children', ['string'])])
    check_references(db.categories, categories, 'parent', db.categories, nullable=True)
    check_references(db.categories, categories, 'children', db.categories, many=True)
    by_id = {c['_id']: c for c in categories}
    for c in categories:
        for child in c['children']:
            check('categories %r: child %r points back' % (c['_id'], child),
                  by_id.get(child, {}).get('parent') == c['_id'])
    check('categories: exactly one root', sum(c['parent'] is None for c in categories) == 1)
    check_indexes(db.categories, [([('parent', 1)], False), ([('children', 1)], False)])


def check_embedded(db):
    check_shape(db.patron, [('_id', 'string'), ('name', 'string'), ('addresses', [ADDRESS])], 1)
    check_indexes(db.patron, [([('addresses.city', 1)], False)])
    check_shape(db['client'], [('_id', 'string'), ('name', 'string'), ('address', ADDRESS)], 1)
    check_indexes(db['client'], [])


def check_hosts_and_messages(db):
    hosts = check_shape(db.hosts, [('_id', 'objectId'), ('name', 'string'), ('ipaddr', 'string')])
    check_indexes(db.hosts, [([('ipaddr', 1)], True)])
    messages = check_shape(db.logmsg, [('_id', 'objectId'), ('time', 'date'),
                                       ('message', 'string'), ('host', 'objectId')])
    check_references(db.logmsg, messages, 'host', db.hosts)
    check('logmsg: every host has messages',
          {m['host'] for m in messages} == {h['_id'] for h in hosts})
    check_indexes(db.logmsg, [([('host', 1), ('time', -1)], False)])


def check_keyword_search(db):
    check_shape(db.volumes, [('_id', 'objectId'), ('title', 'string'), ('author', 'string'),
                             ('published', 'int'), ('ISBN', 'int'), ('topics', ['string'])], 1)
    check_indexes(db.volumes, [([('topics', 1)], False)])


def check_money(db):
    gas = check_shape(db.gasprices, [('_id', 'int'), ('date', 'date'), ('price', 'decimal'),
                                     ('station', 'string'), ('grade', 'string')], 1)
    check('gasprices: price is NumberDecimal("2.099"), digit for digit',
          gas and decimal_text(gas[0]['price']) == '2.099')
    clothes = check_shape(db.clothes, [('_id', 'int'), ('description', 'string'),
                                       ('size', 'string'), ('price', 'decimal')], 5)
    expected = {1: '19.99', 2: '39.99', 3: '29.99', 4: '24.95', 5: '80.00'}
    check('clothes: every price migrated to the exact decimal, scale kept',
          {c['_id']: decimal_text(c['price']) for c in clothes} == expected,
          repr({c['_id']: c['price'] for c in clothes}))
    check_indexes(db.gasprices, [])
    check_indexes(db.clothes, [])


def check_product_parts(db):
    parts = check_shape(db.parts, [('_id', 'objectId'), ('partno', 'string'), ('name', 'string'),
                                   ('qty', 'int'), ('cost', 'decimal'), ('price', 'decimal')], 3)
    check('parts: cost and price are NumberDecimal, digit for digit (money is never a double)',
          parts and {p['partno']: (decimal_text(p['cost']), decimal_text(p['price'])) for p in parts} ==
          {'123-aff-456': ('0.94', '3.99'), '123-aff-457': ('1.06', '4.49'),
           '987-bcd-123': ('2.50', '9.99')},
          repr([(p.get('cost'), p.get('price')) for p in parts or []]))
    products = check_shape(db.products, [('_id', 'objectId'), ('name', 'string'),
                                         ('manufacturer', 'string'), ('catalog_number', 'int'),
                                         ('parts', ['objectId'])], 1)
    check_references(db.products, products, 'parts', db.parts, many=True)
    check('products: the product lists all three parts',
          products and sorted(products[0]['parts']) == sorted(p['_id'] for p in parts))
    check_indexes(db.products, [([('catalog_number', 1)], True)])
    check_indexes(db.parts, [])


def check_students(db):
    courses = check_shape(db.courses, [('_id', 'objectId'), ('name', 'string'),
                                       ('department', 'string'), ('points', 'int')], 2)
    students = check_shape(db.students, [('_id', 'objectId'), ('first_name', 'string'),
                                         ('last_name', 'string'),
                                         ('emails', [[('email', 'string'), ('type', 'string')]]),
                                         ('courses', ['objectId'])], 2)
    check('students: email types are stored by name', all(
        e['type'] in ('work', 'home') for s in students for e in s['emails']))
    check_references(db.students, students, 'courses', db.courses, many=True)
    messages = check_shape(db.messages, [('_id', 'objectId'), ('subject', 'string'),
                                         ('message', 'string'), ('posted_on', 'date'),
                                         ('posted_by', 'objectId')], 1)
    check_references(db.messages, messages, 'posted_by', db.students)
    check_indexes(db.students, [([('courses', 1)], False)])
    check_indexes(db.messages, [([('posted_by', 1)], False)])
    check_indexes(db.courses, [])
    check('courses: both are taken', {c for s in students for c in s['courses']} ==
          {c['_id'] for c in courses})


def check_movie_details(db):
    movies = check_shape(db.movie, [('_id', 'int'), ('title', 'string'), ('year', 'int'),
                                    ('runtime', 'int'), ('released', 'date'), ('type', 'string'),
                                    ('directors', ['string']), ('countries', ['string']),
                                    ('genres', ['string'])], 1)
    check('movie: released is a day', movies and midnight(movies[0]['released']))
    details = check_shape(db.movie_details, [
        ('_id', 'int'), ('movie_id', 'int'), ('poster', 'string'), ('plot', 'string'),
        ('fullplot', 'string'), ('lastupdated', 'date'),
        ('imdb', [('rating', 'double'), ('votes', 'int'), ('id', 'int')]),
        ('tomatoes', [('viewer', [('rating', 'double'), ('numReviews', 'int')]),
                      ('lastUpdated', 'date')])], 1)
    check_references(db.movie_details, details, 'movie_id', db.movie)
    check_indexes(db.movie_details, [([('movie_id', 1)], False)])
    check_indexes(db.movie, [])


REVIEW_FIELDS = [('review_id', 'int'), ('review_author', 'string'), ('review_text', 'string'),
                 ('published_date', 'date')]


def check_product_reviews(db):
    products = check_shape(db.product, [('_id', 'int'), ('name', 'string'),
                                        ('description', 'string'),
                                        ('price', [('value', 'decimal'), ('currency', 'string')]),
                                        ('reviews', [REVIEW_FIELDS])], 1)
    reviews = check_shape(db.review, [('_id', 'objectId'), ('review_id', 'int'),
                                      ('product_id', 'int')] + REVIEW_FIELDS[1:], 11)
    check_references(db.review, reviews, 'product_id', db.product)
    # The subset's order key, then its item key: ties in the date are broken by review_id.
    check_indexes(db.review, [([('product_id', 1), ('published_date', -1), ('review_id', -1)], False)])
    check_indexes(db.product, [])
    if not products:
        return
    product = products[0]
    check('product: price is {value: NumberDecimal("119.99"), currency: "USD"}',
          decimal_text(product['price']['value']) == '119.99' and
          product['price']['currency'] == 'USD')
    own = [r for r in reviews if r['product_id'] == product['_id']]
    newest = sorted(own, key=lambda r: (r['published_date'], r['review_id']), reverse=True)[:10]
    embedded = [(r['review_id'], r['review_author'], r['review_text'], r['published_date'])
                for r in product['reviews']]
    expected = [(r['review_id'], r['review_author'], r['review_text'], r['published_date'])
                for r in newest]
    check('product: reviews are exactly the 10 newest of `review`, newest first',
          embedded == expected, 'embedded %s' % [e[0] for e in embedded])


def check_order_line_items(db):
    categories = check_shape(db.product_categories, [('_id', 'string'), ('name', 'string')], 3)
    products = check_shape(db.order_products, [('_id', 'string'), ('name', 'string'), ('price', 'decimal'),
                                               ('category', 'string')], 5)
    check_references(db.order_products, products, 'category', db.product_categories)
    item = [('product', 'string'), ('quantity', 'int'), ('unit_price', 'decimal')]
    orders = check_shape(db.orders, [('_id', 'long'), ('customer', 'string'), ('items', [item])], 20)
    skus = {p['_id'] for p in products}
    for o in orders:
        for i, line in enumerate(o['items']):
            check('orders %r: items.%d.product %r resolves in order_products' % (o['_id'], i, line['product']),
                  line['product'] in skus)
    check('there are the three categories', len(categories) == 3)
    for name in ('orders', 'order_products', 'product_categories'):
        check_indexes(db[name], [])


def check_currency_report(db):
    customers = check_shape(db.report_customers, [('_id', 'string'), ('name', 'string')], 2)
    money = [('value', 'decimal'), ('currency', 'string')]
    orders = check_shape(db.report_orders, [('_id', 'int'), ('customer', 'string'), ('status', 'string'),
                                            ('total', money)], 6)
    check_references(db.report_orders, orders, 'customer', db.report_customers)
    check('report_orders: every total is Decimal128 with its currency, digit for digit',
          {o['_id']: (decimal_text(o['total']['value']), o['total']['currency']) for o in orders} ==
          {1: ('0.10', 'EUR'), 2: ('0.20', 'EUR'), 3: ('119.99', 'USD'), 4: ('2.099', 'USD'),
           5: ('50.00', 'USD'), 6: ('0.01', 'USD')},
          repr([o.get('total') for o in orders]))
    check('there are the two customers', len(customers) == 2)
    # The guide's clothes before their migration: prices in NumberLong cents.
    check_shape(db.report_clothes, [('_id', 'int'), ('description', 'string'), ('price', 'long')], 3)
    for name in ('report_customers', 'report_orders', 'report_clothes'):
        check_indexes(db[name], [])


def check_migrations(db):
    # model_evolution's migration ran to its end, which deletes its checkpoint.
    check('odm_migrations holds no checkpoint after a finished migration',
          db.odm_migrations.count_documents({}) == 0, repr(list(db.odm_migrations.find())))


CHECKS = [check_books_and_publishers, check_category_tree, check_embedded,
          check_hosts_and_messages, check_keyword_search, check_money, check_product_parts,
          check_students, check_movie_details, check_product_reviews, check_order_line_items,
          check_currency_report, check_migrations]

# Every collection the examples write; anything else in the database is unexpected.
COLLECTIONS = {'books', 'publisher', 'categories', 'patron', 'client', 'hosts', 'logmsg',
               'volumes', 'gasprices', 'clothes', 'parts', 'products', 'courses', 'students',
               'messages', 'movie', 'movie_details', 'product', 'review', 'orders', 'order_products',
               'product_categories', 'report_customers', 'report_orders', 'report_clothes',
               'odm_migrations'}


def main(argv):
    uri = os.environ.get('MONGODB_URI')
    if not uri:
        sys.stderr.write('crosscheck: set MONGODB_URI to the server the examples wrote to\n')
        return 2
    name = argv[1] if len(argv) > 1 else os.environ.get('ODM_EXAMPLES_DB') or 'odm_examples'
    client = pymongo.MongoClient(uri, serverSelectionTimeoutMS=10000)
    try:
        db = client[name]
        present = set(db.list_collection_names())
        check('database %s holds exactly the examples\' collections' % name,
              present == COLLECTIONS, 'missing %s, unexpected %s'
              % (sorted(COLLECTIONS - present), sorted(present - COLLECTIONS)))
        for fn in CHECKS:
            try:
                fn(db)
            except pymongo.errors.PyMongoError:
                raise
            except Exception as e:  # noqa: B902 - a malformed document must not stop the report
                check(fn.__name__, False, '%s: %s' % (type(e).__name__, e))
    except pymongo.errors.ServerSelectionTimeoutError as e:
        sys.stderr.write('crosscheck: cannot reach %s: %s\n' % (uri, e))
        return 2
    finally:
        client.close()
    for failure in failures:
        print('FAIL %s' % failure)
    print('crosscheck (pymongo %s): %d checks passed, %d failed'
          % (pymongo.version, passed[0], len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
