// Golden tests of the seeds' money documents (seed 000/001's product price, seed 002's
// gas prices, clothes, scale factor, display + approx) and of the migrations the guide
// describes (NumberLong cents -> NumberDecimal, decimal strings -> NumberDecimal), with
// odm::Decimal, odm::Money, odm::ScaledAmount<F>, odm::DisplayMoney and
// odm::DecimalFromLegacy<F> (odm/fields/decimal.hpp, money.hpp).

#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <odm/fields/decimal.hpp>
#include <odm/fields/money.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace money_seeds {

/// 000/001: the product with its price and (the newest) reviews embedded.
struct Product {
  std::int32_t id;
  std::string name;
  std::string description;
  odm::Money price;
  std::vector<odm::Embedded<seed::ProductReview>> reviews;
  bool operator==(const Product&) const = default;
};

/// 002: `db.gasprices.insert{ "_id" : 1, "date" : ISODate(), "price" : NumberDecimal("2.099"), ... }`
struct GasPrice {
  std::int32_t id;
  std::chrono::system_clock::time_point date;
  odm::Decimal price;
  std::string station;
  std::string grade;
  bool operator==(const GasPrice&) const = default;
};

/// 002, scale factor: `price: NumberLong("1999")`, cents.
struct ClothesInCents {
  std::int32_t id;
  std::string description;
  std::string size;
  odm::ScaledAmount<100> price;
  bool operator==(const ClothesInCents&) const = default;
};

/// 002, after the $addFields pipeline: the cents and the decimal side by side.
struct ClothesWithPriceDec {
  std::int32_t id;
  std::string description;
  std::string size;
  odm::ScaledAmount<100> price;
  odm::Decimal priceDec;
  bool operator==(const ClothesWithPriceDec&) const = default;
};

/// 002, after the $mul update (and the target shape of both migrations).
struct Clothes {
  std::int32_t id;
  std::string description;
  std::string size;
  odm::Decimal price;
  bool operator==(const Clothes&) const = default;
};

/// 002, non-numeric: the exact value as a string.
struct ClothesWithStringPrice {
  std::int32_t id;
  std::string description;
  std::string size;
  std::string price;
  bool operator==(const ClothesWithStringPrice&) const = default;
};

/// 002, after the string conversion: the string and the decimal side by side.
struct ClothesWithStringPriceAndPriceDec {
  std::int32_t id;
  std::string description;
  std::string size;
  std::string price;
  odm::Decimal priceDec;
  bool operator==(const ClothesWithStringPriceAndPriceDec&) const = default;
};

/// 002, the application-logic migration: reads cents or strings, writes Decimal128.
struct MigratingClothes {
  std::int32_t id;
  std::string description;
  std::string size;
  odm::DecimalFromLegacy<100> price;
  bool operator==(const MigratingClothes&) const = default;
};

/// 002: `{ price: 9990, currency: "USD" }`, 9.99 USD at 1/1000.
struct ScaledPrice {
  odm::ScaledAmount<1000> price;
  std::string currency;
  bool operator==(const ScaledPrice&) const = default;
};

/// 002, non-numeric model: `{ price: {display, approx, currency}, fee: {...} }`.
struct PriceAndFee {
  odm::DisplayMoney price;
  odm::DisplayMoney fee;
  bool operator==(const PriceAndFee&) const = default;
};

using odm::Decimal;
using odm_test::day;
using odm_test::golden;
using odm_test::instant;

// ---- the product (seed 000 and 001) -------------------------------------------------

const seed::ProductReview kKristina{786, "Kristina", "This is indeed an amazing widget.", day(2019, 2, 18)};
const seed::ProductReview kTrina{785, "Trina", "Nice product. Slow shipping.", day(2019, 2, 17)};
const seed::ProductReview kHans{1, "Hans", "Meh, it's okay.", day(2017, 12, 6)};
const seed::ProductReview kPablo{777, "Pablo", "Amazing!", day(2019, 2, 16)};

