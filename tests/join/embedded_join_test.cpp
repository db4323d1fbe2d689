// References anywhere in a document (issue 13 item 3): Ref, ParentRef and RefMany inside
// Embedded sub-documents, std::optional, arrays of embedded documents at any depth, map
// values and Subset items, resolved with one query per relation and level for the whole
// result set, as top-level references are. Commands are counted with command monitoring.

#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

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
  odm::Ref<Category> category;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

struct LineItem {
  odm::Ref<Product> product;
  std::int32_t quantity = 0;
};

struct Gift {
  std::string note;
  odm::Ref<Product> wrapping;
};

struct Order {
  std::int64_t id = 0;
  std::vector<odm::Embedded<LineItem>> items;
  std::optional<odm::Embedded<Gift>> gift;
  std::map<std::string, odm::Ref<Product>> favourites;
  std::map<std::string, odm::Embedded<LineItem>> saved;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

const auto by_id = [] { return odm::Sort<Order>::raw(json(R"({"_id": 1})")); };

// Two levels of arrays: shipments, each with its line items.
struct Shipment {
  std::string carrier;
  std::vector<odm::Embedded<LineItem>> items;
};
struct ShippedOrder {
  std::int64_t id = 0;
  std::vector<odm::Embedded<Shipment>> shipments;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

// The same stored orders, read with each Dangling policy on the line item's reference.
template <odm::Dangling Policy>
struct PolicyItem {
  odm::Ref<Product, Policy> product;
  std::int32_t quantity = 0;
};
template <odm::Dangling Policy>
struct PolicyOrder {
  std::int64_t id = 0;
  std::vector<odm::Embedded<PolicyItem<Policy>>> items;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

// A RefMany inside an embedded document, under drop: forgets the missing ids.
struct Bundle {
  std::string label;
  odm::RefMany<Product, odm::Dangling::drop> products;
};
struct BundleOrder {
  std::int64_t id = 0;
  std::vector<odm::Embedded<Bundle>> bundles;
  struct odm_model {
    static constexpr std::string_view collection = "bundle_orders";
  };
};

// An invoice points at an order: the order is a target, never left out by its items' drop.
struct Invoice {
  std::int64_t id = 0;
  odm::Ref<PolicyOrder<odm::Dangling::drop>> order;
  struct odm_model {
    static constexpr std::string_view collection = "invoices";
  };
};

// A reference inside Subset items.
struct Reviewer {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "reviewers";
  };
};
struct ReviewedProduct;
struct Review {
  std::int32_t review_id = 0;
  odm::ParentRef<ReviewedProduct> product_id;
  odm::Ref<Reviewer> author;
  std::int32_t stars = 0;
  // No odm_model: the test reads the items embedded in their owner only, never their own
  // collection (nor the key that odm::subset's operations use).
};
struct ReviewedProduct {
  std::int32_t id = 0;
  odm::Subset<Review, 3, &Review::stars> reviews;
  struct odm_model {
    static constexpr std::string_view collection = "reviewed_products";
  };
};

// A cycle across embedded paths: people whose friendships point at people.
struct Person;
struct Friendship {
  odm::Ref<Person> who;
  std::int32_t since = 0;
};
struct Person {
  std::string id;
  std::vector<odm::Embedded<Friendship>> friends;
  struct odm_model {
    static constexpr std::string_view collection = "people";
  };
};

class EmbeddedJoin : public odm_test::DriverTest {
 protected:
  void insert_raw(const std::string& collection, const std::string& documents) {
    db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": )" + documents + "}"));
  }
  /// Categories c0..c4, products 0..(n-1), product p in category c(p % 5).
  void insert_catalogue(std::int64_t products) {
    std::vector<Category> categories;
    for (int c = 0; c < 5; ++c) categories.push_back({"c" + std::to_string(c), "Category " + std::to_string(c)});
    db().collection<Category>().insert_many(categories);
    std::vector<Product> stored;
    for (std::int64_t p = 0; p < products; ++p)
      stored.push_back({p, "Product " + std::to_string(p), odm::Ref<Category>("c" + std::to_string(p % 5))});
    db().collection<Product>().insert_many(stored);
  }
  std::vector<Order> orders() { return db().collection<Order>().find({}, odm::FindOptions<Order>{}.sort(by_id())).to_vector(); }
};

