// Golden tests of the one writer of typed expressions (odm/query/query.cpp): every way
// && || ! and odm::nor nest, MongoDB's rules for the implicit and versus `$and`, for `$not`
// versus `$nor`, and the operator form inside `$elemMatch` and `$pull`, nested elem_match
// included. (Each operator alone: filter_test.cpp and update_test.cpp.)

#include "query/query_models.hpp"

namespace {

using namespace query_test;
using odm::field;

struct Line {
  std::string sku;
  std::int32_t qty;
  std::vector<std::int32_t> marks;
};

struct Shipment {
  std::int32_t id;
  std::vector<Line> lines;
  std::vector<std::vector<std::int32_t>> grid;
};

using F = odm::Filter<Book>;

TEST(ExpressionTest, AndMergesDistinctKeysAndUsesExplicitAndWhenOneRepeats) {
  const F a = field(&Book::pages) > 1;
  const F b = field(&Book::title) == "x";
  const F c = field(&Book::pages) < 9;
  EXPECT_BSON(a && b, R"({"pages": {"$gt": 1}, "title": "x"})");
  // A repeated key anywhere in the chain: every operand in one $and, in order.
  EXPECT_BSON(a && b && c, R"({"$and": [{"pages": {"$gt": 1}}, {"title": "x"}, {"pages": {"$lt": 9}}]})");
  EXPECT_BSON(a && (b && c), R"({"$and": [{"pages": {"$gt": 1}}, {"title": "x"}, {"pages": {"$lt": 9}}]})");
  // Two $or are two operators with the same key.
  const F or1 = a || b;
  const F or2 = c || field(&Book::available) == 0;
  EXPECT_BSON(or1 && or2, R"({"$and": [{"$or": [{"pages": {"$gt": 1}}, {"title": "x"}]},
                                      {"$or": [{"pages": {"$lt": 9}}, {"available": 0}]}]})");
  EXPECT_BSON(or1 && c, R"({"$or": [{"pages": {"$gt": 1}}, {"title": "x"}], "pages": {"$lt": 9}})");
  // $not keeps its field's key: it collides with a condition on the same field.
  EXPECT_BSON(!a && c, R"({"$and": [{"pages": {"$not": {"$gt": 1}}}, {"pages": {"$lt": 9}}]})");
  EXPECT_BSON(!a && b, R"({"pages": {"$not": {"$gt": 1}}, "title": "x"})");
  // $nor from ! and from odm::nor collide with each other.
  EXPECT_BSON(!(field(&Book::pages) == 1) && odm::nor(b),
              R"({"$and": [{"$nor": [{"pages": 1}]}, {"$nor": [{"title": "x"}]}]})");
  // The empty filter is the identity of &&.
  EXPECT_BSON(F{} && a, R"({"pages": {"$gt": 1}})");
  EXPECT_BSON(a && F{}, R"({"pages": {"$gt": 1}})");
  EXPECT_BSON(F{} && F{}, "{}");
}

TEST(ExpressionTest, AndWithRawFiltersReadsTheirKeys) {
  const F raw = F::raw(odm::Document::from_json(R"({"pages": 3, "$comment": "c"})"));
  EXPECT_BSON(raw && field(&Book::title) == "x", R"({"pages": 3, "$comment": "c", "title": "x"})");
  EXPECT_BSON(raw && field(&Book::pages) > 1, R"({"$and": [{"pages": 3, "$comment": "c"}, {"pages": {"$gt": 1}}]})");
  EXPECT_BSON(F::raw(odm::Document()) && field(&Book::pages) > 1, R"({"pages": {"$gt": 1}})");
}