TEST(Seed000, ProductWithPriceAndReviews) {
  // The seed elides the other reviews ("... // други отзиви").
  const Product product{1, "Super Widget", "This is the most useful item in your toolbox.",
                        odm::Money("119.99", "USD"), {kKristina, kTrina}};
  EXPECT_TRUE(golden(product, R"json({
    "_id": {"$numberInt": "1"},
    "name": "Super Widget",
    "description": "This is the most useful item in your toolbox.",
    "price": {"value": {"$numberDecimal": "119.99"}, "currency": "USD"},
    "reviews": [
      {"review_id": {"$numberInt": "786"}, "review_author": "Kristina",
       "review_text": "This is indeed an amazing widget.",
       "published_date": {"$date": {"$numberLong": "1550448000000"}}},
      {"review_id": {"$numberInt": "785"}, "review_author": "Trina", "review_text": "Nice product. Slow shipping.",
       "published_date": {"$date": {"$numberLong": "1550361600000"}}}
    ]
  })json",
                     R"json({
  "_id": 1,
  "name": "Super Widget",
  "description": "This is the most useful item in your toolbox.",
  "price": { "value": {"$numberDecimal": "119.99"}, "currency": "USD" },
  "reviews": [
    {
      "review_id": 786,
      "review_author": "Kristina",
      "review_text": "This is indeed an amazing widget.",
      "published_date": {"$date": "2019-02-18T00:00:00Z"}
    },
    {
      "review_id": 785,
      "review_author": "Trina",
      "review_text": "Nice product. Slow shipping.",
      "published_date": {"$date": "2019-02-17T00:00:00Z"}
    }
  ]
})json"));
  EXPECT_EQ(product.price.amount().to_string(), "119.99");
  EXPECT_EQ(product.price.currency(), "USD");
}

TEST(Seed000, ProductWithTheNewestReviews) {
  // The product collection's subset: the newest reviews, newest first (the seed shows the
  // first and the tenth).
  const Product product{1, "Super Widget", "This is the most useful item in your toolbox.",
                        odm::Money("119.99", "USD"), {kKristina, kPablo}};
  EXPECT_TRUE(golden(product, R"json({
    "_id": {"$numberInt": "1"},
    "name": "Super Widget",
    "description": "This is the most useful item in your toolbox.",
    "price": {"value": {"$numberDecimal": "119.99"}, "currency": "USD"},
    "reviews": [
      {"review_id": {"$numberInt": "786"}, "review_author": "Kristina",
       "review_text": "This is indeed an amazing widget.",
       "published_date": {"$date": {"$numberLong": "1550448000000"}}},
      {"review_id": {"$numberInt": "777"}, "review_author": "Pablo", "review_text": "Amazing!",
       "published_date": {"$date": {"$numberLong": "1550275200000"}}}
    ]
  })json",
                     R"json({
  "_id": 1,
  "name": "Super Widget",
  "description": "This is the most useful item in your toolbox.",
  "price": { "value": {"$numberDecimal": "119.99"}, "currency": "USD" },
  "reviews": [
    {
      "review_id": 786,
      "review_author": "Kristina",
      "review_text": "This is indeed an amazing widget.",
      "published_date": {"$date": "2019-02-18T00:00:00Z"}
    },
    {
      "review_id": 777,
      "review_author": "Pablo",
      "review_text": "Amazing!",
      "published_date": {"$date": "2019-02-16T00:00:00Z"}
    }
  ]
})json"));
}

TEST(Seed001, ProductWithPriceAndReviews) {
  const Product product{1, "Super Widget", "This is the most useful item in your toolbox.",
                        odm::Money("119.99", "USD"), {kKristina, kTrina, kHans}};
  EXPECT_TRUE(golden(product, R"json({
    "_id": {"$numberInt": "1"},
    "name": "Super Widget",
    "description": "This is the most useful item in your toolbox.",
    "price": {"value": {"$numberDecimal": "119.99"}, "currency": "USD"},
    "reviews": [
      {"review_id": {"$numberInt": "786"}, "review_author": "Kristina",
       "review_text": "This is indeed an amazing widget.",
       "published_date": {"$date": {"$numberLong": "1550448000000"}}},
      {"review_id": {"$numberInt": "785"}, "review_author": "Trina", "review_text": "Nice product. Slow shipping.",
       "published_date": {"$date": {"$numberLong": "1550361600000"}}},
      {"review_id": {"$numberInt": "1"}, "review_author": "Hans", "review_text": "Meh, it's okay.",
       "published_date": {"$date": {"$numberLong": "1512518400000"}}}
    ]
  })json",
                     R"json({
  "_id": 1,
  "name": "Super Widget",
  "description": "This is the most useful item in your toolbox.",
  "price": { "value": {"$numberDecimal": "119.99"}, "currency": "USD" },
  "reviews": [
    {
      "review_id": 786,
      "review_author": "Kristina",
      "review_text": "This is indeed an amazing widget.",
      "published_date": {"$date": "2019-02-18T00:00:00Z"}
    },
    {
      "review_id": 785,
      "review_author": "Trina",
      "review_text": "Nice product. Slow shipping.",
      "published_date": {"$date": "2019-02-17T00:00:00Z"}
    },
    {
      "review_id": 1,
      "review_author": "Hans",
      "review_text": "Meh, it's okay.",
      "published_date": {"$date": "2017-12-06T00:00:00Z"}
    }
  ]
})json"));
}