LineItem item(std::int64_t product, std::int32_t quantity) { return LineItem{odm::Ref<Product>(product), quantity}; }

TEST_F(EmbeddedJoin, ThousandOrdersOfFiveItemsCostOneFindForProductsAndOneForCategories) {
  insert_catalogue(200);
  std::vector<Order> stored;
  for (std::int64_t o = 0; o < 1'000; ++o) {
    Order order;
    order.id = o;
    for (std::int64_t i = 0; i < 5; ++i) order.items.emplace_back(item((o * 5 + i) % 200, static_cast<std::int32_t>(i + 1)));
    stored.push_back(std::move(order));
  }
  db().collection<Order>().insert_many(stored);
  log_.clear();

  std::vector<Order> loaded = orders();
  odm::resolve(db(), loaded, odm::with(&Order::items, odm::with(&LineItem::product, odm::with(&Product::category))));
  EXPECT_EQ(log_.started("find"), 3) << "the orders, one find for all 5,000 items' products, one for their categories";
  ASSERT_EQ(loaded.size(), 1'000u);
  std::map<std::int64_t, const Product*> shared;
  for (std::int64_t o = 0; o < 1'000; ++o) {
    const Order& order = loaded[static_cast<std::size_t>(o)];
    ASSERT_EQ(order.id, o);
    ASSERT_EQ(order.items.size(), 5u);
    for (std::int64_t i = 0; i < 5; ++i) {
      const LineItem& line = *order.items[static_cast<std::size_t>(i)];
      const std::int64_t expected = (o * 5 + i) % 200;
      ASSERT_TRUE(line.product.is_loaded());
      ASSERT_EQ(line.product->id, expected) << "order " << o << " item " << i;
      EXPECT_EQ(line.quantity, i + 1);
      ASSERT_TRUE(line.product->category.is_loaded());
      EXPECT_EQ(line.product->category->id, "c" + std::to_string(expected % 5));
      auto [at, inserted] = shared.emplace(expected, &*line.product);
      if (!inserted) {
        ASSERT_EQ(at->second, &*line.product) << "one shared object per product";
      }
    }
  }
  EXPECT_EQ(shared.size(), 200u);
}

TEST_F(EmbeddedJoin, ArraysInsideArraysStillCostOneFind) {
  insert_catalogue(50);
  std::vector<ShippedOrder> stored;
  for (std::int64_t o = 0; o < 100; ++o) {
    ShippedOrder order{o, {}};
    for (int s = 0; s < 3; ++s) {
      Shipment shipment{"carrier " + std::to_string(s), {}};
      for (int i = 0; i < s; ++i) shipment.items.emplace_back(item((o + s + i) % 50, i));
      order.shipments.emplace_back(std::move(shipment));
    }
    stored.push_back(std::move(order));
  }
  db().collection<ShippedOrder>().insert_many(stored);
  log_.clear();
  std::vector<ShippedOrder> loaded = db().collection<ShippedOrder>().find().with(
      &ShippedOrder::shipments, odm::with(&Shipment::items, odm::with(&LineItem::product)));
  EXPECT_EQ(log_.started("find"), 2) << "the orders, then every product at any depth in one find";
  ASSERT_EQ(loaded.size(), 100u);
  for (const ShippedOrder& order : loaded)
    for (int s = 0; s < 3; ++s) {
      const Shipment& shipment = *order.shipments[static_cast<std::size_t>(s)];
      ASSERT_EQ(shipment.items.size(), static_cast<std::size_t>(s)) << "the first shipment's array is empty";
      for (int i = 0; i < s; ++i) EXPECT_EQ(shipment.items[static_cast<std::size_t>(i)]->product->id, (order.id + s + i) % 50);
    }
}

TEST_F(EmbeddedJoin, DanglingAndDuplicateReferencesInArraysEmptyArraysAndMissingOptionals) {
  insert_catalogue(3);
  insert_raw("orders", R"([
    {"_id": 1, "items": [{"product": 2, "quantity": 1}, {"product": 99, "quantity": 2}, {"product": 2, "quantity": 3}],
     "gift": {"note": "for you", "wrapping": 1}, "favourites": {"best": 0, "gone": 98}, "saved": {"later": {"product": 1, "quantity": 4}}},
    {"_id": 2, "items": [], "favourites": {}, "saved": {}},
    {"_id": 3, "items": [{"product": 0, "quantity": 5}], "gift": {"note": "lost", "wrapping": 97}, "favourites": {}, "saved": {}}])");
  log_.clear();
  std::vector<Order> loaded = orders();
  odm::resolve(db(), loaded, odm::JoinOptions{}, odm::with(&Order::items, odm::with(&LineItem::product)),
               odm::with(&Order::gift, odm::with(&Gift::wrapping)), odm::with(&Order::favourites),
               odm::with(&Order::saved, odm::with(&LineItem::product)));
  EXPECT_EQ(log_.started("find"), 5) << "the orders, then one find per relation";
  ASSERT_EQ(loaded.size(), 3u) << "Dangling::keep leaves every order";

  const Order& first = loaded[0];
  ASSERT_EQ(first.items.size(), 3u) << "a dangling item stays in its array";
  EXPECT_EQ(first.items[0]->product->name, "Product 2");
  EXPECT_TRUE(first.items[1]->product.is_dangling());
  EXPECT_EQ(first.items[1]->product.id(), 99);
  EXPECT_THROW((void)first.items[1]->product.get(), odm::NotLoadedError);
  EXPECT_EQ(&*first.items[0]->product, &*first.items[2]->product) << "a duplicate reference shares its target";
  EXPECT_EQ(first.items[2]->quantity, 3);
  EXPECT_EQ((*first.gift)->wrapping->name, "Product 1");
  EXPECT_EQ(first.favourites.at("best")->name, "Product 0");
  EXPECT_TRUE(first.favourites.at("gone").is_dangling());
  EXPECT_EQ(first.saved.at("later")->product->name, "Product 1");

  EXPECT_TRUE(loaded[1].items.empty());
  EXPECT_FALSE(loaded[1].gift.has_value()) << "a missing optional sub-document stays missing";
  EXPECT_TRUE(loaded[2].gift.has_value());
  EXPECT_TRUE((*loaded[2].gift)->wrapping.is_dangling());
  EXPECT_EQ(loaded[2].items[0]->product->name, "Product 0");

  // Only empty arrays and no optional: nothing to fetch, no query at all.
  std::vector<Order> empty = db().collection<Order>().find(odm::field(&Order::id) == std::int64_t{2}).to_vector();
  log_.clear();
  odm::resolve(db(), empty, odm::with(&Order::items, odm::with(&LineItem::product)), odm::with(&Order::gift, odm::with(&Gift::wrapping)));
  EXPECT_EQ(log_.started("find"), 0);
}

