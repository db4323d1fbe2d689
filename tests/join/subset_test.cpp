// The subset pattern: the product embeds its 10 newest reviews, the review collection
// keeps all of them, and odm keeps the two consistent.

#include <odm/join/subset.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono;

struct Product;

struct Review {
  std::int32_t review_id = 0;
  odm::ParentRef<Product> product_id;
  std::string review_author;
  std::string review_text;
  sys_days published_date{};
  struct odm_model {
    static constexpr std::string_view collection = "review";
    static constexpr auto key = &Review::review_id;
  };
};

struct Product {
  std::int32_t id = 0;
  std::string name;
  odm::Subset<Review, 10, &Review::published_date> reviews;
  struct odm_model {
    static constexpr std::string_view collection = "product";
  };
};

Review review(std::int32_t id, int day) {
  return Review{id, {}, "author " + std::to_string(id), "text " + std::to_string(id),
                sys_days(year(2019) / 1 / 1) + days(day)};
}

/// The ids of the product's embedded reviews, in stored order.
std::vector<std::int32_t> embedded_ids(const odm::Database& db) {
  const auto product = db.collection<Product>().find_by_id(1);
  std::vector<std::int32_t> ids;
  if (product)
    for (const Review& r : product->reviews) ids.push_back(r.review_id);
  return ids;
}

class SubsetPattern : public odm_test::DriverTest {};

TEST_F(SubsetPattern, AddingKeepsTheTenNewestEmbeddedAndAllInTheCollection) {
  db().collection<Product>().insert_one(Product{1, "Super Widget", {}});
  // Review i is published on day (i * 7) % 15: not in order of insertion.
  for (std::int32_t i = 0; i < 15; ++i) EXPECT_TRUE(odm::subset::add(db(), &Product::reviews, 1, review(i, (i * 7) % 15)));

  EXPECT_EQ(db().collection<Review>().count(), 15);
  std::vector<std::pair<int, std::int32_t>> by_day;
  for (std::int32_t i = 0; i < 15; ++i) by_day.emplace_back((i * 7) % 15, i);
  std::sort(by_day.rbegin(), by_day.rend());
  std::vector<std::int32_t> newest;
  for (std::size_t i = 0; i < 10; ++i) newest.push_back(by_day[i].second);
  EXPECT_EQ(embedded_ids(db()), newest);

  // The embedded copies carry no back reference: the seed's shape.
  const odm::Document stored = db().collection<Product>().aggregate({odm_test::json(R"({"$project": {"_id": 0, "r": {"$arrayElemAt": ["$reviews", 0]}}})")}).to_vector().at(0);
  EXPECT_EQ(stored.to_json().find("product_id"), std::string::npos) << stored.to_json();
  // The full collection's documents do carry it.
  const auto full = db().collection<Review>().find().to_vector();
  for (const Review& r : full) EXPECT_EQ(*r.product_id.id(), 1);
}

TEST_F(SubsetPattern, EditingUpdatesBothPlacesAndKeepsTheOrder) {
  db().collection<Product>().insert_one(Product{1, "Super Widget", {}});
  for (std::int32_t i = 0; i < 12; ++i) odm::subset::add(db(), &Product::reviews, 1, review(i, i));
  // Review 5 is embedded (days 2..11 are); move it to the newest day and change its text.
  Review edited = review(5, 40);
  edited.product_id = 1;
  edited.review_text = "edited";
  odm::subset::update(db(), &Product::reviews, edited);

  const auto product = db().collection<Product>().find_by_id(1);
  ASSERT_TRUE(product.has_value());
  ASSERT_EQ(product->reviews.size(), 10u);
  EXPECT_EQ(product->reviews[0].review_id, 5) << "re-sorted: now the newest";
  EXPECT_EQ(product->reviews[0].review_text, "edited");
  const auto stored = db().collection<Review>().find_one(odm::Filter<Review>::raw(odm_test::json(R"({"review_id": 5})")));
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->review_text, "edited");
}

TEST_F(SubsetPattern, RemovingRefillsFromTheFullCollection) {
  db().collection<Product>().insert_one(Product{1, "Super Widget", {}});
  for (std::int32_t i = 0; i < 14; ++i) odm::subset::add(db(), &Product::reviews, 1, review(i, i));
  Review newest = review(13, 13);
  newest.product_id = 1;
  odm::subset::remove(db(), &Product::reviews, newest);

  EXPECT_EQ(db().collection<Review>().count(), 13);
  EXPECT_EQ(embedded_ids(db()), (std::vector<std::int32_t>{12, 11, 10, 9, 8, 7, 6, 5, 4, 3}))
      << "review 3 came back from the full collection";
}

TEST_F(SubsetPattern, RepairRebuildsFromTheFullCollection) {
  db().collection<Product>().insert_one(Product{1, "Super Widget", {}});
  for (std::int32_t i = 0; i < 11; ++i) odm::subset::add(db(), &Product::reviews, 1, review(i, i));
  // Something outside odm emptied the embedded array.
  db().collection<Product>().update_one(odm::Filter<Product>::raw(odm_test::json(R"({"_id": 1})")),
                                        odm::Update<Product>::raw(odm_test::json(R"({"$set": {"reviews": []}})")));
  EXPECT_TRUE(embedded_ids(db()).empty());
  odm::subset::repair(db(), &Product::reviews, 1);
  EXPECT_EQ(embedded_ids(db()), (std::vector<std::int32_t>{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}));
}

TEST_F(SubsetPattern, ConcurrentWritersLeaveExactlyTheTenNewest) {
  db().collection<Product>().insert_one(Product{1, "Super Widget", {}});
  constexpr int writers = 6;
  constexpr int per_writer = 8;
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < per_writer; ++i) {
        const std::int32_t id = w * per_writer + i;
        odm::subset::add(db(), &Product::reviews, 1, review(id, (id * 17) % 48));  // 48 distinct days
      }
    });
  for (auto& thread : threads) thread.join();

  std::vector<std::pair<int, std::int32_t>> by_day;
  for (std::int32_t id = 0; id < writers * per_writer; ++id) by_day.emplace_back((id * 17) % 48, id);
  std::sort(by_day.rbegin(), by_day.rend());
  std::vector<std::int32_t> newest;
  for (std::size_t i = 0; i < 10; ++i) newest.push_back(by_day[i].second);
  EXPECT_EQ(embedded_ids(db()), newest);
  EXPECT_EQ(db().collection<Review>().count(), writers * per_writer);
}

}  // namespace