TEST(Seed000, ProductPriceIsNeverADouble) {
  EXPECT_EQ(odm_test::decode_error<Product>(R"json({"_id": 1, "name": "n", "description": "d",
      "price": {"value": 119.99, "currency": "USD"}, "reviews": []})json"),
            "price.value: expected decimal, got double");
}

// ---- gas prices (seed 002) ------------------------------------------------------------

TEST(Seed002, GasPriceWithDecimal) {
  // `ISODate()` is "now"; the test fixes an instant.
  const GasPrice price{1, instant(2021, 3, 14, 9, 26, 53, 589), Decimal("2.099"), "Quikstop", "regular"};
  EXPECT_TRUE(golden(price, R"json({
    "_id": {"$numberInt": "1"},
    "date": {"$date": {"$numberLong": "1615714013589"}},
    "price": {"$numberDecimal": "2.099"},
    "station": "Quikstop",
    "grade": "regular"
  })json",
                     R"json({ "_id" : 1, "date" : {"$date": "2021-03-14T09:26:53.589Z"}, "price" : {"$numberDecimal": "2.099"}, "station" : "Quikstop", "grade" : "regular" })json"));
  // `db.gasprices.find( { price: NumberDecimal("2.099") } )` matches the stored value:
  // same number, same representation.
  EXPECT_TRUE(odm_test::decode<GasPrice>(odm::to_json(price)).price.same_representation(Decimal("2.099")));
}

// ---- clothes (seed 002) ---------------------------------------------------------------

struct ClothesRow {
  std::int32_t id;
  const char* description;
  const char* size;
  std::int64_t cents;
  const char* decimal;
};

const ClothesRow kClothes[] = {
    {1, "T-Shirt", "M", 1999, "19.99"},       {2, "Jeans", "36", 3999, "39.99"},
    {3, "Shorts", "32", 2999, "29.99"},       {4, "Cool T-Shirt", "L", 2495, "24.95"},
    {5, "Designer Jeans", "30", 8000, "80.00"},
};

/// The canonical text of one clothes document, `price_json` (and `price_dec_json`) spliced in.
std::string clothes_golden(const ClothesRow& row, const std::string& price_json, const std::string& price_dec_json = "") {
  std::string out = R"({"_id": {"$numberInt": ")" + std::to_string(row.id) + R"("}, "description": ")" +
                    row.description + R"(", "size": ")" + row.size + R"(", "price": )" + price_json;
  if (!price_dec_json.empty()) out += R"(, "priceDec": )" + price_dec_json;
  return out + "}";
}

std::string cents_json(const ClothesRow& row) { return R"({"$numberLong": ")" + std::to_string(row.cents) + R"("})"; }
std::string decimal_json(const ClothesRow& row) { return R"({"$numberDecimal": ")" + std::string(row.decimal) + R"("})"; }
std::string string_json(const ClothesRow& row) { return R"(")" + std::string(row.decimal) + R"(")"; }

