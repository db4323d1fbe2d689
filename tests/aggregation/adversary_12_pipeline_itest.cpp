// Adversarial probes of the typed pipeline (issue 12 item 1), written from MongoDB's
// manual for $group's accumulators, $unwind, $count and $lookup, and from the README's
// promise that a typed pipeline reads what the server answers. The stored documents are
// written as raw Extended JSON, so fields can be missing or of another BSON type, as
// another program would leave them. A probe that shows a defect is kept, skipped with
// `defect:` and its reason.

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace adv12 {

struct Shop {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "shops";
  };
};

struct Item {
  std::string sku;
  std::int32_t n = 0;
  friend bool operator==(const Item&, const Item&) = default;
};

// Every field optional, so that documents may lack any of them.
struct Sale {
  std::int32_t id = 0;
  std::string shop;
  std::optional<std::int32_t> qty;
  std::optional<std::int64_t> big;
  std::optional<double> weight;
  std::optional<odm::Decimal> price;
  std::optional<odm::Money> paid;
  std::optional<Item> item;
  std::vector<std::int32_t> tags;
  struct odm_model {
    static constexpr std::string_view collection = "sales";
    static constexpr auto when_absent = odm::Absent::initial_value;
  };
};

struct Averages {
  std::string id;
  std::optional<double> qty;
  std::optional<odm::Decimal> price;
};
// The same collection read by a model whose quantity is no optional (older documents may
// still lack it).
struct CountedSale {
  std::int32_t id = 0;
  std::string shop;
  std::int32_t qty = 0;
  struct odm_model {
    static constexpr std::string_view collection = "sales";
    static constexpr auto when_absent = odm::Absent::initial_value;
  };
};
struct PlainAverage {
  std::string id;
  double qty = 0;
};

struct Extremes {
  std::string id;
  std::optional<std::int32_t> low;
  std::optional<std::int32_t> high;
  std::optional<std::int32_t> first;
  std::optional<std::int32_t> last;
};

struct Collected {
  std::string id;
  std::vector<std::optional<Item>> items;
  std::vector<std::optional<Item>> distinct;
};

struct Unwound {
  std::int32_t id = 0;
  std::string shop;
  std::optional<std::int32_t> qty;
  std::optional<std::int64_t> big;
  std::optional<double> weight;
  std::optional<odm::Decimal> price;
  std::optional<odm::Money> paid;
  std::optional<Item> item;
  std::int32_t tags = 0;
};

struct ShopYear {
  std::string shop;
  std::int32_t tag = 0;
  friend bool operator==(const ShopYear&, const ShopYear&) = default;
};
struct PerShopTag {
  ShopYear id;
  std::int64_t n = 0;
};

struct Counted {
  std::int64_t n = 0;
};

struct Visit {
  std::int32_t id = 0;
  odm::Ref<Shop> shop;
  odm::RefMany<Shop> also;
  struct odm_model {
    static constexpr std::string_view collection = "visits";
  };
};
struct VisitWithShop {
  std::int32_t id = 0;
  odm::Ref<Shop> shop;
  odm::RefMany<Shop> also;
  odm::Joined<Shop> found;
};
struct VisitWithAlso {
  std::int32_t id = 0;
  odm::Ref<Shop> shop;
  odm::RefMany<Shop> also;
  odm::Joined<Shop> found;
};

struct OnlyShop {
  std::int32_t id = 0;
  std::int32_t qty = 0;
};

// A target model with schema versions: version 1 stored `label`, version 2 `name`.
struct BrandV1 {
  std::string id;
  std::string label;
};
struct BrandV2 {
  std::string id;
  std::string name;
};
inline BrandV2 label_to_name(const BrandV1& old) { return {old.id, old.label}; }
struct Brand {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "brands";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&label_to_name));
  };
};
struct Product {
  std::int32_t id = 0;
  odm::Ref<Brand> brand;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};
struct ProductWithBrand {
  std::int32_t id = 0;
  odm::Ref<Brand> brand;
  odm::Joined<Brand> brands;
};

}  // namespace adv12

namespace {

using namespace adv12;
using odm::field;
using odm_test::json;
namespace agg = odm::agg;

class Adversary12Pipeline : public odm_test::DriverTest {
 protected:
  odm::Collection<Sale> sales() { return db().collection<Sale>(); }
  void insert(const std::string& collection, const std::string& documents) {
    db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": )" + documents + "}"));
  }
};

