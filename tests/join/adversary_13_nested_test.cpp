// Adversarial probes of references inside embedded documents (issue 13 item 3), written
// from the README's Relationships section: drop inside std::array, map values and optional
// sub-documents; duplicates of a dangling id; a fan-out split by JoinOptions; bad targets
// under drop; a three-level path whose deepest policy is drop; an empty result.

#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace adversary_13_nested {
namespace {

using odm_test::json;

struct Category {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

struct Product {
  std::int64_t id = 0;
  std::string name;
  odm::Ref<Category, odm::Dangling::drop> category;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

struct Item {
  odm::Ref<Product, odm::Dangling::drop> product;
  std::int32_t quantity = 0;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
  };
};

struct Order {
  std::int64_t id = 0;
  std::vector<odm::Embedded<Item>> items;
  // std::array<odm::Embedded<Item>, 2> would belong here, but g++ 12.2 crashes on any
  // aggregate holding an array of a class with a destructor (std::array<std::string, 2>
  // too; internal compiler error in check_noexcept_r under Boost.PFR's field count);
  // std_array_join_test.cpp covers std::array with clang++. A std::vector stands in here.
  std::vector<odm::Embedded<Item>> pair;
  std::optional<odm::Embedded<Item>> gift;
  std::map<std::string, odm::Embedded<Item>> saved;
  std::vector<std::vector<odm::Embedded<Item>>> boxes;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto when_absent = odm::Absent::initial_value;
  };
};

class Nested13 : public odm_test::DriverTest {
 protected:
  void insert_raw(const std::string& collection, const std::string& documents) {
    db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": )" + documents + "}"));
  }
  /// Products 0..n-1, each in category c0; the categories collection holds c0 only.
  void catalogue(std::int64_t n) {
    insert_raw("categories", R"([{"_id": "c0", "name": "Zero"}])");
    std::vector<Product> products;
    for (std::int64_t p = 0; p < n; ++p)
      products.push_back({p, "P" + std::to_string(p), odm::Ref<Category, odm::Dangling::drop>("c0")});
    db().collection<Product>().insert_many(products);
  }
  std::vector<Order> orders() {
    return db()
        .collection<Order>()
        .find({}, odm::FindOptions<Order>{}.sort(odm::Sort<Order>::raw(json(R"({"_id": 1})"))))
        .to_vector();
  }
  /// An order whose every reference points at product `p`, with `where` replaced by 42.
  static std::string order(int id, const std::string& where) {
    const auto at = [&](const std::string& place) { return place == where ? std::string("42") : std::string("1"); };
    return R"({"_id": )" + std::to_string(id) + R"(, "items": [{"product": )" + at("items") +
           R"(, "quantity": 1}], "pair": [{"product": 1, "quantity": 1}, {"product": )" + at("pair") +
           R"(, "quantity": 1}], "gift": {"product": )" + at("gift") + R"(, "quantity": 1}, "saved": {"k1": {"product": )" +
           at("saved") + R"(, "quantity": 1}}, "boxes": [[], [{"product": 0, "quantity": 1}, {"product": )" + at("boxes") +
           R"(, "quantity": 1}]]})";
  }
  static auto relations() {
    return std::make_tuple(odm::with(&Order::items, odm::with(&Item::product)),
                           odm::with(&Order::pair, odm::with(&Item::product)),
                           odm::with(&Order::gift, odm::with(&Item::product)),
                           odm::with(&Order::saved, odm::with(&Item::product)),
                           odm::with(&Order::boxes, odm::with(&Item::product)));
  }
};