class EmbeddedPolicies : public EmbeddedJoin {
 protected:
  void SetUp() override {
    EmbeddedJoin::SetUp();
    insert_catalogue(3);
    insert_raw("orders", R"([{"_id": 1, "items": [{"product": 0, "quantity": 1}, {"product": 1, "quantity": 2}]},
                             {"_id": 2, "items": [{"product": 2, "quantity": 1}, {"product": 42, "quantity": 2}]},
                             {"_id": 3, "items": []},
                             {"_id": 4, "items": [{"product": 42, "quantity": 3}]}])");
  }
  template <odm::Dangling Policy>
  std::vector<PolicyOrder<Policy>> read() {
    return db().collection<PolicyOrder<Policy>>().find({}, odm::FindOptions<PolicyOrder<Policy>>{}.sort(
        odm::Sort<PolicyOrder<Policy>>::raw(json(R"({"_id": 1})")))).to_vector();
  }
};

TEST_F(EmbeddedPolicies, KeepLeavesTheItemDangling) {
  auto loaded = read<odm::Dangling::keep>();
  odm::resolve(db(), loaded, odm::with(&PolicyOrder<odm::Dangling::keep>::items,
                                       odm::with(&PolicyItem<odm::Dangling::keep>::product)));
  ASSERT_EQ(loaded.size(), 4u);
  EXPECT_TRUE(loaded[1].items[1]->product.is_dangling());
  EXPECT_EQ(loaded[1].items[1]->product.id(), 42);
  EXPECT_EQ(loaded[1].items[0]->product->name, "Product 2");
}