TEST(Seed002, ClothesScaleFactorInCents) {
  // Written out in full once, for the first document:
  EXPECT_TRUE(golden(ClothesInCents{1, "T-Shirt", "M", odm::ScaledAmount<100>::from_units(1999)},
                     R"json({"_id": {"$numberInt": "1"}, "description": "T-Shirt", "size": "M",
                             "price": {"$numberLong": "1999"}})json",
                     R"json({ "_id" : 1, "description" : "T-Shirt", "size" : "M", "price" : {"$numberLong": "1999"} })json"));
  for (const ClothesRow& row : kClothes) {
    SCOPED_TRACE(row.description);
    const ClothesInCents clothes{row.id, row.description, row.size, odm::ScaledAmount<100>(Decimal(row.decimal))};
    EXPECT_EQ(clothes.price.units(), row.cents);
    EXPECT_TRUE(golden(clothes, clothes_golden(row, cents_json(row))));
  }
}

TEST(Seed002, ClothesWithPriceDecAfterTheAggregation) {
  EXPECT_TRUE(golden(ClothesWithPriceDec{5, "Designer Jeans", "30", odm::ScaledAmount<100>::from_units(8000),
                                         Decimal("80.00")},
                     R"json({"_id": {"$numberInt": "5"}, "description": "Designer Jeans", "size": "30",
                             "price": {"$numberLong": "8000"}, "priceDec": {"$numberDecimal": "80.00"}})json",
                     R"json({ "_id" : 5, "description" : "Designer Jeans", "size" : "30", "price" : {"$numberLong": "8000"}, "priceDec" : {"$numberDecimal": "80.00"} })json"));
  for (const ClothesRow& row : kClothes) {
    SCOPED_TRACE(row.description);
    const auto cents = odm::ScaledAmount<100>::from_units(row.cents);
    // `$multiply: ["$price", NumberDecimal("0.01")]` is exactly the scaled amount's decimal.
    EXPECT_TRUE(cents.to_decimal().same_representation(Decimal(row.decimal)));
    const ClothesWithPriceDec clothes{row.id, row.description, row.size, cents, cents.to_decimal()};
    EXPECT_TRUE(golden(clothes, clothes_golden(row, cents_json(row), decimal_json(row))));
  }
}

TEST(Seed002, ClothesWithDecimalPriceAfterTheUpdate) {
  EXPECT_TRUE(golden(Clothes{5, "Designer Jeans", "30", Decimal("80.00")},
                     R"json({"_id": {"$numberInt": "5"}, "description": "Designer Jeans", "size": "30",
                             "price": {"$numberDecimal": "80.00"}})json",
                     R"json({ "_id" : 5, "description" : "Designer Jeans", "size" : "30", "price" : {"$numberDecimal": "80.00"} })json"));
  for (const ClothesRow& row : kClothes) {
    SCOPED_TRACE(row.description);
    EXPECT_TRUE(golden(Clothes{row.id, row.description, row.size, Decimal(row.decimal)},
                       clothes_golden(row, decimal_json(row))));
  }
}

TEST(Seed002, ClothesWithStringPrice) {
  EXPECT_TRUE(golden(ClothesWithStringPrice{1, "T-Shirt", "M", "19.99"},
                     R"json({"_id": {"$numberInt": "1"}, "description": "T-Shirt", "size": "M", "price": "19.99"})json",
                     R"json({ "_id" : 1, "description" : "T-Shirt", "size" : "M", "price" : "19.99" })json"));
  for (const ClothesRow& row : kClothes) {
    SCOPED_TRACE(row.description);
    EXPECT_TRUE(golden(ClothesWithStringPrice{row.id, row.description, row.size, row.decimal},
                       clothes_golden(row, string_json(row))));
    EXPECT_TRUE(golden(ClothesWithStringPriceAndPriceDec{row.id, row.description, row.size, row.decimal,
                                                         Decimal(row.decimal)},
                       clothes_golden(row, string_json(row), decimal_json(row))));
  }
}

TEST(Seed002, MigrationFromLongCentsToDecimal) {
  for (const ClothesRow& row : kClothes) {
    SCOPED_TRACE(row.description);
    // The old document, as the scale-factor collection holds it.
    const auto old = odm_test::decode<MigratingClothes>(clothes_golden(row, cents_json(row)));
    EXPECT_TRUE(old.price.was_legacy());
    EXPECT_TRUE(old.price.value().same_representation(Decimal(row.decimal)));
    // Saving it writes the new shape: exactly the seed's document after the $mul update.
    EXPECT_EQ(odm_test::encoded(old), odm_test::canonical(clothes_golden(row, decimal_json(row))));
    // And the new shape reads back as not legacy.
    const auto migrated = odm::from_bson<MigratingClothes>(odm::to_bson(old));
    EXPECT_FALSE(migrated.price.was_legacy());
    EXPECT_EQ(migrated, old);
    EXPECT_TRUE(golden(migrated, clothes_golden(row, decimal_json(row))));
  }
  // An int32 (a shell writing `price: 1999`) is legacy cents too.
  const auto small = odm_test::decode<MigratingClothes>(
      R"json({"_id": 1, "description": "T-Shirt", "size": "M", "price": 1999})json");
  EXPECT_TRUE(small.price.was_legacy());
  EXPECT_TRUE(small.price.value().same_representation(Decimal("19.99")));
}