TEST(ExpressionTest, OrAndNorNestAsWritten) {
  const F a = field(&Book::pages) == 1;
  const F b = field(&Book::pages) == 2;
  const F c = field(&Book::title) == "x";
  EXPECT_BSON(a || (b || c), R"({"$or": [{"pages": 1}, {"pages": 2}, {"title": "x"}]})");
  // An && inside an || is one operand, with its own implicit and or $and.
  EXPECT_BSON(a || (b && c), R"({"$or": [{"pages": 1}, {"pages": 2, "title": "x"}]})");
  EXPECT_BSON(a || (a && b), R"({"$or": [{"pages": 1}, {"$and": [{"pages": 1}, {"pages": 2}]}]})");
  EXPECT_BSON(odm::nor(a, b || c), R"({"$nor": [{"pages": 1}, {"$or": [{"pages": 2}, {"title": "x"}]}]})");
  EXPECT_BSON(odm::nor(a, F{}), R"({"$nor": [{"pages": 1}, {}]})");
  EXPECT_BSON(a || F{}, "{}");
}

TEST(ExpressionTest, NotIsOperatorLevelWhereMongoDbAllowsItAndNorElsewhere) {
  // $not takes one field's operator expression or a regular expression.
  EXPECT_BSON(!(field(&Book::pages) != 1), R"({"pages": {"$not": {"$ne": 1}}})");
  EXPECT_BSON(!field(&Book::pages).in({1, 2}), R"({"pages": {"$not": {"$in": [1, 2]}}})");
  EXPECT_BSON(!field(&Book::note).exists(), R"({"note": {"$not": {"$exists": true}}})");
  EXPECT_BSON(!field(&Book::author).size(0), R"({"author": {"$not": {"$size": 0}}})");
  EXPECT_BSON(!field(&Book::checkout).elem_match([](auto c) { return c / &Checkout::by == "ann"; }),
              R"({"checkout": {"$not": {"$elemMatch": {"by": "ann"}}}})");
  EXPECT_BSON(!field(&Book::title).regex("^a", "i"),
              R"({"title": {"$not": {"$regularExpression": {"pattern": "^a", "options": "i"}}}})");
  // Not on a value, a whole and, an or, a nor: $nor.
  EXPECT_BSON(!(field(&Book::pages) == 1), R"({"$nor": [{"pages": 1}]})");
  EXPECT_BSON(!(field(&Book::pages) > 1 && field(&Book::title) == "x"),
              R"({"$nor": [{"pages": {"$gt": 1}, "title": "x"}]})");
  EXPECT_BSON(!(field(&Book::pages) > 1 && field(&Book::pages) < 5),
              R"({"$nor": [{"$and": [{"pages": {"$gt": 1}}, {"pages": {"$lt": 5}}]}]})");
  EXPECT_BSON(!odm::nor(field(&Book::pages) == 1), R"({"$nor": [{"$nor": [{"pages": 1}]}]})");
  EXPECT_BSON(!F{}, R"({"$nor": [{}]})");
  EXPECT_BSON(!F::raw(odm::Document::from_json(R"({"$where": "1"})")), R"({"$nor": [{"$where": "1"}]})");
  // Double negation is the condition itself.
  EXPECT_BSON(!!(field(&Book::pages) == 1), R"({"pages": 1})");
  EXPECT_BSON(!!!(field(&Book::pages) > 1), R"({"pages": {"$not": {"$gt": 1}}})");
  EXPECT_BSON(!(!(field(&Book::pages) > 1) && field(&Book::title) == "x"),
              R"({"$nor": [{"pages": {"$not": {"$gt": 1}}, "title": "x"}]})");
}