TEST_F(EmbeddedPolicies, DropLeavesOutTheResultDocumentNeverAnEmbeddedOne) {
  auto loaded = read<odm::Dangling::drop>();
  log_.clear();
  odm::resolve(db(), loaded, odm::with(&PolicyOrder<odm::Dangling::drop>::items,
                                       odm::with(&PolicyItem<odm::Dangling::drop>::product)));
  EXPECT_EQ(log_.started("find"), 1);
  ASSERT_EQ(loaded.size(), 2u) << "orders 2 and 4 hold a dangling item: an inner join leaves them out";
  EXPECT_EQ(loaded[0].id, 1);
  EXPECT_EQ(loaded[1].id, 3) << "an order without items is kept";
  ASSERT_EQ(loaded[0].items.size(), 2u);
  EXPECT_EQ(loaded[0].items[1]->product->name, "Product 1");
}

TEST_F(EmbeddedPolicies, RaiseNamesThePathAndTheId) {
  auto loaded = read<odm::Dangling::raise>();
  try {
    odm::resolve(db(), loaded, odm::with(&PolicyOrder<odm::Dangling::raise>::items,
                                         odm::with(&PolicyItem<odm::Dangling::raise>::product)));
    ADD_FAILURE() << "a dangling reference inside an array must raise";
  } catch (const odm::DanglingReference& e) {
    EXPECT_NE(std::string(e.what()).find("items.product: no document with _id 42 in collection products"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(EmbeddedPolicies, DropInsideATargetNeverRemovesTheTarget) {
  insert_raw("invoices", R"([{"_id": 10, "order": 2}, {"_id": 11, "order": 1}])");
  auto invoices = db().collection<Invoice>().find({}, odm::FindOptions<Invoice>{}.sort(odm::Sort<Invoice>::raw(json(R"({"_id": 1})")))).to_vector();
  odm::resolve(db(), invoices,
               odm::with(&Invoice::order, odm::with(&PolicyOrder<odm::Dangling::drop>::items,
                                                    odm::with(&PolicyItem<odm::Dangling::drop>::product))));
  ASSERT_EQ(invoices.size(), 2u);
  ASSERT_TRUE(invoices[0].order.is_loaded()) << "order 2 exists; its dangling item does not make it missing";
  EXPECT_TRUE(invoices[0].order->items[1]->product.is_dangling());
  EXPECT_EQ(invoices[0].order->items[0]->product->name, "Product 2");
  EXPECT_EQ(invoices[1].order->items[0]->product->name, "Product 0");
}

TEST_F(EmbeddedPolicies, RefManyInsideAnEmbeddedDocumentForgetsMissingIdsUnderDrop) {
  insert_raw("bundle_orders", R"([{"_id": 1, "bundles": [{"label": "a", "products": [0, 42, 1, 0]}, {"label": "b", "products": []}]},
                                  {"_id": 2, "bundles": [{"label": "c", "products": [43]}]}])");
  auto loaded = db().collection<BundleOrder>().find({}, odm::FindOptions<BundleOrder>{}.sort(odm::Sort<BundleOrder>::raw(json(R"({"_id": 1})")))).to_vector();
  odm::resolve(db(), loaded, odm::with(&BundleOrder::bundles, odm::with(&Bundle::products)));
  ASSERT_EQ(loaded.size(), 2u) << "a RefMany never leaves its document out";
  const auto& products = loaded[0].bundles[0]->products;
  ASSERT_EQ(products.size(), 3u);
  EXPECT_EQ(products.ids(), (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_EQ(&products[0], &products[2]);
  EXPECT_TRUE(loaded[1].bundles[0]->products.empty());
}

TEST_F(EmbeddedJoin, AReferenceInsideSubsetItems) {
  insert_raw("reviewers", R"([{"_id": "ann", "name": "Ann"}, {"_id": "bob", "name": "Bob"}])");
  insert_raw("reviewed_products", R"([{"_id": 1, "reviews": [{"review_id": 1, "author": "ann", "stars": 5},
                                                             {"review_id": 2, "author": "bob", "stars": 4},
                                                             {"review_id": 3, "author": "ghost", "stars": 3}]},
                                      {"_id": 2, "reviews": [{"review_id": 4, "author": "bob", "stars": 5}]}])");
  auto loaded = db().collection<ReviewedProduct>().find({}, odm::FindOptions<ReviewedProduct>{}.sort(
      odm::Sort<ReviewedProduct>::raw(json(R"({"_id": 1})")))).to_vector();
  log_.clear();
  odm::resolve(db(), loaded, odm::with(&ReviewedProduct::reviews, odm::with(&Review::author)));
  EXPECT_EQ(log_.started("find"), 1);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].reviews[0].author->name, "Ann");
  EXPECT_EQ(loaded[0].reviews[1].author->name, "Bob");
  EXPECT_TRUE(loaded[0].reviews[2].author.is_dangling());
  EXPECT_EQ(&*loaded[0].reviews[1].author, &*loaded[1].reviews[0].author);
  // The items' ParentRef is not embedded (the owner is the enclosing document): nothing to fetch.
  log_.clear();
  odm::resolve(db(), loaded, odm::with(&ReviewedProduct::reviews, odm::with(&Review::product_id)));
  EXPECT_EQ(log_.started("find"), 0);
}