TEST(Seed002, MigrationFromStringToDecimal) {
  for (const ClothesRow& row : kClothes) {
    SCOPED_TRACE(row.description);
    const auto old = odm_test::decode<MigratingClothes>(clothes_golden(row, string_json(row)));
    EXPECT_TRUE(old.price.was_legacy());
    // "80.00" keeps its two places, as NumberDecimal(doc.price) does.
    EXPECT_TRUE(old.price.value().same_representation(Decimal(row.decimal)));
    EXPECT_EQ(odm_test::encoded(old), odm_test::canonical(clothes_golden(row, decimal_json(row))));
  }
}

TEST(Seed002, MigrationRefusesDoublesAndGarbage) {
  EXPECT_EQ(odm_test::decode_error<MigratingClothes>(
                R"json({"_id": 1, "description": "T-Shirt", "size": "M", "price": 19.99})json"),
            "price: expected decimal (or a legacy long, int or decimal string), got double");
  EXPECT_NE(odm_test::decode_error<MigratingClothes>(
                R"json({"_id": 1, "description": "T-Shirt", "size": "M", "price": "19.99 USD"})json"),
            "<no error>");
}

// ---- scale factor 1000 and the non-numeric model (seed 002) ------------------------------

TEST(Seed002, ScaleFactorOneThousand) {
  const ScaledPrice price{odm::ScaledAmount<1000>(Decimal("9.99")), "USD"};
  EXPECT_EQ(price.price.units(), 9990);
  // ScaledAmount always stores int64 (one type per field); the seed's shell literal
  // `price: 9990` is an int32, which reads back the same.
  EXPECT_TRUE(golden(price, R"json({"price": {"$numberLong": "9990"}, "currency": "USD"})json"));
  EXPECT_EQ(odm_test::decode<ScaledPrice>(R"json({ "price": 9990, "currency": "USD" })json"), price);
  // 9.9995 is finer than a tenth of a cent: refused, never rounded.
  EXPECT_THROW((void)odm::ScaledAmount<1000>(Decimal("9.9995")), odm::ValueError);
}

TEST(Seed002, NonNumericDisplayAndApprox) {
  const PriceAndFee doc{odm::DisplayMoney(Decimal("9.99"), "USD"), odm::DisplayMoney(Decimal("0.25"), "USD")};
  EXPECT_EQ(doc.price.display(), "9.99");
  EXPECT_EQ(doc.price.approx(), 9.99);
  // The seed's approx for the price, 9.9900000000000002, is the double nearest 9.99. For
  // the fee it shows 0.2499999999999999, but 0.25 is exact in binary, so odm writes 0.25
  // (and reads the seed's value, since approx is never read back).
  EXPECT_TRUE(golden(doc, R"json({
    "price": {"display": "9.99", "approx": {"$numberDouble": "9.99"}, "currency": "USD"},
    "fee": {"display": "0.25", "approx": {"$numberDouble": "0.25"}, "currency": "USD"}
  })json"));
  EXPECT_EQ(odm_test::decode<PriceAndFee>(R"json({ "price": { "display": "9.99", "approx": 9.9900000000000002, "currency": "USD" }, "fee": { "display": "0.25", "approx": 0.2499999999999999, "currency": "USD" } })json"),
            doc);
  EXPECT_EQ(odm_test::decode_error<PriceAndFee>(R"json({"price": {"display": "9.99", "approx": 9.99, "currency": "USD"},
                                                       "fee": {"display": 0.25, "approx": 0.25, "currency": "USD"}})json"),
            "fee.display: expected string, got double");
}

}  // namespace money_seeds
