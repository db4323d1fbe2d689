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
  std::vector<odm::Money> tiers;
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

// Of an array of Money, a part is a path through the array: it matches in any element.
TEST(MoneyParts, OfAnArrayOfMoneyMatchInAnyElement) {
  constexpr auto tiers = field(&Listing::tiers);
  static_assert(decltype(odm::amount(tiers))::through_array);
  static_assert(std::is_same_v<decltype(odm::amount(tiers))::value_type, odm::Decimal>);
  EXPECT_EQ(odm::currency(tiers).name(), "tiers.currency");
  expect_bson(odm::amount(tiers) < odm::Decimal("5"), R"({"tiers.value": {"$lt": {"$numberDecimal": "5"}}})");
  expect_bson(odm::amount(tiers.all_elements()).mul(odm::Decimal("1.1")),
              R"({"$mul": {"tiers.$[].value": {"$numberDecimal": "1.1"}}})");
}

// A part is never null and a currency always an ISO 4217 code: the Money would no longer
// decode. Refused where the update is built, before anything is sent.
TEST(MoneyParts, AreNeverSetToNullNorACurrencyToSomethingElse) {
  constexpr auto discount = field(&Listing::discount);
  const auto refused = [](auto&& build) -> std::string {
    try {
      (void)build();
    } catch (const odm::ValueError& error) {
      return error.what();
    }
    return "built";
  };
  const std::string no_null = "` cannot be set to null: the document holding it would no longer decode";
  EXPECT_EQ(refused([&] { return odm::amount(discount).set(std::nullopt); }), "`discount.value" + no_null);
  EXPECT_EQ(refused([&] { return odm::currency(discount).set(std::optional<std::string>{}); }),
            "`discount.currency" + no_null);
  EXPECT_EQ(refused([&] { return odm::amount(discount).set_on_insert(std::optional<odm::Decimal>{}); }),
            "`discount.value" + no_null);
  EXPECT_EQ(refused([&] { return odm::currency(price).set("usd"); }),
            R"(`p.currency` is set to "usd", which is not an ISO 4217 currency code (three uppercase letters): the )"
            "Money would no longer decode");
  EXPECT_EQ(refused([&] { return odm::currency(discount).set(std::optional<std::string>("EURO")); }),
            R"(`discount.currency` is set to "EURO", which is not an ISO 4217 currency code (three uppercase )"
            "letters): the Money would no longer decode");
  EXPECT_EQ(refused([&] { return odm::currency(field(&Listing::lines).matched() / &Line::price).max(std::string("")); }),
            R"(`lines.$.price.currency` is set to "", which is not an ISO 4217 currency code (three uppercase )"
            "letters): the Money would no longer decode");
  // What a Money holds is accepted, and the optional Money itself may still be null.
  expect_bson(odm::amount(discount).set(std::optional<odm::Decimal>(odm::Decimal("1"))),
              R"({"$set": {"discount.value": {"$numberDecimal": "1"}}})");
  expect_bson(odm::currency(discount).set("JPY"), R"({"$set": {"discount.currency": "JPY"}})");
  expect_bson(discount.set(std::nullopt), R"({"$set": {"discount": null}})");
}

// agg::currency of an optional Money is an optional: a group of documents without it has null.
TEST(MoneyParts, AggregationCurrencyOfAnOptionalMoneyIsOptional) {
  static_assert(std::is_same_v<decltype(odm::agg::currency(field(&Listing::discount)))::value_type,
                               std::optional<std::string>>);
  static_assert(std::is_same_v<decltype(odm::agg::currency(price))::value_type, std::string>);
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