TEST_F(EmbeddedJoin, ACycleAcrossEmbeddedPathsCostsOneFindPerLevel) {
  insert_raw("people", R"([{"_id": "ann", "friends": [{"who": "bob", "since": 2001}]},
                           {"_id": "bob", "friends": [{"who": "ann", "since": 2001}, {"who": "bob", "since": 1990}]}])");
  std::vector<Person> people = db().collection<Person>().find(odm::field(&Person::id) == std::string("ann")).to_vector();
  log_.clear();
  odm::resolve(db(), people, odm::with(&Person::friends,
                                       odm::with(&Friendship::who, odm::with(&Person::friends, odm::with(&Friendship::who)))));
  EXPECT_EQ(log_.started("find"), 2) << "one find per level, however the data loops";
  ASSERT_EQ(people.size(), 1u);
  const Person& bob = *people[0].friends[0]->who;
  EXPECT_EQ(bob.id, "bob");
  ASSERT_EQ(bob.friends.size(), 2u);
  EXPECT_EQ(bob.friends[0]->who->id, "ann") << "a fresh copy of ann at the next level";
  EXPECT_NE(&*bob.friends[0]->who, &people[0]);
  EXPECT_EQ(bob.friends[1]->who->id, "bob");
  EXPECT_FALSE(bob.friends[0]->who->friends[0]->who.is_loaded()) << "two levels were asked for, no more";
}

TEST_F(EmbeddedJoin, BadTargetsAreSkippedAndReportedAtEveryLevel) {
  insert_raw("categories", R"([{"_id": "c0", "name": "Zero"}, {"_id": "c1", "name": 1}])");
  insert_raw("products", R"([{"_id": 0, "name": "Product 0", "category": "c0"}, {"_id": 1, "name": "Product 1", "category": "c1"},
                             {"_id": 2, "name": 2, "category": "c0"}])");
  insert_raw("orders", R"([{"_id": 1, "items": [{"product": 0, "quantity": 1}, {"product": 1, "quantity": 1}, {"product": 2, "quantity": 1}],
                            "favourites": {}, "saved": {}}])");
  auto loaded = orders();
  const auto relation = odm::with(&Order::items, odm::with(&LineItem::product, odm::with(&Product::category)));
  EXPECT_THROW(odm::resolve(db(), loaded, relation), odm::DecodeError) << "by default a bad target throws";

  loaded = orders();
  odm::JoinOptions skip;
  skip.bad_documents = odm::BadDocuments::skip;
  const auto skipped = odm::resolve(db(), loaded, relation, skip);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].id.to_json(), R"({ "_id" : 2 })") << "the product level first";
  EXPECT_EQ(skipped[1].id.to_json(), R"({ "_id" : "c1" })");
  const auto& items = loaded.at(0).items;
  EXPECT_EQ(items[0]->product->category->name, "Zero");
  EXPECT_TRUE(items[1]->product->category.is_dangling()) << "a skipped category counts as missing";
  EXPECT_TRUE(items[2]->product.is_dangling()) << "a skipped product counts as missing (keep)";
}