TEST(ExpressionTest, ElementConditionsOnTheElementTakeTheOperatorForm) {
  // The README's example.
  EXPECT_BSON(field(&Movie::scores).elem_match([](auto s) { return s >= 80 && s < 85 && !(s == 82); }),
              R"({"scores": {"$elemMatch": {"$gte": 80, "$lt": 85, "$not": {"$eq": 82}}}})");
  EXPECT_BSON(field(&Movie::scores).elem_match([](auto s) { return s > 1 && s.nin({4, 5}) && !(s == 3); }),
              R"({"scores": {"$elemMatch": {"$gt": 1, "$nin": [4, 5], "$not": {"$eq": 3}}}})");
  EXPECT_BSON(field(&Movie::scores).elem_match([](auto s) { return !(s > 1 && s < 5); }),
              R"({"scores": {"$elemMatch": {"$not": {"$gt": 1, "$lt": 5}}}})");
  EXPECT_EQ(field(&Volume::topics).elem_match([](auto t) { return !t.regex("^a"); }).bson().to_canonical_json(),
            canonical(R"({"topics": {"$elemMatch":
                             {"$not": {"$regularExpression": {"pattern": "^a", "options": ""}}}}})"));
  EXPECT_BSON(field(&Movie::scores).pull([](auto s) { return s >= 80 && !(s > 90); }),
              R"({"$pull": {"scores": {"$gte": 80, "$not": {"$gt": 90}}}})");
  EXPECT_BSON(field(&Movie::scores).pull([](auto) { return odm::Filter<odm::Element<std::int32_t>>{}; }),
              R"({"$pull": {"scores": {}}})");
}

