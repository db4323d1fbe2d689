// The guides' queries through the typed API, against the server: keyword search on a
// multikey index, money in Decimal128 (equality across cohorts, ranges, sorting), and the
// operations not every engine has (arrayFilters, unique multikey indexes), which declare
// that capability and skip, with the reason, on an engine that lacks it.

#include <odm/odm.hpp>

#include "support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace seed_queries {

using namespace std::chrono;

struct Volume {
  odm::ObjectId id;
  std::string title;
  std::string author;
  std::int32_t published = 0;
  std::int64_t ISBN = 0;
  std::vector<std::string> topics;
  struct odm_model {
    static constexpr std::string_view collection = "volumes";
    static constexpr auto indexes = odm::indexes(odm::index(&Volume::topics));
  };
};

struct VolumeTitle {
  std::string title;
};

struct GasPrice {
  std::int32_t id = 0;
  sys_time<milliseconds> date{};
  odm::Decimal price;
  std::string station;
  std::string grade;
  struct odm_model {
    static constexpr std::string_view collection = "gasprices";
  };
};

struct PricedProduct {
  std::int32_t id = 0;
  std::string name;
  odm::Money price;
  struct odm_model {
    static constexpr std::string_view collection = "product";
  };
};

struct Checkout {
  std::string by;
  sys_days date{};
};

struct Book {
  std::int64_t id = 0;
  std::string title;
  std::int32_t available = 0;
  std::vector<Checkout> checkout;
  struct odm_model {
    static constexpr std::string_view collection = "books";
  };
};

struct Tagged {
  std::int32_t id = 0;
  std::vector<std::string> tags;
  struct odm_model {
    static constexpr std::string_view collection = "tagged";
    static constexpr auto indexes = odm::indexes(odm::index(&Tagged::tags).unique());
  };
};

class SeedQueries : public odm_test::DriverTest {};

TEST_F(SeedQueries, KeywordSearchThroughTheMultikeyIndex) {
  const auto report = odm::sync_indexes<Volume>(db());
  ASSERT_EQ(report.created.size(), 1u) << report.to_string();
  auto volumes = db().collection<Volume>();
  volumes.insert_one(Volume{{}, "Moby-Dick", "Herman Melville", 1851, 451526996,
                            {"whaling", "allegory", "revenge", "American", "novel", "nautical", "voyage", "Cape Cod"}});
  volumes.insert_one(Volume{{}, "The Odyssey", "Homer", -700, 140268863, {"epic", "voyage", "homecoming"}});
  volumes.insert_one(Volume{{}, "Walden", "Henry David Thoreau", 1854, 486284956, {"nature", "simplicity"}});
  log_.clear();

  // db.volumes.findOne({topics: "voyage"}, {title: 1})
  const auto found = volumes.find_one<VolumeTitle>(odm::field(&Volume::topics) == "voyage",
                                                   odm::FindOptions<Volume>{}.sort(odm::sort(odm::asc(&Volume::published))));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->title, "The Odyssey");
  const auto sent = log_.last("find");
  ASSERT_TRUE(sent.has_value());
  const std::string command = sent->to_json();
  EXPECT_NE(command.find(R"("filter" : { "topics" : "voyage" })"), std::string::npos) << command;
  EXPECT_NE(command.find(R"("projection" : { "title" : 1, "_id" : 0 })"), std::string::npos) << command;

  std::vector<std::string> titles;
  for (const VolumeTitle& v : volumes.find<VolumeTitle>(odm::field(&Volume::topics) == "voyage")) titles.push_back(v.title);
  std::sort(titles.begin(), titles.end());
  EXPECT_EQ(titles, (std::vector<std::string>{"Moby-Dick", "The Odyssey"}));
}

TEST_F(SeedQueries, DecimalEqualityRangesAndSorting) {
  auto prices = db().collection<GasPrice>();
  const auto now = time_point_cast<milliseconds>(system_clock::now());
  prices.insert_many(std::vector<GasPrice>{{1, now, odm::Decimal("2.099"), "Quikstop", "regular"},
                                           {2, now, odm::Decimal("2.10"), "Quikstop", "midgrade"},
                                           {3, now, odm::Decimal("1.999"), "Speedy", "regular"},
                                           {4, now, odm::Decimal("10.5"), "Speedy", "premium"}});
  // db.gasprices.find({price: NumberDecimal("2.099")}), asked as 2.0990: the same number.
  const auto same = prices.find(odm::field(&GasPrice::price) == odm::Decimal("2.0990")).to_vector();
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].id, 1);
  EXPECT_EQ(same[0].price.to_string(), "2.099") << "the stored representation is kept";

  // A range and a numeric sort: 10.5 sorts after 2.10 (not as text).
  std::vector<std::int32_t> ids;
  for (const GasPrice& p : prices.find(odm::field(&GasPrice::price) >= odm::Decimal("2"),
                                       odm::FindOptions<GasPrice>{}.sort(odm::sort(odm::asc(&GasPrice::price)))))
    ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<std::int32_t>{1, 2, 4}));

  // Exact arithmetic on the server: $inc by 0.001 three times.
  for (int i = 0; i < 3; ++i) prices.update_one(odm::field(&GasPrice::id) == 3, odm::field(&GasPrice::price).inc(odm::Decimal("0.001")));
  EXPECT_EQ(prices.get_by_id(3).price, odm::Decimal("2.002"));
}