// Randomized against a reference model: orders with random items (some dangling, some
// repeated), optional gifts and map values, resolved with random batch sizes; every
// reference must hold exactly the stored product its id names, and the finds must be
// one per relation and batch of distinct ids.
TEST_F(EmbeddedJoin, RandomizedAgainstAReferenceModel) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (set it in the test to replay)");
  std::mt19937 random(seed);
  const auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
  constexpr std::int64_t catalogue = 40;
  insert_catalogue(catalogue);  // ids 0..39 exist; 40..59 dangle
  const auto product_id = [&] { return static_cast<std::int64_t>(pick(60)); };

  std::vector<Order> stored;
  const int count = 50 + pick(150);
  for (std::int64_t o = 0; o < count; ++o) {
    Order order;
    order.id = o;
    const int items = pick(7);
    for (int i = 0; i < items; ++i) order.items.emplace_back(item(product_id(), i));
    if (pick(2) == 0) order.gift = odm::Embedded<Gift>(Gift{"note", odm::Ref<Product>(product_id())});
    const int favourites = pick(3);
    for (int f = 0; f < favourites; ++f) order.favourites["f" + std::to_string(f)] = odm::Ref<Product>(product_id());
    stored.push_back(std::move(order));
  }
  db().collection<Order>().insert_many(stored);

  std::set<std::int64_t> distinct;  // the reference model: which ids each relation asks for
  std::set<std::int64_t> gift_ids;
  std::set<std::int64_t> favourite_ids;
  for (const Order& order : stored) {
    for (const auto& line : order.items) distinct.insert(line->product.id());
    if (order.gift) gift_ids.insert((*order.gift)->wrapping.id());
    for (const auto& [key, ref] : order.favourites) favourite_ids.insert(ref.id());
  }
  odm::JoinOptions options;
  options.max_ids_per_query = static_cast<std::size_t>(1 + pick(20));
  const auto finds = [&](const std::set<std::int64_t>& ids) {
    return static_cast<int>((ids.size() + options.max_ids_per_query - 1) / options.max_ids_per_query);
  };

  std::vector<Order> loaded = orders();
  log_.clear();
  odm::resolve(db(), loaded, options, odm::with(&Order::items, odm::with(&LineItem::product, odm::with(&Product::category))),
               odm::with(&Order::gift, odm::with(&Gift::wrapping)), odm::with(&Order::favourites));
  const int category_finds = [&] {
    std::set<std::int64_t> found;
    for (std::int64_t id : distinct)
      if (id < catalogue) found.insert(id % 5);
    return finds(found);
  }();
  EXPECT_EQ(log_.started("find"), finds(distinct) + category_finds + finds(gift_ids) + finds(favourite_ids))
      << "max_ids_per_query " << options.max_ids_per_query;

  const auto check = [&](const odm::Ref<Product>& ref, std::int64_t expected_id) {
    ASSERT_EQ(ref.id(), expected_id);
    if (expected_id < catalogue) {
      ASSERT_TRUE(ref.is_loaded()) << expected_id;
      EXPECT_EQ(ref->id, expected_id);
      EXPECT_EQ(ref->name, "Product " + std::to_string(expected_id));
    } else {
      EXPECT_TRUE(ref.is_dangling()) << expected_id;
    }
  };
  ASSERT_EQ(loaded.size(), stored.size());
  for (std::size_t o = 0; o < stored.size(); ++o) {
    const Order& want = stored[o];
    const Order& got = loaded[o];
    ASSERT_EQ(got.items.size(), want.items.size());
    for (std::size_t i = 0; i < want.items.size(); ++i) {
      check(got.items[i]->product, want.items[i]->product.id());
      EXPECT_EQ(got.items[i]->quantity, want.items[i]->quantity);
      if (got.items[i]->product.is_loaded()) {
        EXPECT_EQ(got.items[i]->product->category->id, "c" + std::to_string(want.items[i]->product.id() % 5));
      }
    }
    ASSERT_EQ(got.gift.has_value(), want.gift.has_value());
    if (want.gift) check((*got.gift)->wrapping, (*want.gift)->wrapping.id());
    ASSERT_EQ(got.favourites.size(), want.favourites.size());
    for (const auto& [key, ref] : want.favourites) check(got.favourites.at(key), ref.id());
  }
}

}  // namespace