TEST(ExpressionTest, WhatTheOperatorFormCannotSayThrowsWhenBuilt) {
  const auto message = [](auto&& build) {
    try {
      (void)build();
    } catch (const odm::ValueError& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  EXPECT_NE(message([] { return field(&Movie::scores).elem_match([](auto s) { return s > 1 || s < 0; }); })
                .find("cannot combine alternatives"),
            std::string::npos);
  EXPECT_NE(message([] { return field(&Movie::scores).pull([](auto s) { return odm::nor(s > 1); }); })
                .find("cannot combine alternatives"),
            std::string::npos);
  EXPECT_NE(message([] { return field(&Movie::scores).elem_match([](auto s) { return s > 1 && s > 3; }); })
                .find("uses $gt twice"),
            std::string::npos);
  EXPECT_NE(message([] { return field(&Movie::scores).elem_match([](auto s) { return !(s > 1) && !(s < 0); }); })
                .find("uses $not twice"),
            std::string::npos);
  EXPECT_EQ(message([] {
              return field(&Shipment::lines).elem_match(
                  [](auto l) { return l / &Line::qty > 1 && (l / &Line::marks).elem_match([](auto) {
                                        return odm::Filter<odm::Element<std::int32_t>>{};
                                      }); });
            }),
            "<no error>");  // an empty condition on the inner element is `{}`, not a mix
}

TEST(ExpressionTest, ElementConditionsOnFieldsAreFilters) {
  EXPECT_BSON(field(&Shipment::lines).elem_match([](auto l) { return l / &Line::qty > 1 || l / &Line::sku == "a"; }),
              R"({"lines": {"$elemMatch": {"$or": [{"qty": {"$gt": 1}}, {"sku": "a"}]}}})");
  EXPECT_BSON(field(&Shipment::lines).elem_match([](auto l) { return !(l / &Line::sku == "a") && l / &Line::qty > 1; }),
              R"({"lines": {"$elemMatch": {"$nor": [{"sku": "a"}], "qty": {"$gt": 1}}}})");
  EXPECT_BSON(field(&Shipment::lines).elem_match([](auto l) { return l / &Line::qty > 1 && l / &Line::qty < 5; }),
              R"({"lines": {"$elemMatch": {"$and": [{"qty": {"$gt": 1}}, {"qty": {"$lt": 5}}]}}})");
}

TEST(ExpressionTest, NestedElemMatch) {
  // An array inside the elements of an array.
  EXPECT_BSON(field(&Shipment::lines).elem_match([](auto l) {
                return l / &Line::sku == "a" && (l / &Line::marks).elem_match([](auto m) { return m > 1 && m < 3; });
              }),
              R"({"lines": {"$elemMatch": {"sku": "a", "marks": {"$elemMatch": {"$gt": 1, "$lt": 3}}}}})");
  // Elements that are arrays themselves: $elemMatch in the operator form.
  EXPECT_BSON(field(&Shipment::grid).elem_match([](auto row) {
                return row.size(2) && row.elem_match([](auto cell) { return cell == 7; });
              }),
              R"({"grid": {"$elemMatch": {"$size": 2, "$elemMatch": {"$eq": 7}}}})");
  // The mix is refused at every level.
  EXPECT_THROW((void)field(&Shipment::lines).elem_match([](auto l) {
                 return (l / &Line::marks).elem_match([](auto m) { return m > 1 || m < 0; });
               }),
               odm::ValueError);
}

TEST(ExpressionTest, AFilterNestedDeeperThanMongoDbAcceptsIsRefusedWhenBuilt) {
  F f = field(&Book::pages) == 1;
  for (int level = 0; level < 40; ++level) f = !(f || field(&Book::title) == "x");  // 81 levels
  EXPECT_FALSE(f.bson().empty());
  try {
    for (int level = 0; level < 40; ++level) f = !(f || field(&Book::title) == "x");
    ADD_FAILURE() << "no error";
  } catch (const odm::ValueError& e) {
    EXPECT_STREQ(e.what(), "the filter nests its conditions 101 levels deep; MongoDB takes documents nested at most "
                           "100 levels");
  }
  EXPECT_THROW(
      {
        auto deep = field(&Book::pages) > 1;
        for (int level = 0; level < 200; ++level) deep = field(&Book::pages) == level || !deep;
      },
      odm::ValueError);
}

TEST(ExpressionTest, UpdatesWriteEachOperatorOnceInFirstAppearanceOrder) {
  EXPECT_BSON(field(&Book::pages).inc(1) + field(&Book::title).set("t") + field(&Book::sold).inc(2) +
                  field(&Book::author).push("x"),
              R"({"$inc": {"pages": 1, "sold": {"$numberLong": "2"}}, "$set": {"title": "t"},
                  "$push": {"author": "x"}})");
  EXPECT_BSON(field(&Book::author).add_to_set_each({"a"}) + field(&Book::checkout).pull([](auto c) {
                return c / &Checkout::by == "x";
              }),
              R"({"$addToSet": {"author": {"$each": ["a"]}}, "$pull": {"checkout": {"by": "x"}}})");
  // The last $sort given is the one written.
  EXPECT_BSON(field(&Movie::scores).push_each({1}).sort(odm::ascending).sort(odm::descending),
              R"({"$push": {"scores": {"$each": [1], "$sort": -1}}})");
  const auto reviews = field(&Product::reviews).push_each(std::vector<Review>{});
  EXPECT_BSON(reviews.sort(odm::asc(&Review::id)).sort(odm::descending),
              R"({"$push": {"reviews": {"$each": [], "$sort": -1}}})");
  EXPECT_BSON(reviews.sort(odm::descending).sort(odm::asc(&Review::id)),
              R"({"$push": {"reviews": {"$each": [], "$sort": {"id": 1}}}})");
}

TEST(ExpressionTest, RawUpdatesCombineByTheirOperatorsAndPaths) {
  const auto raw = odm::Update<Book>::raw(odm::Document::from_json(R"({"$set": {"pages": 1}, "$inc": {"sold": 1}})"));
  EXPECT_BSON(raw + field(&Book::title).set("t"), R"({"$set": {"pages": 1, "title": "t"}, "$inc": {"sold": 1}})");
  EXPECT_THROW((void)(raw + field(&Book::pages).inc(1)), odm::ValueError);
  // A document that is not {$op: {path: value}} is sent as written, and cannot be combined.
  const auto whole = odm::Update<Book>::raw(odm::Document::from_json(R"({"title": "t"})"));
  EXPECT_BSON(whole, R"({"title": "t"})");
  EXPECT_BSON(whole + odm::Update<Book>{}, R"({"title": "t"})");
  try {
    (void)(whole + field(&Book::pages).inc(1));
    ADD_FAILURE() << "no error";
  } catch (const odm::ValueError& e) {
    EXPECT_STREQ(e.what(), "cannot combine updates: `title` does not hold a document of fields");
  }
}

}  // namespace