// Under drop, a dangling reference in any container leaves out the order it lies in, and
// only that order: the other orders keep every embedded item, resolved.
TEST_F(Nested13, DropInAnyContainerLeavesOutTheOrderItLiesIn) {
  catalogue(2);
  insert_raw("orders", "[" + order(1, "none") + "," + order(2, "items") + "," + order(3, "pair") + "," + order(4, "gift") +
                           "," + order(5, "saved") + "," + order(6, "boxes") + "," + order(7, "none") + "]");
  auto loaded = orders();
  log_.clear();
  std::apply([&](const auto&... relation) { odm::resolve(db(), loaded, relation...); }, relations());
  EXPECT_EQ(log_.started("find"), 5) << "one find per relation";
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].id, 1);
  EXPECT_EQ(loaded[1].id, 7);
  for (const Order& o : loaded) {
    EXPECT_EQ(o.items.at(0)->product->name, "P1");
    EXPECT_EQ(o.pair.at(1)->product->name, "P1");
    EXPECT_EQ((*o.gift)->product->name, "P1");
    EXPECT_EQ(o.saved.at("k1")->product->name, "P1") << "the map value";
    EXPECT_EQ(o.boxes.at(1).at(0)->product->name, "P0");
    EXPECT_EQ(o.boxes.at(1).at(1)->product->name, "P1");
  }
}

// The same through a cursor's .with: the documents left out never reach the caller.
TEST_F(Nested13, DropThroughACursorLeavesOutTheSameOrders) {
  catalogue(2);
  insert_raw("orders", "[" + order(1, "gift") + "," + order(2, "none") + "," + order(3, "saved") + "]");
  const std::vector<Order> loaded =
      db().collection<Order>()
          .find({}, odm::FindOptions<Order>{}.sort(odm::Sort<Order>::raw(json(R"({"_id": 1})"))))
          .with(&Order::gift, odm::with(&Item::product))
          .with(&Order::saved, odm::with(&Item::product));
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].id, 2);
  EXPECT_EQ((*loaded[0].gift)->product->name, "P1");
}

// A missing optional sub-document and empty containers hold nothing to resolve and never
// make an order look dangling.
TEST_F(Nested13, MissingOptionalAndEmptyContainersKeepTheOrder) {
  catalogue(2);
  insert_raw("orders", R"([{"_id": 1, "items": [], "pair": [{"product": 0, "quantity": 1}, {"product": 1, "quantity": 1}],
                            "saved": {}, "boxes": [[], []]}])");
  auto loaded = orders();
  log_.clear();
  std::apply([&](const auto&... relation) { odm::resolve(db(), loaded, relation...); }, relations());
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_FALSE(loaded[0].gift.has_value());
  EXPECT_EQ(loaded[0].pair.at(1)->product->name, "P1");
  EXPECT_LE(log_.started("find"), 1) << "only the pair has ids to fetch";
}

// The same dangling id repeated in one order and across orders: every such order is left
// out once, the order of the others is kept.
TEST_F(Nested13, DuplicatesOfADanglingIdLeaveOutEachOrderOnce) {
  catalogue(3);
  insert_raw("orders", R"([{"_id": 1, "items": [{"product": 42}, {"product": 0}, {"product": 42}]},
                           {"_id": 2, "items": [{"product": 2}, {"product": 2}, {"product": 0}]},
                           {"_id": 3, "items": [{"product": 42}]},
                           {"_id": 4, "items": [{"product": 1}]}])");
  auto loaded = orders();
  odm::resolve(db(), loaded, odm::with(&Order::items, odm::with(&Item::product)));
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].id, 2);
  EXPECT_EQ(loaded[1].id, 4);
  ASSERT_EQ(loaded[0].items.size(), 3u);
  EXPECT_EQ(&*loaded[0].items[0]->product, &*loaded[0].items[1]->product) << "a shared target";
  EXPECT_EQ(loaded[0].items[2]->product->name, "P0");
}

