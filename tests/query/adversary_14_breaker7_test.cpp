// Adversarial probes of issue 14 (typed expressions written once), written from the
// README and MongoDB's manual by someone who did not write the writer: the forms MongoDB
// documents for `$and`, `$not`, `$nor` and `$elemMatch`, filters of 100,000 conditions
// (no hang, no stack exhaustion, every condition kept in order), updates whose operators
// conflict (an odm::ValueError where the update is built, never a server error), and the
// `$push` modifiers.

#include "query/query_models.hpp"

#include <bson/bson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace adversary_14_breaker7 {
namespace {

using odm::field;
using query_test::canonical;

struct Line {
  std::string sku;
  std::int32_t qty = 0;
};

struct Doc {
  std::int64_t id = 0;
  std::int32_t n = 0;
  std::int32_t number = 0;  // "n" is a prefix of its name, not a parent path
  std::string name;
  std::vector<std::int32_t> scores;
  std::vector<std::string> tags;
  std::vector<Line> lines;
  Line main;
  std::optional<std::string> note;
};

using F = odm::Filter<Doc>;
using U = odm::Update<Doc>;

std::string json_of(const F& f) { return f.bson().to_canonical_json(); }
std::string json_of(const U& u) { return u.bson().to_canonical_json(); }

// ---- MongoDB's documented forms ----------------------------------------------------------

// https://www.mongodb.com/docs/manual/reference/operator/query/and/: "use an explicit AND
// with the $and operator when the same field or operator has to be specified in multiple
// expressions".
TEST(Breaker7Expressions, TwoConditionsOnOneFieldAreAnExplicitAnd) {
  EXPECT_EQ(json_of(field(&Doc::n) > 1 && field(&Doc::n) < 5),
            canonical(R"({"$and": [{"n": {"$gt": 1}}, {"n": {"$lt": 5}}]})"));
  // `n` and `number` are different fields; `main` and `main.qty` are different keys.
  EXPECT_EQ(json_of(field(&Doc::n) > 1 && field(&Doc::number) < 5),
            canonical(R"({"n": {"$gt": 1}, "number": {"$lt": 5}})"));
  EXPECT_EQ(json_of(field(&Doc::main) / &Line::qty == 2 && field(&Doc::main) / &Line::sku == "a"),
            canonical(R"({"main.qty": 2, "main.sku": "a"})"));
  // The same condition twice is still two conditions on one field.
  EXPECT_EQ(json_of(field(&Doc::n) == 1 && field(&Doc::n) == 1), canonical(R"({"$and": [{"n": 1}, {"n": 1}]})"));
}

// https://www.mongodb.com/docs/manual/reference/operator/query/not/: `$not` takes an
// operator expression or a regular expression.
TEST(Breaker7Expressions, NotTakesTheOperatorOrTheRegex) {
  EXPECT_EQ(json_of(!field(&Doc::name).regex("^a", "i")),
            canonical(R"({"name": {"$not": {"$regularExpression": {"pattern": "^a", "options": "i"}}}})"));
  EXPECT_EQ(json_of(!field(&Doc::n).in({1, 2})), canonical(R"({"n": {"$not": {"$in": [1, 2]}}})"));
  EXPECT_EQ(json_of(!field(&Doc::scores).elem_match([](auto s) { return s > 3 && s < 9; })),
            canonical(R"({"scores": {"$not": {"$elemMatch": {"$gt": 3, "$lt": 9}}}})"));
  EXPECT_EQ(json_of(!field(&Doc::lines).elem_match([](auto l) { return l / &Line::qty > 3; })),
            canonical(R"({"lines": {"$not": {"$elemMatch": {"qty": {"$gt": 3}}}}})"));
  EXPECT_EQ(json_of(!field(&Doc::tags).size(0)), canonical(R"({"tags": {"$not": {"$size": 0}}})"));
  // A value is no operator expression: {n: {$not: 3}} is refused by MongoDB.
  EXPECT_EQ(json_of(!(field(&Doc::n) == 3)), canonical(R"({"$nor": [{"n": 3}]})"));
  // !!a is a.
  EXPECT_EQ(json_of(!!(field(&Doc::n) > 3)), canonical(R"({"n": {"$gt": 3}})"));
}

// README: `!` of a whole && or || is `$nor: [...]`; odm::nor lists its operands.
TEST(Breaker7Expressions, NotOfAndOrAndNor) {
  EXPECT_EQ(json_of(!(field(&Doc::n) > 1 && field(&Doc::name) == "a")),
            canonical(R"({"$nor": [{"n": {"$gt": 1}, "name": "a"}]})"));
  EXPECT_EQ(json_of(!(field(&Doc::n) > 1 && field(&Doc::n) < 5)),
            canonical(R"({"$nor": [{"$and": [{"n": {"$gt": 1}}, {"n": {"$lt": 5}}]}]})"));
  EXPECT_EQ(json_of(!(field(&Doc::n) == 1 || field(&Doc::name) == "a")),
            canonical(R"({"$nor": [{"$or": [{"n": 1}, {"name": "a"}]}]})"));
  EXPECT_EQ(json_of(odm::nor(field(&Doc::n) == 1, field(&Doc::n) == 2, field(&Doc::name) == "x")),
            canonical(R"({"$nor": [{"n": 1}, {"n": 2}, {"name": "x"}]})"));
  // The empty filter matches everything: its negation matches nothing, and MongoDB takes
  // {} as a `$nor` operand.
  EXPECT_EQ(json_of(!F{}), canonical(R"({"$nor": [{}]})"));
  EXPECT_EQ(json_of(F{} || field(&Doc::n) == 1), canonical("{}"));
}

// https://www.mongodb.com/docs/manual/reference/operator/query/elemMatch/: conditions on
// the element itself are operator expressions; on a document element, a filter.
TEST(Breaker7Expressions, ElemMatchOnScalarsAndDocuments) {
  EXPECT_EQ(json_of(field(&Doc::scores).elem_match([](auto s) { return s >= 80 && s < 85 && !(s == 82); })),
            canonical(R"({"scores": {"$elemMatch": {"$gte": 80, "$lt": 85, "$not": {"$eq": 82}}}})"));
  {
    // {tags: {$elemMatch: {$regex: "x", $ne: "xy"}}}: written by hand, since Extended JSON
    // reads a `$regex` key as its legacy regular-expression form.
    odm::Document expected;
    bson_t tags, match;
    bson_append_document_begin(expected.get_mutable(), "tags", 4, &tags);
    bson_append_document_begin(&tags, "$elemMatch", 10, &match);
    bson_append_utf8(&match, "$regex", 6, "x", 1);
    bson_append_utf8(&match, "$ne", 3, "xy", 2);
    bson_append_document_end(&tags, &match);
    bson_append_document_end(expected.get_mutable(), &tags);
    EXPECT_EQ(json_of(field(&Doc::tags).elem_match([](auto t) { return t.regex("x") && t != "xy"; })),
              expected.to_canonical_json());
  }
  EXPECT_EQ(json_of(field(&Doc::lines).elem_match([](auto l) { return l / &Line::qty > 2 && l / &Line::sku == "x"; })),
            canonical(R"({"lines": {"$elemMatch": {"qty": {"$gt": 2}, "sku": "x"}}})"));
  EXPECT_EQ(json_of(field(&Doc::lines).elem_match([](auto l) { return l / &Line::qty > 2 && l / &Line::qty < 5; })),
            canonical(R"({"lines": {"$elemMatch": {"$and": [{"qty": {"$gt": 2}}, {"qty": {"$lt": 5}}]}}})"));
  EXPECT_EQ(json_of(field(&Doc::lines).elem_match([](auto l) { return l / &Line::qty > 2 || l / &Line::sku == "x"; })),
            canonical(R"({"lines": {"$elemMatch": {"$or": [{"qty": {"$gt": 2}}, {"sku": "x"}]}}})"));
  // What the operator form cannot say is refused where the filter is built.
  EXPECT_THROW((void)field(&Doc::scores).elem_match([](auto s) { return s > 1 || s < 0; }), odm::ValueError);
  EXPECT_THROW((void)field(&Doc::scores).elem_match([](auto s) { return s > 1 && s > 3; }), odm::ValueError);
}

// README: `.in({...})`; MongoDB: `$in: []` matches nothing, `$nin: []` everything.
TEST(Breaker7Expressions, EmptyInAndNinAreSentAsEmptyLists) {
  const std::vector<std::int32_t> none;
  EXPECT_EQ(json_of(field(&Doc::n).in(none)), canonical(R"({"n": {"$in": []}})"));
  EXPECT_EQ(json_of(field(&Doc::n).nin(none)), canonical(R"({"n": {"$nin": []}})"));
  EXPECT_EQ(json_of(!field(&Doc::n).in(none)), canonical(R"({"n": {"$not": {"$in": []}}})"));
  EXPECT_EQ(json_of(field(&Doc::scores).all(none)), canonical(R"({"scores": {"$all": []}})"));
}

// ---- scale: long chains must neither hang nor exhaust the stack -------------------------

constexpr std::int32_t kConditions = 100'000;

/// The operands of the one top-level `key: [...]` of `filter`; checks operand i is {n: i}.
void expect_operands(const odm::Document& filter, const char* key, std::int32_t count) {
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, filter.get(), key)) << key;
  bson_iter_t item;
  ASSERT_TRUE(bson_iter_recurse(&it, &item));
  std::int32_t i = 0;
  while (bson_iter_next(&item)) {
    bson_iter_t inner;
    ASSERT_TRUE(bson_iter_recurse(&item, &inner));
    ASSERT_TRUE(bson_iter_find(&inner, "n")) << i;
    ASSERT_EQ(bson_iter_int32(&inner), i) << "operand " << i;
    ++i;
  }
  EXPECT_EQ(i, count);
}

