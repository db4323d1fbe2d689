// Typed aggregation expressions (include/odm/aggregation/expression.hpp): the type each
// operator gives (checked when this file compiles), the BSON each writes, and where they
// go: $set/$addFields, $group's accumulators and $match's $expr. Against servers:
// expression_itest.cpp; what does not compile: tests/compile_fail/agg_expression_*.cpp.

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace aggregation_expression_test {

using Time = std::chrono::sys_time<std::chrono::milliseconds>;

struct Box {
  std::int32_t width = 0;
};

struct Line {
  std::int32_t id = 0;
  std::optional<Box> box;
  bool gift = false;
  std::chrono::system_clock::time_point scanned_at;
  std::string product;
  std::int32_t quantity = 0;
  std::int64_t weight_grams = 0;
  double rating = 0;
  odm::Money unit_price;
  std::optional<odm::Decimal> discount;
  std::optional<std::string> note;
  Time sold_at;
};

struct Priced {
  std::int32_t id = 0;
  std::string product;
  odm::Decimal revenue;
  std::int32_t month = 0;
  std::string label;
};

struct Discounted {
  std::int32_t id = 0;
  std::string product;
  odm::Decimal revenue;
};

struct Monthly {
  std::int32_t id = 0;
  odm::Decimal revenue;
};

struct Shown {
  std::string product;
  odm::Decimal revenue;
};

struct PerProduct {
  std::string id;
  odm::Decimal revenue;
  double average_rating = 0;
};

}  // namespace aggregation_expression_test