// MongoDB: "$sum ... returns 0 if all operands are non-numeric or missing" and the
// result is an int32 0 (the manual's type rules: all operands int → int). The typed
// rule says a $sum of doubles is a double and of Decimal/Money a Decimal: a group where
// no document has the field must read as 0, not fail.
TEST_F(Adversary12Pipeline, SumOfAGroupWithoutTheFieldIsZero) {
  insert("sales", R"([{"_id": 1, "shop": "a"}, {"_id": 2, "shop": "a"}])");
  // Each accumulator's own result struct, so that every type is checked on its own.
  std::string unreadable;
  const auto probe = [&](const char* what, auto pipeline, auto check) {
    try {
      const auto found = sales().aggregate(pipeline).to_vector();
      ASSERT_EQ(found.size(), 1u) << what;
      check(found[0]);
    } catch (const odm::DecodeError& error) {
      unreadable += std::string("\n  ") + what + ": " + error.what();
    }
  };
  struct I64 {
    std::string id;
    std::int64_t total = 0;
  };
  struct F64 {
    std::string id;
    double total = 0;
  };
  struct Dec {
    std::string id;
    odm::Decimal total;
  };
  probe("int32 field into std::int64_t",
        odm::pipeline<Sale>().group<I64>(agg::by(field(&Sale::shop)), agg::sum<&I64::total>(field(&Sale::qty))),
        [](const I64& r) { EXPECT_EQ(r.total, 0); });
  probe("int64 field into std::int64_t",
        odm::pipeline<Sale>().group<I64>(agg::by(field(&Sale::shop)), agg::sum<&I64::total>(field(&Sale::big))),
        [](const I64& r) { EXPECT_EQ(r.total, 0); });
  probe("double field into double",
        odm::pipeline<Sale>().group<F64>(agg::by(field(&Sale::shop)), agg::sum<&F64::total>(field(&Sale::weight))),
        [](const F64& r) { EXPECT_EQ(r.total, 0.0); });
  probe("odm::Decimal field into odm::Decimal",
        odm::pipeline<Sale>().group<Dec>(agg::by(field(&Sale::shop)), agg::sum<&Dec::total>(field(&Sale::price))),
        [](const Dec& r) { EXPECT_EQ(r.total, odm::Decimal("0")); });
  probe("odm::Money field into odm::Decimal",
        odm::pipeline<Sale>().group<Dec>(agg::by(field(&Sale::shop)), agg::sum<&Dec::total>(agg::amount(field(&Sale::paid)))),
        [](const Dec& r) { EXPECT_EQ(r.total, odm::Decimal("0")); });
  EXPECT_TRUE(unreadable.empty()) << "a $sum over a group whose documents lack the field is MongoDB's int32 0, "
                                     "which these typed results could not read:"
                                  << unreadable;
}

// int32 values whose sum exceeds int32: MongoDB widens to a long.
TEST_F(Adversary12Pipeline, SumOfInt32OverflowsIntoInt64) {
  insert("sales", R"([{"_id": 1, "shop": "a", "qty": 2147483647}, {"_id": 2, "shop": "a", "qty": 2147483647},
                     {"_id": 3, "shop": "a", "qty": 5}, {"_id": 4, "shop": "b", "qty": 3}])");
  struct OnlyQty {
    std::string id;
    std::int64_t qty = 0;
  };
  const auto found =
      sales()
          .aggregate(odm::pipeline<Sale>()
                         .group<OnlyQty>(agg::by(field(&Sale::shop)), agg::sum<&OnlyQty::qty>(field(&Sale::qty)))
                         .sort(odm::sort(odm::asc(&OnlyQty::id))))
          .to_vector();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].qty, std::int64_t{2147483647} * 2 + 5);
  EXPECT_EQ(found[1].qty, 3);  // a small sum is an int32 on the wire
}

// Mixed int32 and int64 in one field (another program wrote longs): still an int64.
TEST_F(Adversary12Pipeline, SumOfMixedInt32AndInt64) {
  insert("sales", R"([{"_id": 1, "shop": "a", "big": 2147483647}, {"_id": 2, "shop": "a",
                      "big": {"$numberLong": "9000000000000000000"}}])");
  struct OnlyBig {
    std::string id;
    std::int64_t big = 0;
  };
  const auto found = sales()
                         .aggregate(odm::pipeline<Sale>().group<OnlyBig>(agg::by(field(&Sale::shop)),
                                                                         agg::sum<&OnlyBig::big>(field(&Sale::big))))
                         .to_vector();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].big, std::int64_t{9000000000000000000} + 2147483647);
}