TEST(Breaker7Scale, AHundredThousandOrConditionsBuiltInALoop) {
  F any;
  for (std::int32_t i = 0; i < kConditions; ++i) any = i == 0 ? field(&Doc::n) == i : any || field(&Doc::n) == i;
  expect_operands(any.bson(), "$or", kConditions);
  // Negated: one $nor holding the $or.
  const odm::Document negated = (!any).bson();
  bson_iter_t it, first;
  ASSERT_TRUE(bson_iter_init_find(&it, negated.get(), "$nor"));
  ASSERT_TRUE(bson_iter_recurse(&it, &first));
  ASSERT_TRUE(bson_iter_next(&first));
  bson_t inner;
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&first, &length, &data);
  ASSERT_TRUE(bson_init_static(&inner, data, length));
  expect_operands(odm::Document::copy_of(&inner), "$or", kConditions);
  EXPECT_FALSE(bson_iter_next(&first));
}

TEST(Breaker7Scale, AHundredThousandAndConditionsOnOneFieldBuiltInALoop) {
  F all;
  for (std::int32_t i = 0; i < kConditions; ++i) all = all && field(&Doc::n) == i;
  expect_operands(all.bson(), "$and", kConditions);
}

TEST(Breaker7Scale, AHundredThousandConditionsCombinedPairwise) {
  std::vector<F> level;
  for (std::int32_t i = 0; i < kConditions; ++i) level.push_back(field(&Doc::n) == i);
  while (level.size() > 1) {
    std::vector<F> next;
    for (std::size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(level[i] || level[i + 1]);
    if (level.size() % 2 == 1) next.push_back(level.back());
    level = std::move(next);
  }
  expect_operands(level.front().bson(), "$or", kConditions);
}

// MongoDB takes at most 100 levels of nesting: a deeper filter is an odm error where it is
// built, never a crash (and never sent).
TEST(Breaker7Scale, NestingPastMongoDBsLimitIsAValueError) {
  F f = field(&Doc::n) == 0;
  bool refused = false;
  for (std::int32_t i = 1; i < 10'000 && !refused; ++i) {
    try {
      f = !(f && field(&Doc::name) == std::to_string(i)) || field(&Doc::n) == i;
    } catch (const odm::ValueError&) {
      refused = true;
    }
  }
  EXPECT_TRUE(refused);
  (void)f.bson();  // the last accepted filter is still writable
}

// ---- updates -------------------------------------------------------------------------------

// MongoDB refuses an update with two operators on one path, or on a path and a path inside
// it ("Updating the path 'x' would create a conflict at 'x'"). README: "an update with two
// operators on one path" throws odm::ValueError where it is built.
TEST(Breaker7Updates, ConflictingPathsAreRefusedWhereTheUpdateIsBuilt) {
  constexpr auto n = field(&Doc::n);
  constexpr auto sub = field(&Doc::main);
  constexpr auto lines = field(&Doc::lines);
  constexpr auto scores = field(&Doc::scores);
  EXPECT_THROW((void)(n.set(1) + n.inc(1)), odm::ValueError);
  EXPECT_THROW((void)(n.set(1) + n.set(2)), odm::ValueError);
  EXPECT_THROW((void)(n.set_on_insert(1) + n.set(2)), odm::ValueError);
  EXPECT_THROW((void)(n.min(1) + n.max(5)), odm::ValueError);
  EXPECT_THROW((void)(sub.set(Line{"a", 1}) + (sub / &Line::qty).inc(1)), odm::ValueError);
  EXPECT_THROW((void)((sub / &Line::qty).inc(1) + sub.set(Line{"a", 1})), odm::ValueError);
  EXPECT_THROW((void)(scores.push(1) + scores.pull(2)), odm::ValueError);
  EXPECT_THROW((void)(scores.push(1) + scores.push(2)), odm::ValueError);
  EXPECT_THROW((void)(scores.pop_first() + scores.pop_last()), odm::ValueError);
  EXPECT_THROW((void)(scores.add_to_set(1) + scores.pull_all({2})), odm::ValueError);
  EXPECT_THROW((void)((lines.all_elements() / &Line::qty).inc(1) + lines.push(Line{"b", 2})), odm::ValueError);
  EXPECT_THROW((void)(lines.push_each({Line{"b", 2}}).slice(3) + (lines.matched() / &Line::qty).set(1)), odm::ValueError);
  EXPECT_THROW((void)(field(&Doc::note).unset() + field(&Doc::note).set(std::string("x"))), odm::ValueError);
  EXPECT_THROW((void)(U::raw(odm::Document::from_json(R"({"$set": {"n": 1}})")) + n.inc(1)), odm::ValueError);
  // A conflict inside a longer sum is found wherever it lies.
  EXPECT_THROW((void)(field(&Doc::name).set(std::string("a")) + n.inc(1) + scores.push(3) + n.mul(2)), odm::ValueError);
  U sum = field(&Doc::name).set(std::string("a"));
  sum += n.inc(1);
  EXPECT_THROW(sum += (sub / &Line::sku).set(std::string("x")) + n.max(3), odm::ValueError);

  // Not conflicts: `n` and `number`, two fields of one sub-document, two fields of the
  // matched element.
  EXPECT_EQ(json_of(n.inc(1) + field(&Doc::number).set(2)),
            canonical(R"({"$inc": {"n": 1}, "$set": {"number": 2}})"));
  EXPECT_EQ(json_of((sub / &Line::qty).inc(1) + (sub / &Line::sku).set(std::string("x"))),
            canonical(R"({"$inc": {"main.qty": 1}, "$set": {"main.sku": "x"}})"));
  EXPECT_EQ(json_of((lines.matched() / &Line::qty).inc(1) + (lines.matched() / &Line::sku).set(std::string("x"))),
            canonical(R"({"$inc": {"lines.$.qty": 1}, "$set": {"lines.$.sku": "x"}})"));
}

// https://www.mongodb.com/docs/manual/reference/operator/update/push/#modifiers
TEST(Breaker7Updates, PushModifiers) {
  EXPECT_EQ(json_of(field(&Doc::scores).push_each({3, 1}).position(0).sort(odm::descending).slice(-5)),
            canonical(R"({"$push": {"scores": {"$each": [3, 1], "$position": 0, "$sort": -1, "$slice": -5}}})"));
  EXPECT_EQ(json_of(field(&Doc::lines)
                        .push_each({Line{"a", 1}})
                        .sort(odm::desc(&Line::qty), odm::asc(&Line::sku))
                        .slice(3)),
            canonical(R"({"$push": {"lines": {"$each": [{"sku": "a", "qty": 1}], "$sort": {"qty": -1, "sku": 1},
                                               "$slice": 3}}})"));
  // An empty $each with $slice trims the array (the manual's "Use $push Operator with
  // Multiple Modifiers" and $slice's "$each: []" example).
  const std::vector<std::int32_t> none;
  EXPECT_EQ(json_of(field(&Doc::scores).push_each(none).slice(2)),
            canonical(R"({"$push": {"scores": {"$each": [], "$slice": 2}}})"));
  // A push with modifiers combines with an update of another path.
  EXPECT_EQ(json_of(field(&Doc::scores).push_each({7}).slice(-3) + field(&Doc::n).inc(1)),
            canonical(R"({"$push": {"scores": {"$each": [7], "$slice": -3}}, "$inc": {"n": 1}})"));
}

// odm::sort refuses a key named twice (README; sort.hpp); the same keys order a $push, where
// a key twice would send `$sort: {qty: -1, qty: 1}`, a document with a repeated key.
TEST(Breaker7Updates, ASortNamingAKeyTwiceIsRefused) {
  EXPECT_THROW((void)odm::sort(odm::desc(&Line::qty), odm::asc(&Line::qty)), odm::ValueError);
  EXPECT_THROW((void)odm::sort(odm::asc(&Doc::n), odm::desc(&Doc::number), odm::desc(&Doc::n)), odm::ValueError);
}

TEST(Breaker7Updates, APushSortNamingAKeyTwiceIsRefusedLikeASort) {
  EXPECT_THROW((void)field(&Doc::lines)
                   .push_each({Line{"a", 1}})
                   .sort(odm::desc(&Line::qty), odm::asc(&Line::qty)),
               odm::ValueError);
}

}  // namespace
}  // namespace adversary_14_breaker7