TEST_F(SeedQueries, MoneyValuesCompareAndSortByAmount) {
  auto products = db().collection<PricedProduct>();
  products.insert_many(std::vector<PricedProduct>{{1, "Super Widget", odm::Money("119.99", "USD")},
                                                  {2, "Cheap Widget", odm::Money("9.90", "USD")},
                                                  {3, "Gold Widget", odm::Money("1199.00", "USD")}});
  const auto exact = products.find(odm::Filter<PricedProduct>::raw(
      odm_test::json(R"({"price.value": {"$numberDecimal": "119.990"}, "price.currency": "USD"})"))).to_vector();
  ASSERT_EQ(exact.size(), 1u);
  EXPECT_EQ(exact[0].price, odm::Money("119.99", "USD"));
  std::vector<std::int32_t> ids;
  for (const auto& p : products.find(odm::Filter<PricedProduct>::raw(odm_test::json(R"({"price.value": {"$gt": {"$numberDecimal": "10"}}})")),
                                     odm::FindOptions<PricedProduct>{}.sort(odm::Sort<PricedProduct>::raw(odm_test::json(R"({"price.value": -1})")))))
    ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<std::int32_t>{3, 1}));
}

TEST_F(SeedQueries, ArrayFiltersUpdateMatchingElements) {
  ODM_REQUIRE(array_filters);
  auto books = db().collection<Book>();
  books.insert_one(Book{1, "MongoDB: The Definitive Guide", 1,
                        {{"joe", sys_days(year(2012) / 10 / 15)}, {"abc", sys_days(year(2012) / 10 / 16)}}});
  const auto result = books.update_one(
      odm::field(&Book::id) == 1,
      odm::Update<Book>::raw(odm_test::json(R"({"$set": {"checkout.$[c].by": "joe.bloggs"}})")),
      odm::UpdateOptions<Book>{}.array_filters({odm_test::json(R"({"c.by": "joe"})")}));
  EXPECT_EQ(result.modified, 1);
  const Book stored = books.get_by_id(1);
  EXPECT_EQ(stored.checkout[0].by, "joe.bloggs");
  EXPECT_EQ(stored.checkout[1].by, "abc");
}

TEST_F(SeedQueries, UniqueMultikeyIndexRefusesASharedElement) {
  ODM_REQUIRE(unique_multikey_indexes);
  // https://www.mongodb.com/docs/manual/core/index-unique/#unique-constraint-across-separate-documents
  odm::sync_indexes<Tagged>(db());
  auto tagged = db().collection<Tagged>();
  tagged.insert_one(Tagged{1, {"a", "b", "a"}});  // one document may repeat an element
  EXPECT_THROW(tagged.insert_one(Tagged{2, {"c", "b"}}), odm::DuplicateKeyError) << "two documents share the element b";
  EXPECT_NO_THROW(tagged.insert_one(Tagged{3, {"c", "d"}}));
  EXPECT_THROW(tagged.update_one(odm::field(&Tagged::id) == 3, odm::field(&Tagged::tags).push(std::string("a"))),
               odm::DuplicateKeyError);
  tagged.update_one(odm::field(&Tagged::id) == 1, odm::field(&Tagged::tags).pull(std::string("b")));
  EXPECT_NO_THROW(tagged.update_one(odm::field(&Tagged::id) == 3, odm::field(&Tagged::tags).push(std::string("b"))))
      << "an element a document gave up is free again";
  EXPECT_EQ(tagged.get_by_id(3).tags, (std::vector<std::string>{"c", "d", "b"}));
}

TEST_F(SeedQueries, AUniqueMultikeyIndexNamesTheSharedElement) {
  ODM_REQUIRE(unique_multikey_indexes);
  ODM_REQUIRE(duplicate_key_details);
  // The key a unique multikey index refuses is the shared element, not the array
  // (https://www.mongodb.com/docs/manual/core/index-unique/#unique-constraint-across-separate-documents).
  odm::sync_indexes<Tagged>(db());
  auto tagged = db().collection<Tagged>();
  tagged.insert_one(Tagged{1, {"a", "b"}});
  const auto shared = odm_test::error_of<odm::DuplicateKeyError>([&] { tagged.insert_one(Tagged{2, {"c", "b"}}); });
  ASSERT_TRUE(shared) << "two documents share the element b";
  EXPECT_EQ(shared->key_value().to_json(), odm_test::json(R"({"tags": "b"})").to_json());
}

}  // namespace seed_queries