namespace {

using namespace aggregation_expression_test;
namespace agg = odm::agg;
using odm::field;

constexpr auto quantity = field(&Line::quantity);
constexpr auto price = field(&Line::unit_price);

template <class E>
using value_t = typename E::value_type;

TEST(AggregationExpression, EachOperatorHasTheTypeMongoDBReturns) {
  // Integers widen to int64, with a double to double, with a Decimal to Decimal.
  static_assert(std::is_same_v<value_t<decltype(agg::multiply(quantity, quantity))>, std::int64_t>);
  static_assert(std::is_same_v<value_t<decltype(agg::add(quantity, field(&Line::weight_grams)))>, std::int64_t>);
  static_assert(std::is_same_v<value_t<decltype(agg::multiply(quantity, field(&Line::rating)))>, double>);
  static_assert(std::is_same_v<value_t<decltype(agg::multiply(quantity, odm::amount(price)))>, odm::Decimal>);
  static_assert(std::is_same_v<value_t<decltype(agg::subtract(odm::amount(price), 1))>, odm::Decimal>);
  // Integers divide into a double; a Decimal into a Decimal.
  static_assert(std::is_same_v<value_t<decltype(agg::divide(quantity, 2))>, double>);
  static_assert(std::is_same_v<value_t<decltype(agg::divide(odm::amount(price), quantity))>, odm::Decimal>);
  // An operand that may be null makes the result optional.
  static_assert(std::is_same_v<value_t<decltype(agg::multiply(field(&Line::discount), quantity))>,
                               std::optional<odm::Decimal>>);
  static_assert(std::is_same_v<value_t<decltype(agg::if_null(field(&Line::discount), odm::Decimal("0")))>,
                               odm::Decimal>);
  static_assert(std::is_same_v<value_t<decltype(agg::round(odm::amount(price), 2))>, odm::Decimal>);
  static_assert(std::is_same_v<value_t<decltype(agg::round(quantity))>, std::int64_t>);
  static_assert(std::is_same_v<value_t<decltype(agg::concat(field(&Line::product), " x"))>, std::string>);
  static_assert(std::is_same_v<value_t<decltype(agg::concat(field(&Line::note), "!"))>, std::optional<std::string>>);
  static_assert(std::is_same_v<value_t<decltype(agg::month(field(&Line::sold_at)))>, std::int32_t>);
  static_assert(std::is_same_v<value_t<decltype(agg::date_trunc(field(&Line::sold_at), agg::DateUnit::month))>, Time>);
  static_assert(std::is_same_v<value_t<decltype(agg::gt(quantity, 2.5))>, bool>);
  static_assert(std::is_same_v<value_t<decltype(agg::cond(agg::gt(quantity, 10), odm::Decimal("0.9"),
                                                          odm::Decimal("1")))>,
                               odm::Decimal>);
  // The scope is the struct read; a constant reads none.
  static_assert(std::is_same_v<decltype(agg::multiply(quantity, 2))::scope_type, Line>);
  static_assert(std::is_void_v<decltype(agg::literal(2))::scope_type>);
}

std::string set_stage(const odm::Document& pipeline) {
  bson_iter_t it;
  bson_iter_t stage;
  EXPECT_TRUE(bson_iter_init(&it, pipeline.get()) && bson_iter_find_descendant(&it, "0", &stage));
  return odm::detail::copy_held_document(stage).to_json();
}

TEST(AggregationExpression, AComputedFieldIsWrittenAsMongoDBsOperators) {
  const auto pipeline =
      odm::pipeline<Line>().add_fields<Priced>(
          agg::compute<&Priced::revenue>(agg::round(agg::multiply(quantity, odm::amount(price)), 2)),
          agg::compute<&Priced::month>(agg::month(field(&Line::sold_at))),
          agg::compute<&Priced::label>(agg::concat(field(&Line::product), " (", "$not a field", ")")));
  EXPECT_EQ(set_stage(pipeline.bson()),
            R"({ "$addFields" : { "revenue" : { "$round" : [ { "$multiply" : [ "$quantity", "$unit_price.value" ] }, 2 ] }, )"
            R"("month" : { "$month" : "$sold_at" }, )"
            R"("label" : { "$concat" : [ "$product", { "$literal" : " (" }, { "$literal" : "$not a field" }, )"
            R"js({ "$literal" : ")" } ] } } })js");
}

TEST(AggregationExpression, ConditionsDefaultsAndDateTruncation) {
  const auto pipeline = odm::pipeline<Line>().add_fields<Discounted>(
      agg::compute<&Discounted::revenue>(agg::cond(agg::both(agg::gte(quantity, 10), agg::negate(agg::eq(quantity, 13))),
                                               agg::if_null(field(&Line::discount), odm::Decimal("0")),
                                               agg::literal(odm::Decimal("1")))));
  EXPECT_EQ(set_stage(pipeline.bson()),
            R"({ "$addFields" : { "revenue" : { "$cond" : [ { "$and" : [ { "$gte" : [ "$quantity", { "$literal" : 10 } ] }, )"
            R"({ "$not" : [ { "$eq" : [ "$quantity", { "$literal" : 13 } ] } ] } ] }, )"
            R"({ "$ifNull" : [ "$discount", { "$literal" : { "$numberDecimal" : "0" } } ] }, )"
            R"({ "$literal" : { "$numberDecimal" : "1" } } ] } } })");
  const auto truncated = agg::date_trunc(field(&Line::sold_at), agg::DateUnit::week);
  odm::Document holder;
  odm::detail::append_expression(holder.get_mutable(), "t", truncated.bson());
  EXPECT_EQ(holder.to_json(), R"({ "t" : { "$dateTrunc" : { "date" : "$sold_at", "unit" : "week" } } })");
}

TEST(AggregationExpression, AccumulatorsAndMatchTakeExpressions) {
  const auto pipeline =
      odm::pipeline<Line>()
          .match(agg::where(agg::gt(agg::multiply(quantity, odm::amount(price)), odm::Decimal("100"))))
          .group<PerProduct>(agg::by(field(&Line::product)),
                             agg::sum<&PerProduct::revenue>(agg::multiply(quantity, odm::amount(price))),
                             agg::avg<&PerProduct::average_rating>(agg::multiply(field(&Line::rating), 2)));
  const std::string json = pipeline.bson().to_json();
  EXPECT_NE(json.find(R"({ "$match" : { "$expr" : { "$gt" : [ { "$multiply" : [ "$quantity", "$unit_price.value" ] }, )"
                      R"({ "$literal" : { "$numberDecimal" : "100" } } ] } } })"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("revenue" : { "$sum" : { "$ifNull" : [ { "$multiply" : [ "$quantity", "$unit_price.value" ] }, )"
                      R"({ "$numberDecimal" : "0" } ] } })"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("average_rating" : { "$avg" : { "$multiply" : [ "$rating", { "$literal" : 2 } ] } })"),
            std::string::npos)
      << json;
}

// A field inside an optional sub-document reads null where the sub-document is missing: its
// plain type cannot say so, so the expression is refused where it is built; value_or gives
// the fallback.
TEST(AggregationExpression, AFieldInsideAnOptionalSubDocumentNeedsAFallback) {
  const auto width = field(&Line::box) / &Box::width;
  try {
    (void)agg::multiply(width, 2);
    ADD_FAILURE() << "an expression over box.width was built";
  } catch (const odm::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("box.width lies inside an optional sub-document"), std::string::npos)
        << error.what();
  }
  const auto doubled = agg::multiply(agg::value_or(width, 0), 2);
  static_assert(std::is_same_v<value_t<decltype(doubled)>, std::int64_t>);
  odm::Document holder;
  odm::detail::append_expression(holder.get_mutable(), "w", doubled.bson());
  EXPECT_EQ(holder.to_json(),
            R"({ "w" : { "$multiply" : [ { "$ifNull" : [ "$box.width", { "$literal" : 0 } ] }, { "$literal" : 2 } ] } })");
}

TEST(AggregationExpression, WhatAUserWritesNaturallyCompiles) {
  // An integer constant of any type is stored by its size.
  static_assert(std::is_same_v<value_t<decltype(agg::literal(5LL))>, std::int64_t>);
  static_assert(std::is_same_v<value_t<decltype(agg::add(quantity, 5LL))>, std::int64_t>);
  static_assert(std::is_same_v<value_t<decltype(agg::literal(short{5}))>, std::int32_t>);
  // Dates of two precisions compare.
  static_assert(std::is_same_v<value_t<decltype(agg::lt(field(&Line::sold_at), field(&Line::scanned_at)))>, bool>);
  // A bool field is a condition of its own.
  const odm::Filter<Line> gifts = agg::where(field(&Line::gift));
  EXPECT_EQ(gifts.bson().to_json(), R"({ "$expr" : "$gift" })");
}

TEST(AggregationExpression, AGroupKeyAndAProjectionTakeExpressions) {
  const auto revenue = agg::multiply(quantity, odm::amount(price));
  const auto per_month = odm::pipeline<Line>().group<Monthly>(agg::by(agg::month(field(&Line::sold_at))),
                                                               agg::sum<&Monthly::revenue>(revenue));
  EXPECT_NE(per_month.bson().to_json().find(R"({ "$group" : { "_id" : { "$month" : "$sold_at" }, "revenue" : )"),
            std::string::npos)
      << per_month.bson().to_json();
  const auto shown = odm::pipeline<Line>().project<Shown>(agg::compute<&Shown::revenue>(revenue));
  EXPECT_EQ(set_stage(shown.bson()),
            R"({ "$project" : { "product" : 1, "revenue" : { "$multiply" : [ "$quantity", "$unit_price.value" ] }, )"
            R"("_id" : 0 } })");
}

TEST(AggregationExpression, RoundingPlacesOutsideMongoDBsRangeAreRefused) {
  EXPECT_THROW((void)agg::round(odm::amount(price), 101), odm::ValueError);
  EXPECT_THROW((void)agg::round(odm::amount(price), -21), odm::ValueError);
  EXPECT_NO_THROW((void)agg::round(odm::amount(price), -20));
}

}  // namespace
