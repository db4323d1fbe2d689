// Typed paths to the parts of Money and DisplayMoney (odm/query/parts.hpp): the stored
// names they reach, the types they compare with, and where they are refused.

#include "query/query_models.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace query_parts_test {

struct Line {
  std::string sku;
  odm::Money price;
};

struct Listing {
  std::int32_t id = 0;
  odm::Money price;
  std::optional<odm::Money> discount;
  odm::DisplayMoney shown;
  std::vector<Line> lines;
  odm::LocalTime listed;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Listing::price, "p"));
    static constexpr auto indexes = odm::indexes(odm::index("p.value"), odm::index("shown.approx", "p.currency"));
  };
};

}  // namespace query_parts_test

namespace {

using namespace query_parts_test;
using odm::field;
using query_test::expect_bson;

constexpr auto price = field(&Listing::price);

TEST(MoneyParts, NameTheStoredFieldsUnderTheMembersStoredName) {
  EXPECT_EQ(odm::amount(price).name(), "p.value");
  EXPECT_EQ(odm::currency(price).name(), "p.currency");
  EXPECT_EQ(odm::currency(field(&Listing::shown)).name(), "shown.currency");
  EXPECT_EQ(odm::approx(field(&Listing::shown)).name(), "shown.approx");
  EXPECT_EQ(odm::amount(field(&Listing::lines) / &Line::price).name(), "lines.price.value");
  EXPECT_EQ((field(&Listing::listed) / &odm::LocalTime::date).name(), "listed.date");
}

TEST(MoneyParts, HaveTheTypesOfWhatIsStored) {
  static_assert(std::is_same_v<decltype(odm::amount(price))::value_type, odm::Decimal>);
  static_assert(std::is_same_v<decltype(odm::currency(price))::value_type, std::string>);
  static_assert(std::is_same_v<decltype(odm::approx(field(&Listing::shown)))::value_type, double>);
  // A document without the optional Money has no amount either.
  static_assert(std::is_same_v<decltype(odm::amount(field(&Listing::discount)))::value_type, std::optional<odm::Decimal>>);
  // Through an array, the part matches in any element, as every path through one does.
  static_assert(decltype(odm::amount(field(&Listing::lines) / &Line::price))::through_array);
}

TEST(MoneyParts, FilterAsDecimal128AndStrings) {
  expect_bson(odm::amount(price) >= odm::Decimal("10.00") && odm::currency(price) == "EUR",
              R"({"p.value": {"$gte": {"$numberDecimal": "10.00"}}, "p.currency": "EUR"})");
  expect_bson(odm::amount(field(&Listing::discount)) > odm::Decimal("0"),
              R"({"discount.value": {"$gt": {"$numberDecimal": "0"}}})");
  expect_bson(odm::approx(field(&Listing::shown)) < 9.5, R"({"shown.approx": {"$lt": 9.5}})");
  expect_bson(field(&Listing::lines).elem_match([](auto line) {
    return odm::amount(line / &Line::price) > odm::Decimal("1") && odm::currency(line / &Line::price) == "USD";
  }),
              R"({"lines": {"$elemMatch": {"price.value": {"$gt": {"$numberDecimal": "1"}}, "price.currency": "USD"}}})");
}

TEST(MoneyParts, SortAndUpdate) {
  expect_bson(odm::sort(odm::desc(odm::amount(price)), odm::asc(&Listing::id)), R"({"p.value": -1, "_id": 1})");
  expect_bson(odm::amount(price).inc(odm::Decimal("1.50")), R"({"$inc": {"p.value": {"$numberDecimal": "1.50"}}})");
  expect_bson(odm::currency(price).set("EUR"), R"({"$set": {"p.currency": "EUR"}})");
  expect_bson(odm::amount(field(&Listing::lines).matched() / &Line::price).mul(2),
              R"({"$mul": {"lines.$.price.value": {"$numberDecimal": "2"}}})");  // a Decimal stays one
}

TEST(MoneyParts, IndexesNameTheStoredPath) {
  const auto plan = odm::index_plan<Listing>();
  std::vector<std::string> keys;
  for (const auto& index : plan) keys.push_back(index.keys.to_canonical_json());
  for (const char* expected : {R"({"p.value": 1})", R"({"shown.approx": 1, "p.currency": 1})"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), query_test::canonical(expected)), keys.end())
        << expected << " not in " << ::testing::PrintToString(keys);
}

}  // namespace