// int64 values whose sum exceeds int64: MongoDB's $sum answers a double. The member is a
// std::int64_t, so the only right answers are that double read exactly or a clear
// DecodeError; a wrapped (negative) int64 would be silently wrong.
TEST_F(Adversary12Pipeline, SumOfInt64OverflowIsNeverWrapped) {
  if (engine() == odm_test::Engine::mongo_java_server)
    GTEST_SKIP() << "mongo-java-server wraps an overflowing int64 $sum (answers -2 for 2 x INT64_MAX); MongoDB "
                    "answers a double";
  insert("sales", R"([{"_id": 1, "shop": "a", "big": {"$numberLong": "9223372036854775807"}},
                     {"_id": 2, "shop": "a", "big": {"$numberLong": "9223372036854775807"}}])");
  struct OnlyBig {
    std::string id;
    std::int64_t big = 0;
  };
  const auto pipeline =
      odm::pipeline<Sale>().group<OnlyBig>(agg::by(field(&Sale::shop)), agg::sum<&OnlyBig::big>(field(&Sale::big)));
  try {
    const auto found = sales().aggregate(pipeline).to_vector();
    ASSERT_EQ(found.size(), 1u);
    ADD_FAILURE() << "an overflowing int64 sum read as " << found[0].big;
  } catch (const odm::DecodeError& error) {
    EXPECT_NE(std::string(error.what()).find("big"), std::string::npos) << error.what();
    std::cout << "overflow: " << error.what() << "\n";
  }
}

// The manual: Decimal128 sums are exact.
TEST_F(Adversary12Pipeline, DecimalSumIsExact) {
  std::string documents = "[";
  for (int i = 1; i <= 10; ++i)
    documents += R"({"_id": )" + std::to_string(i) + R"(, "shop": "a", "price": {"$numberDecimal": "0.1"}},)";
  documents += R"({"_id": 11, "shop": "a", "price": {"$numberDecimal": "100000000000000000000"}}])";
  insert("sales", documents);
  struct OnlyPrice {
    std::string id;
    odm::Decimal price;
  };
  const auto found =
      sales()
          .aggregate(odm::pipeline<Sale>().group<OnlyPrice>(agg::by(field(&Sale::shop)),
                                                            agg::sum<&OnlyPrice::price>(field(&Sale::price))))
          .to_vector();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].price, odm::Decimal("100000000000000000001.0"));
}

// The manual: $avg ignores non-numeric and missing values; with none it is null.
TEST_F(Adversary12Pipeline, AverageOfNoNumberIsNull) {
  ODM_REQUIRE(decimal_average);
  insert("sales", R"([{"_id": 1, "shop": "a"}, {"_id": 2, "shop": "b", "qty": 4, "price": {"$numberDecimal": "1.5"}},
                     {"_id": 3, "shop": "b", "qty": "x"}, {"_id": 4, "shop": "b", "qty": 6,
                      "price": {"$numberDecimal": "2.5"}}])");
  const auto found = sales()
                         .aggregate(odm::pipeline<Sale>()
                                        .group<Averages>(agg::by(field(&Sale::shop)),
                                                         agg::avg<&Averages::qty>(field(&Sale::qty)),
                                                         agg::avg<&Averages::price>(field(&Sale::price)))
                                        .sort(odm::sort(odm::asc(&Averages::id))))
                         .to_vector();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_FALSE(found[0].qty.has_value());
  EXPECT_FALSE(found[0].price.has_value());
  ASSERT_TRUE(found[1].qty.has_value());
  EXPECT_EQ(*found[1].qty, 5.0);
  ASSERT_TRUE(found[1].price.has_value());
  EXPECT_EQ(*found[1].price, odm::Decimal("2"));
}

// An $avg into a plain double of a field that is no optional (allowed by the compile check;
// of an optional field it does not compile: tests/compile_fail/agg_avg_of_optional_into_plain.cpp)
// over a group with no number: the null the server answers must be a clear DecodeError
// naming the member.
TEST_F(Adversary12Pipeline, AverageIntoAPlainDoubleOfNoNumberIsAClearError) {
  insert("sales", R"([{"_id": 1, "shop": "a"}])");
  const auto pipeline = odm::pipeline<CountedSale>().group<PlainAverage>(
      agg::by(field(&CountedSale::shop)), agg::avg<&PlainAverage::qty>(field(&CountedSale::qty)));
  try {
    const auto found = db().collection<CountedSale>().aggregate(pipeline).to_vector();
    ADD_FAILURE() << "a null average read as " << (found.empty() ? -1.0 : found[0].qty);
  } catch (const odm::DecodeError& error) {
    EXPECT_NE(std::string(error.what()).find("qty"), std::string::npos) << error.what();
  }
}