// A fan-out larger than one query: the ids of every item of every order are split by
// JoinOptions::max_ids_per_query, and each reference still reads the product its id names.
TEST_F(Nested13, AFanOutIsSplitAndEveryItemResolved) {
  constexpr std::int64_t products = 60;
  catalogue(products);
  std::string documents = "[";
  for (int o = 0; o < 10; ++o) {
    if (o > 0) documents += ",";
    documents += R"({"_id": )" + std::to_string(o) + R"(, "items": [)";
    for (int i = 0; i < 12; ++i) {
      if (i > 0) documents += ",";
      documents += R"({"product": )" + std::to_string((o * 7 + i * 5) % products) + R"(, "quantity": )" + std::to_string(i) + "}";
    }
    documents += "]}";
  }
  insert_raw("orders", documents + "]");
  auto loaded = orders();
  odm::JoinOptions options;
  options.max_ids_per_query = 7;
  log_.clear();
  odm::resolve(db(), loaded, odm::with(&Order::items, odm::with(&Item::product, odm::with(&Product::category))), options);
  // 60 distinct products ((7o + 5i) mod 60 covers them all): ceil(60 / 7) = 9 finds, + 1 for the category.
  EXPECT_EQ(log_.started("find"), 10);
  ASSERT_EQ(loaded.size(), 10u);
  for (int o = 0; o < 10; ++o)
    for (int i = 0; i < 12; ++i) {
      const Item& it = *loaded[static_cast<std::size_t>(o)].items.at(static_cast<std::size_t>(i));
      EXPECT_EQ(it.quantity, i);
      EXPECT_EQ(it.product->id, (o * 7 + i * 5) % products);
      EXPECT_EQ(it.product->category->name, "Zero");
    }
}

// Under drop at the deepest level (product → category), the product is a target of an
// outer level: its category stays dangling, neither the product nor the order is lost.
TEST_F(Nested13, DropAtTheDeepestLevelRemovesNoTargetNorOrder) {
  insert_raw("categories", R"([{"_id": "c0", "name": "Zero"}])");
  insert_raw("products", R"([{"_id": 0, "name": "P0", "category": "c0"}, {"_id": 1, "name": "P1", "category": "gone"}])");
  insert_raw("orders", R"([{"_id": 1, "items": [{"product": 1, "quantity": 1}, {"product": 0, "quantity": 2}]}])");
  auto loaded = orders();
  odm::resolve(db(), loaded, odm::with(&Order::items, odm::with(&Item::product, odm::with(&Product::category))));
  ASSERT_EQ(loaded.size(), 1u);
  ASSERT_TRUE(loaded[0].items[0]->product.is_loaded());
  EXPECT_TRUE(loaded[0].items[0]->product->category.is_dangling());
  EXPECT_EQ(loaded[0].items[1]->product->category->name, "Zero");
}

// A product that does not fit its model, skipped, counts as missing: under drop the order
// holding it is left out, and the skipped product is reported once however often it is named.
TEST_F(Nested13, ASkippedTargetUnderDropLeavesOutItsOrdersAndIsReportedOnce) {
  insert_raw("categories", R"([{"_id": "c0", "name": "Zero"}])");
  insert_raw("products", R"([{"_id": 0, "name": "P0", "category": "c0"}, {"_id": 1, "name": 1, "category": "c0"}])");
  insert_raw("orders", R"([{"_id": 1, "items": [{"product": 1}, {"product": 0}]}, {"_id": 2, "items": [{"product": 0}]},
                           {"_id": 3, "items": [{"product": 1}]}])");
  auto loaded = orders();
  odm::JoinOptions skip;
  skip.bad_documents = odm::BadDocuments::skip;
  const auto skipped = odm::resolve(db(), loaded, odm::with(&Order::items, odm::with(&Item::product)), skip);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].id.to_json(), R"({ "_id" : 1 })");
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].id, 2);
}

// A join of no documents sends nothing; a join where every order is dropped returns none.
TEST_F(Nested13, NoDocumentsSendNothingAndAllDroppedLeavesNone) {
  catalogue(1);
  std::vector<Order> none;
  log_.clear();
  odm::resolve(db(), none, odm::with(&Order::items, odm::with(&Item::product)));
  EXPECT_EQ(log_.started("find"), 0);
  insert_raw("orders", R"([{"_id": 1, "items": [{"product": 41}]}, {"_id": 2, "items": [{"product": 42}]}])");
  auto loaded = orders();
  odm::resolve(db(), loaded, odm::with(&Order::items, odm::with(&Item::product)));
  EXPECT_TRUE(loaded.empty());
}

}  // namespace
}  // namespace adversary_13_nested