// The manual: $min/$max ignore missing and null values ("null if all are"); $first and
// $last return null for a missing field of the first/last document.
TEST_F(Adversary12Pipeline, MinMaxFirstLastOfMissingFields) {
  insert("sales", R"([{"_id": 1, "shop": "a"}, {"_id": 2, "shop": "a", "qty": 7}, {"_id": 3, "shop": "a", "qty": 3},
                     {"_id": 4, "shop": "a"}, {"_id": 5, "shop": "b"}])");
  const auto found = sales()
                         .aggregate(odm::pipeline<Sale>()
                                        .sort(odm::sort(odm::asc(&Sale::id)))
                                        .group<Extremes>(agg::by(field(&Sale::shop)),
                                                         agg::min<&Extremes::low>(field(&Sale::qty)),
                                                         agg::max<&Extremes::high>(field(&Sale::qty)),
                                                         agg::first<&Extremes::first>(field(&Sale::qty)),
                                                         agg::last<&Extremes::last>(field(&Sale::qty)))
                                        .sort(odm::sort(odm::asc(&Extremes::id))))
                         .to_vector();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].low, 3);
  EXPECT_EQ(found[0].high, 7);
  EXPECT_FALSE(found[0].first.has_value());
  EXPECT_FALSE(found[0].last.has_value());
  EXPECT_FALSE(found[1].low.has_value());
  EXPECT_FALSE(found[1].high.has_value());
  EXPECT_FALSE(found[1].first.has_value());
}

// $push and $addToSet of sub-documents: the manual's $push leaves out missing values;
// $addToSet keeps one copy of equal documents.
TEST_F(Adversary12Pipeline, PushAndAddToSetOfDocuments) {
  insert("sales", R"([{"_id": 1, "shop": "a", "item": {"sku": "pen", "n": 1}}, {"_id": 2, "shop": "a"},
                     {"_id": 3, "shop": "a", "item": {"sku": "pen", "n": 1}},
                     {"_id": 4, "shop": "a", "item": {"sku": "ink", "n": 2}}])");
  const auto found = sales()
                         .aggregate(odm::pipeline<Sale>()
                                        .sort(odm::sort(odm::asc(&Sale::id)))
                                        .group<Collected>(agg::by(field(&Sale::shop)),
                                                          agg::push<&Collected::items>(field(&Sale::item)),
                                                          agg::add_to_set<&Collected::distinct>(field(&Sale::item))))
                         .to_vector();
  ASSERT_EQ(found.size(), 1u);
  const std::vector<std::optional<Item>> pushed{Item{"pen", 1}, Item{"pen", 1}, Item{"ink", 2}};
  EXPECT_EQ(found[0].items, pushed);
  ASSERT_EQ(found[0].distinct.size(), 2u);
  EXPECT_NE(std::find(found[0].distinct.begin(), found[0].distinct.end(), std::optional<Item>(Item{"ink", 2})),
            found[0].distinct.end());
}

// The manual: $unwind drops a document whose array is empty, missing or null.
TEST_F(Adversary12Pipeline, UnwindDropsEmptyMissingAndNullArrays) {
  insert("sales", R"([{"_id": 1, "shop": "a", "tags": []}, {"_id": 2, "shop": "a"}, {"_id": 3, "shop": "a", "tags": null},
                     {"_id": 4, "shop": "a", "tags": [5, 6]}])");
  const auto found =
      sales()
          .aggregate(odm::pipeline<Sale>().unwind<&Unwound::tags>().sort(odm::sort(odm::asc(&Unwound::tags))))
          .to_vector();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].id, 4);
  EXPECT_EQ(found[0].tags, 5);
  EXPECT_EQ(found[1].tags, 6);
}

// $group by a key struct after an $unwind: one group per (shop, tag).
TEST_F(Adversary12Pipeline, GroupByAKeyStruct) {
  insert("sales", R"([{"_id": 1, "shop": "a", "tags": [1, 2]}, {"_id": 2, "shop": "a", "tags": [1]},
                     {"_id": 3, "shop": "b", "tags": [1]}])");
  auto found = sales()
                   .aggregate(odm::pipeline<Sale>().unwind<&Unwound::tags>().group<PerShopTag>(
                       agg::by(agg::key<&ShopYear::shop>(field(&Unwound::shop)),
                               agg::key<&ShopYear::tag>(field(&Unwound::tags))),
                       agg::count<&PerShopTag::n>()))
                   .to_vector();
  std::sort(found.begin(), found.end(), [](const PerShopTag& x, const PerShopTag& y) {
    return std::tie(x.id.shop, x.id.tag) < std::tie(y.id.shop, y.id.tag);
  });
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].id, (ShopYear{"a", 1}));
  EXPECT_EQ(found[0].n, 2);
  EXPECT_EQ(found[1].id, (ShopYear{"a", 2}));
  EXPECT_EQ(found[1].n, 1);
  EXPECT_EQ(found[2].id, (ShopYear{"b", 1}));
}

// The manual: $count of no documents returns no document (not {n: 0}).
TEST_F(Adversary12Pipeline, CountOfNothingIsNoDocument) {
  insert("sales", R"([{"_id": 1, "shop": "a"}])");
  const auto none =
      sales().aggregate(odm::pipeline<Sale>().match(field(&Sale::shop) == "zzz").count<&Counted::n>()).to_vector();
  EXPECT_TRUE(none.empty());
  const auto one = sales().aggregate(odm::pipeline<Sale>().count<&Counted::n>()).to_vector();
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].n, 1);
  // A $group without key over nothing: no document either.
  struct Total {
    std::int64_t qty = 0;
  };
  const auto nothing = sales()
                           .aggregate(odm::pipeline<Sale>()
                                          .match(field(&Sale::shop) == "zzz")
                                          .group<Total>(agg::sum<&Total::qty>(field(&Sale::qty))))
                           .to_vector();
  EXPECT_TRUE(nothing.empty());
}

// $lookup of a dangling Ref: an empty array; of a RefMany with ghost and repeated ids:
// the existing targets, each once (the manual: $lookup matches by equality).
TEST_F(Adversary12Pipeline, LookupWithDanglingIds) {
  insert("shops", R"([{"_id": "s1", "name": "One"}, {"_id": "s2", "name": "Two"}])");
  insert("visits", R"([{"_id": 1, "shop": "ghost", "also": ["s1", "ghost", "s1", "s2"]},
                      {"_id": 2, "shop": "s2", "also": []}])");
  auto visits = db().collection<Visit>();
  const auto by_ref =
      visits
          .aggregate(odm::pipeline<Visit>()
                         .lookup<&Visit::shop, &VisitWithShop::found>()
                         .sort(odm::sort(odm::asc(&VisitWithShop::id))))
          .to_vector();
  ASSERT_EQ(by_ref.size(), 2u);
  EXPECT_TRUE(by_ref[0].found.empty());
  ASSERT_EQ(by_ref[1].found.size(), 1u);
  EXPECT_EQ(by_ref[1].found[0].name, "Two");
  // The ids are kept as stored, ghost and duplicate included.
  EXPECT_EQ(by_ref[0].also.size(), 4u);

  const auto by_many =
      visits
          .aggregate(odm::pipeline<Visit>()
                         .lookup<&Visit::also, &VisitWithAlso::found>()
                         .sort(odm::sort(odm::asc(&VisitWithAlso::id))))
          .to_vector();
  ASSERT_EQ(by_many.size(), 2u);
  if (engine() == odm_test::Engine::mongo_java_server)
    GTEST_SKIP() << "mongo-java-server's $lookup returns a foreign document once per matching array element "
                    "(twice for a repeated id); MongoDB returns each matching document once";
  std::vector<std::string> names;
  for (const Shop& s : by_many[0].found) names.push_back(s.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"One", "Two"}));
  EXPECT_TRUE(by_many[1].found.empty());
}

// The README: reading upgrades documents of older schema versions lazily. The documents a
// typed $lookup brings are read as the target model (odm::Joined<Brand>), so a version-1
// brand reads upgraded, as find() reads it.
TEST_F(Adversary12Pipeline, LookupOfAVersionedTargetReadsItUpgraded) {
  insert("brands", R"([{"_id": "b1", "label": "Acme"}, {"_id": "b2", "name": "Zeta", "schema_version": 2}])");
  insert("products", R"([{"_id": 1, "brand": "b1"}, {"_id": 2, "brand": "b2"}])");
  ASSERT_EQ(db().collection<Brand>().get_by_id("b1").name, "Acme") << "find upgrades lazily";
  const std::vector<ProductWithBrand> found =
      db().collection<Product>()
          .aggregate(odm::pipeline<Product>()
                         .lookup<&Product::brand, &ProductWithBrand::brands>()
                         .sort(odm::sort(odm::asc(&ProductWithBrand::id))))
          .to_vector();
  ASSERT_EQ(found.size(), 2u);
  ASSERT_EQ(found[0].brands.size(), 1u);
  EXPECT_EQ(found[0].brands[0].name, "Acme");
  ASSERT_EQ(found[1].brands.size(), 1u);
  EXPECT_EQ(found[1].brands[0].name, "Zeta");
}

// A reply that does not fit the output struct (a raw stage whose R is wrong, or a stored
// document of another shape) is a DecodeError naming the field, never a crash or a
// silently defaulted value.
TEST_F(Adversary12Pipeline, ReplyThatDoesNotFitIsADecodeError) {
  insert("sales", R"([{"_id": 1, "shop": "a", "qty": "seven"}])");
  try {
    const auto found =
        sales().aggregate(odm::pipeline<Sale>().stage<OnlyShop>(json(R"({"$project": {"qty": 1}})"))).to_vector();
    ADD_FAILURE() << "a string qty read as " << (found.empty() ? -1 : found[0].qty);
  } catch (const odm::DecodeError& error) {
    EXPECT_NE(std::string(error.what()).find("qty"), std::string::npos) << error.what();
  }
  // A missing required member of the output struct.
  try {
    const auto found =
        sales().aggregate(odm::pipeline<Sale>().stage<OnlyShop>(json(R"({"$project": {"shop": 1}})"))).to_vector();
    ADD_FAILURE() << "a missing qty read as " << (found.empty() ? -1 : found[0].qty);
  } catch (const odm::DecodeError& error) {
    EXPECT_NE(std::string(error.what()).find("qty"), std::string::npos) << error.what();
  }
  // A wrong key type: the key of a $group is not what the result's id says.
  struct IntKey {
    std::int32_t id = 0;
    std::int64_t n = 0;
  };
  EXPECT_THROW(sales()
                   .aggregate(odm::pipeline<Sale>().stage<IntKey>(
                       json(R"({"$group": {"_id": "$shop", "n": {"$sum": 1}}})")))
                   .to_vector(),
               odm::DecodeError);
}

// A raw stage is one field whose name starts with `$`; anything else is refused before
// anything is sent.
TEST_F(Adversary12Pipeline, RawStagesOfTheWrongShapeAreRefused) {
  EXPECT_THROW((void)odm::pipeline<Sale>().stage<odm::Document>(json("{}")), odm::ValueError);
  EXPECT_THROW((void)odm::pipeline<Sale>().stage<odm::Document>(json(R"({"match": {}})")), odm::ValueError);
  EXPECT_THROW((void)odm::pipeline<Sale>().stage<odm::Document>(json(R"({"$match": {}, "$limit": 1})")),
               odm::ValueError);
  // A valid raw stage read untyped.
  insert("sales", R"([{"_id": 1, "shop": "a"}])");
  const auto raw =
      sales().aggregate(odm::pipeline<Sale>().stage<odm::Document>(json(R"({"$project": {"shop": 1}})"))).to_vector();
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_TRUE(odm_test::has_key(raw[0], "shop"));
}

// A $group keyed by a field some documents lack: MongoDB groups them under _id null.
// The result's id is a std::string, so that group cannot be read: a DecodeError (not a
// crash, not an empty string that looks like a real key).
TEST_F(Adversary12Pipeline, GroupKeyMissingIsNullNotEmptyString) {
  insert("sales", R"([{"_id": 1, "qty": 1}, {"_id": 2, "shop": "a", "qty": 2}])");
  struct ByShop {
    std::string id;
    std::int64_t n = 0;
  };
  try {
    auto found = db()
                     .collection<Sale>()
                     .aggregate(odm::pipeline<Sale>().stage<ByShop>(
                         json(R"({"$group": {"_id": "$shop", "n": {"$sum": 1}}})")))
                     .to_vector();
    for (const ByShop& g : found) EXPECT_FALSE(g.id.empty()) << "a null group key read as an empty string";
  } catch (const odm::DecodeError& error) {
    SUCCEED() << error.what();
  }
}

}  // namespace
