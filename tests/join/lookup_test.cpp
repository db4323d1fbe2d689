// Server-side joins (issue 13 item 4): the same relations, resolved by one aggregate with
// `$lookup`, give exactly what the client-side join gives. Every test runs both ways
// (JoinSide::client and JoinSide::server) on the same data and checks the result against
// what MongoDB's documented semantics and odm's join rules say it must be (so both forms
// are checked, not only compared), and then against the client form run again on the
// same data. Commands are counted with command monitoring.

#include <odm/join/lookup.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <sstream>
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

template <odm::Dangling P = odm::Dangling::keep>
struct ProductT {
  std::int64_t id = 0;
  std::string name;
  odm::Ref<Category, P> category;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};
using Product = ProductT<>;

template <odm::Dangling P>
struct ItemT {
  odm::Ref<Product, P> product;
  std::int32_t quantity = 0;
};

struct Gift {
  std::string note;
  odm::Ref<Product> wrapping;
};

template <odm::Dangling P = odm::Dangling::keep>
struct OrderT {
  std::int64_t id = 0;
  std::vector<odm::Embedded<ItemT<P>>> items;
  std::optional<odm::Embedded<Gift>> gift;
  odm::RefMany<Product, P> wishlist;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};
using Item = ItemT<odm::Dangling::keep>;
using Order = OrderT<>;

/// Line items that must find their product, whose category may be gone (drop).
using DropCategory = ProductT<odm::Dangling::drop>;
struct Line {
  odm::Ref<DropCategory, odm::Dangling::raise> product;
  std::int32_t quantity = 0;
};
struct Strict {
  std::int64_t id = 0;
  std::vector<odm::Embedded<Line>> items;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

/// A reference behind std::map values: `$lookup` has no path into it.
struct MapOrder {
  std::int64_t id = 0;
  std::map<std::string, odm::Ref<Product>> favourites;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

/// Arrays directly inside arrays: a $lookup localField does not look into them.
struct Grid {
  std::int64_t id = 0;
  std::vector<std::vector<odm::Ref<Product>>> rows;
  std::vector<odm::RefMany<Product>> lists;
  struct odm_model {
    static constexpr std::string_view collection = "grids";
  };
};

/// Children pointing at their parent (ParentRef), a root's parent being null.
struct Folder {
  std::string id;
  odm::ParentRef<Folder> parent;
  struct odm_model {
    static constexpr std::string_view collection = "folders";
  };
};

/// A reference inside Subset items.
struct Review {
  std::int32_t review_id = 0;
  odm::Ref<Category> topic;
  std::int32_t stars = 0;
};
struct Reviewed {
  std::int32_t id = 0;
  odm::Subset<Review, 3, &Review::stars> reviews;
  struct odm_model {
    static constexpr std::string_view collection = "reviewed";
  };
};

// ---- rendering: one line per document, the ids and what each reference reads ----------

std::string show(const Category& c) { return c.name; }
template <odm::Dangling P>
std::string show(const ProductT<P>& p);
std::string show(const Folder& f) { return f.id; }

template <class R>
std::string single(const R& reference) {
  if (std::holds_alternative<std::monostate>(odm::detail::Access::raw_id(reference))) return "null";
  std::string out = odm::detail::describe_id(odm::detail::Access::raw_id(reference));
  if (reference.is_loaded()) return out + "=" + show(*reference);
  return out + (reference.is_dangling() ? "?" : "!");  // ?: dangling, !: not resolved
}
template <class R>
std::string many(const R& references) {
  std::string out = "[";
  for (std::size_t i = 0; i < references.size(); ++i) {
    if (i) out += ", ";
    out += odm::detail::describe_id(odm::detail::Access::raw_ids(references)[i]);
    if (!references.is_loaded()) {
      out += "!";
      continue;
    }
    try {
      out += "=" + show(references.at(i));
    } catch (const odm::NotLoadedError&) {
      out += "?";  // at() throws for a dangling id only, once the list is resolved
    }
  }
  return out + "]";
}
template <odm::Dangling P>
std::string show(const ProductT<P>& p) {
  return p.name + "(" + single(p.category) + ")";
}

template <odm::Dangling P>
std::string show(const OrderT<P>& o) {
  std::string out = std::to_string(o.id) + ": items [";
  for (std::size_t i = 0; i < o.items.size(); ++i) out += (i ? ", " : "") + single(o.items[i]->product);
  out += "] gift " + (o.gift ? single((*o.gift)->wrapping) : std::string("none"));
  return out + " wishlist " + many(o.wishlist);
}
std::string show_folder(const Folder& f) { return f.id + " -> " + single(f.parent); }
std::string show(const Reviewed& r) {
  std::string out = std::to_string(r.id) + ":";
  for (const Review& review : r.reviews) out += " " + std::to_string(review.stars) + "/" + single(review.topic);
  return out;
}

template <class T, class Show>
std::string show_all(const odm::Resolved<T>& resolved, Show&& show_one) {
  std::string out;
  for (const T& document : resolved) out += show_one(document) + "\n";
  for (const odm::SkippedDocument& skipped : resolved.skipped()) out += "skipped " + skipped.id.to_json() + "\n";
  return out;
}
template <class T>
std::string show_all(const odm::Resolved<T>& resolved) {
  return show_all(resolved, [](const T& document) { return show(document); });
}

std::string side_name(const testing::TestParamInfo<odm::JoinSide>& info) {
  return info.param == odm::JoinSide::server ? "server_lookup" : "client_in";
}

class BothWays : public odm_test::DriverTest, public testing::WithParamInterface<odm::JoinSide> {
 protected:
  void insert_raw(const std::string& collection, const std::string& documents) {
    db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": )" + documents + "}"));
  }
  /// c0..c2; products 1..5, product p in category c(p % 3), product 5's category "gone".
  void insert_catalogue() {
    insert_raw("categories", R"([{"_id": "c0", "name": "Tools"}, {"_id": "c1", "name": "Garden"},
                                 {"_id": "c2", "name": "Kitchen"}])");
    insert_raw("products", R"([{"_id": 1, "name": "p1", "category": "c1"}, {"_id": 2, "name": "p2", "category": "c2"},
                               {"_id": 3, "name": "p3", "category": "c0"}, {"_id": 4, "name": "p4", "category": "c1"},
                               {"_id": 5, "name": "p5", "category": "gone"}])");
  }
  odm::JoinOptions options(odm::BadDocuments bad = odm::BadDocuments::raise) const {
    odm::JoinOptions chosen;
    chosen.side = GetParam();
    chosen.bad_documents = bad;
    return chosen;
  }
  /// Runs `query` with this test's side, then with the client side; checks that both give
  /// `expected`, and that the chosen side cost what it should.
  template <class Query>
  void expect_both(Query&& query, const std::string& expected, int client_finds) {
    log_.clear();
    const std::string chosen = query(options());
    if (GetParam() == odm::JoinSide::server) {
      EXPECT_EQ(log_.started("aggregate"), 1) << "the $lookup form is one aggregate";
      EXPECT_EQ(log_.started("find"), 0);
    } else {
      EXPECT_EQ(log_.started("find"), client_finds);
      EXPECT_EQ(log_.started("aggregate"), 0);
    }
    EXPECT_EQ(chosen, expected);
    odm::JoinOptions client;
    EXPECT_EQ(query(client), chosen) << "the client-side join on the same data";
  }
};

Item item(std::int64_t product) { return Item{odm::Ref<Product>(product), 1}; }

/// The server-side form of a join through arrays of documents or over several levels.
#define REQUIRE_LOOKUP_THROUGH_ARRAYS()                                          \
  if (GetParam() == odm::JoinSide::server) {                                     \
    ODM_REQUIRE(lookup_through_arrays);                                          \
  }                                                                              \
  static_assert(true)

const auto by_id = [] { return odm::Sort<Order>::raw(json(R"({"_id": 1})")); };

TEST_P(BothWays, EmbeddedPathsNestedRelationsDuplicatesEmptyArraysAndMissingSubDocuments) {
  REQUIRE_LOOKUP_THROUGH_ARRAYS();
  insert_catalogue();
  insert_raw("orders", R"([
    {"_id": 1, "items": [{"product": 2, "quantity": 1}, {"product": 1, "quantity": 2}, {"product": 2, "quantity": 3}],
     "gift": {"note": "hi", "wrapping": 4}, "wishlist": [3, 1, 3, 9, 2]},
    {"_id": 2, "items": [], "wishlist": []},
    {"_id": 3, "items": [{"product": 9, "quantity": 1}, {"product": 5, "quantity": 1}], "wishlist": [5]}])");
  const auto query = [&](const odm::JoinOptions& chosen) {
    return show_all(odm::find_joined(
        db(), {}, by_id(), chosen,
        odm::with(&Order::items, odm::with(&Item::product, odm::with(&Product::category))),
        odm::with(&Order::gift, odm::with(&Gift::wrapping)), odm::with(&Order::wishlist, odm::with(&Product::category))));
  };
  expect_both(query,
              "1: items [2=p2(\"c2\"=Kitchen), 1=p1(\"c1\"=Garden), 2=p2(\"c2\"=Kitchen)] gift 4=p4(\"c1\"!) "
              "wishlist [3=p3(\"c0\"=Tools), 1=p1(\"c1\"=Garden), 3=p3(\"c0\"=Tools), 9?, 2=p2(\"c2\"=Kitchen)]\n"
              "2: items [] gift none wishlist []\n"
              "3: items [9?, 5=p5(\"gone\"?)] gift none wishlist [5=p5(\"gone\"?)]\n",
              // the orders; the items' products and their categories; the gifts' wrappings; the
              // wishlists' products and their categories: one find each
              6);
}

TEST_P(BothWays, DanglingDropLeavesOutTheDocumentAndForgetsRefManyIds) {
  REQUIRE_LOOKUP_THROUGH_ARRAYS();
  insert_catalogue();
  insert_raw("orders", R"([
    {"_id": 1, "items": [{"product": 2, "quantity": 1}], "wishlist": [2, 9, 2, 1]},
    {"_id": 2, "items": [{"product": 1, "quantity": 1}, {"product": 9, "quantity": 1}], "wishlist": []},
    {"_id": 3, "items": [], "wishlist": [9]}])");
  using Dropping = OrderT<odm::Dangling::drop>;
  using DropItem = ItemT<odm::Dangling::drop>;
  const auto query = [&](const odm::JoinOptions& chosen) {
    return show_all(odm::find_joined(db(), {}, odm::Sort<Dropping>::raw(json(R"({"_id": 1})")), chosen,
                                     odm::with(&Dropping::items, odm::with(&DropItem::product)),
                                     odm::with(&Dropping::wishlist)));
  };
  // Order 2 holds a line item whose product is gone: under drop the order is left out.
  expect_both(query,
              "1: items [2=p2(\"c2\"!)] gift none wishlist [2=p2(\"c2\"!), 2=p2(\"c2\"!), 1=p1(\"c1\"!)]\n"
              "3: items [] gift none wishlist []\n",
              3);
}

TEST_P(BothWays, DanglingRaiseThrowsNamingThePathOnBothSides) {
  REQUIRE_LOOKUP_THROUGH_ARRAYS();
  insert_catalogue();
  insert_raw("orders",
             R"([{"_id": 1, "items": [{"product": 2, "quantity": 1}, {"product": 42, "quantity": 1}], "wishlist": []}])");
  using Raising = OrderT<odm::Dangling::raise>;
  using RaiseItem = ItemT<odm::Dangling::raise>;
  try {
    (void)odm::find_joined(db(), {}, options(), odm::with(&Raising::items, odm::with(&RaiseItem::product)));
    FAIL() << "expected DanglingReference";
  } catch (const odm::DanglingReference& error) {
    EXPECT_EQ(std::string(error.what()), "items.product: no document with _id 42 in collection products");
  }
}

TEST_P(BothWays, ANestedDropNeverRemovesTheOuterTargets) {
  REQUIRE_LOOKUP_THROUGH_ARRAYS();
  insert_catalogue();
  insert_raw("orders",
             R"([{"_id": 1, "items": [{"product": 5, "quantity": 1}, {"product": 1, "quantity": 1}], "wishlist": []}])");
  const auto query = [&](const odm::JoinOptions& chosen) {
    return show_all(odm::find_joined(db(), {}, chosen,
                                     odm::with(&Strict::items, odm::with(&Line::product, odm::with(&DropCategory::category)))),
                    [](const Strict& o) {
                      std::string out = std::to_string(o.id) + ":";
                      for (const auto& line : o.items) out += " " + single(line->product);
                      return out;
                    });
  };
  // Product 5's category is gone: product 5 stays the item's target, its Ref dangling.
  expect_both(query, "1: 5=p5(\"gone\"?) 1=p1(\"c1\"=Garden)\n", 3);
}

TEST_P(BothWays, TopLevelRefAndRefManyUnderKeepAndDrop) {
  insert_catalogue();
  insert_raw("orders", R"([{"_id": 1, "items": [], "wishlist": [5, 9, 1, 5]}, {"_id": 2, "items": [], "wishlist": [9]},
                           {"_id": 3, "items": [], "wishlist": []}])");
  const auto products = [&](const odm::JoinOptions& chosen) {
    return show_all(odm::find_joined(db(), {}, odm::Sort<Product>::raw(json(R"({"_id": 1})")), chosen,
                                     odm::with(&Product::category)));
  };
  expect_both(products,
              "p1(\"c1\"=Garden)\np2(\"c2\"=Kitchen)\np3(\"c0\"=Tools)\np4(\"c1\"=Garden)\np5(\"gone\"?)\n", 2);
  using Dropping = OrderT<odm::Dangling::drop>;
  const auto dropping = [&](const odm::JoinOptions& chosen) {
    return show_all(odm::find_joined(db(), {}, odm::Sort<Dropping>::raw(json(R"({"_id": 1})")), chosen,
                                     odm::with(&Dropping::wishlist)));
  };
  // A RefMany under drop forgets the missing ids and keeps the document; duplicates stay.
  expect_both(dropping,
              "1: items [] gift none wishlist [5=p5(\"gone\"!), 1=p1(\"c1\"!), 5=p5(\"gone\"!)]\n"
              "2: items [] gift none wishlist []\n3: items [] gift none wishlist []\n",
              2);
}

TEST_P(BothWays, ParentReferencesWithNullRootsAndDuplicates) {
  insert_raw("folders", R"([{"_id": "root", "parent": null}, {"_id": "a", "parent": "root"},
                            {"_id": "b", "parent": "root"}, {"_id": "c", "parent": "a"}, {"_id": "d", "parent": "lost"}])");
  const auto query = [&](const odm::JoinOptions& chosen) {
    return show_all(odm::find_joined(db(), {}, odm::Sort<Folder>::raw(json(R"({"_id": 1})")), chosen,
                                     odm::with(&Folder::parent)),
                    show_folder);
  };
  expect_both(query, "a -> \"root\"=root\nb -> \"root\"=root\nc -> \"a\"=a\nd -> \"lost\"?\nroot -> null\n", 2);
}

TEST_P(BothWays, ReferencesInsideSubsetItems) {
  REQUIRE_LOOKUP_THROUGH_ARRAYS();
  insert_catalogue();
  insert_raw("reviewed", R"([{"_id": 1, "reviews": [{"review_id": 1, "topic": "c2", "stars": 5},
                                                    {"review_id": 2, "topic": "nope", "stars": 4},
                                                    {"review_id": 3, "topic": "c2", "stars": 3}]},
                             {"_id": 2, "reviews": []}])");
  const auto query = [&](const odm::JoinOptions& chosen) {
    return show_all(odm::find_joined(db(), {}, odm::Sort<Reviewed>::raw(json(R"({"_id": 1})")), chosen,
                                     odm::with(&Reviewed::reviews, odm::with(&Review::topic))));
  };
  expect_both(query, "1: 5/\"c2\"=Kitchen 4/\"nope\"? 3/\"c2\"=Kitchen\n2:\n", 2);
}

TEST_P(BothWays, BadDocumentsAreSkippedAndReportedAtEveryLevelOrThrown) {
  REQUIRE_LOOKUP_THROUGH_ARRAYS();
  insert_catalogue();
  // Product 6's name is a number; order 3's items are not an array.
  insert_raw("products", R"([{"_id": 6, "name": 66, "category": "c0"}])");
  insert_raw("orders", R"([{"_id": 1, "items": [{"product": 6, "quantity": 1}, {"product": 1, "quantity": 1}],
                            "wishlist": []},
                           {"_id": 2, "items": [{"product": 6, "quantity": 2}], "wishlist": []},
                           {"_id": 3, "items": "not an array", "wishlist": []}])");
  const auto query = [&](const odm::JoinOptions& chosen) {
    odm::JoinOptions skipping = chosen;
    skipping.bad_documents = odm::BadDocuments::skip;
    const auto resolved = odm::find_joined(db(), {}, by_id(), skipping,
                                           odm::with(&Order::items, odm::with(&Item::product, odm::with(&Product::category))));
    std::string out = show_all(resolved);
    for (const odm::SkippedDocument& skipped : resolved.skipped())
      out += skipped.error.path() + ": " + skipped.error.reason().substr(0, skipped.error.reason().find(" (")) + "\n";
    return out;
  };
  // The bad product is reported once, however many items point at it, and reads as missing.
  expect_both(query,
              "1: items [6?, 1=p1(\"c1\"=Garden)] gift none wishlist []\n2: items [6?] gift none wishlist []\n"
              "skipped { \"_id\" : 3 }\nskipped { \"_id\" : 6 }\n"
              "items: expected array, got string\nname: expected string, got int\n",
              3);
  EXPECT_THROW((void)odm::find_joined(db(), odm::field(&Order::id) != std::int64_t{3}, options(),
                                      odm::with(&Order::items, odm::with(&Item::product))),
               odm::DecodeError)
      << "by default a bad target throws";
  EXPECT_THROW((void)odm::find_joined(db(), {}, options(), odm::with(&Order::items, odm::with(&Item::product))),
               odm::DecodeError)
      << "by default a bad base document throws";
}

TEST_P(BothWays, ThousandOrdersCostOneAggregateOrOneFindPerLevel) {
  REQUIRE_LOOKUP_THROUGH_ARRAYS();
  insert_catalogue();
  std::vector<Order> orders;
  for (std::int64_t o = 0; o < 1'000; ++o) {
    Order order;
    order.id = o;
    for (std::int64_t i = 0; i < 5; ++i) order.items.emplace_back(item(1 + (o + i) % 6));
    orders.push_back(std::move(order));
  }
  db().collection<Order>().insert_many(orders);
  log_.clear();
  const auto resolved = odm::find_joined(db(), {}, by_id(), options(),
                                         odm::with(&Order::items, odm::with(&Item::product, odm::with(&Product::category))));
  const int getmores = log_.started("getMore");
  if (GetParam() == odm::JoinSide::server)
    EXPECT_EQ(log_.started("aggregate") + log_.started("find"), 1) << "one aggregate (" << getmores << " getMore)";
  else
    EXPECT_EQ(log_.started("find") + log_.started("aggregate"), 3) << "orders, products, categories";
  ASSERT_EQ(resolved.size(), 1'000u);
  for (std::int64_t o = 0; o < 1'000; ++o) {
    const Order& order = resolved[static_cast<std::size_t>(o)];
    for (std::int64_t i = 0; i < 5; ++i) {
      const std::int64_t expected = 1 + (o + i) % 6;
      const auto& product = order.items[static_cast<std::size_t>(i)]->product;
      if (expected == 6) {
        ASSERT_TRUE(product.is_dangling()) << o << "/" << i;
      } else {
        ASSERT_EQ(product->id, expected) << o << "/" << i;
      }
    }
  }
  // A product many items point at is decoded once and shared.
  EXPECT_EQ(resolved[0].items[0]->product.shared(), resolved[6].items[0]->product.shared());
}

INSTANTIATE_TEST_SUITE_P(Join, BothWays, testing::Values(odm::JoinSide::client, odm::JoinSide::server), side_name);

class ServerJoin : public odm_test::DriverTest {};

TEST_F(ServerJoin, ARelationThroughMapValuesIsRefusedBeforeAnythingIsSent) {
  odm::JoinOptions options;
  options.side = odm::JoinSide::server;
  log_.clear();
  try {
    (void)odm::find_joined(db(), {}, options, odm::with(&MapOrder::favourites));
    FAIL() << "expected UsageError";
  } catch (const odm::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("favourites goes through std::map values"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(log_.started("aggregate") + log_.started("find"), 0);
}

TEST_F(ServerJoin, ArraysDirectlyInsideArraysAreRefusedBeforeAnythingIsSent) {
  odm::JoinOptions options;
  options.side = odm::JoinSide::server;
  log_.clear();
  for (const auto& relation : {odm::with(&Grid::rows), odm::with(&Grid::lists)}) {
    try {
      (void)odm::find_joined(db(), {}, options, relation);
      ADD_FAILURE() << "expected UsageError";
    } catch (const odm::UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("holds arrays directly inside arrays"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_EQ(log_.started("aggregate") + log_.started("find"), 0);
  options.side = odm::JoinSide::client;  // the client form resolves them
  db().collection<Grid>().insert_one(Grid{1, {{odm::Ref<Product>(std::int64_t{1})}}, {}});
  db().collection<Product>().insert_one(Product{1, "p1", odm::Ref<Category>(std::string("c0"))});
  const auto grids = odm::find_joined(db(), {}, options, odm::with(&Grid::rows));
  EXPECT_EQ(grids[0].rows[0][0]->name, "p1");
}

TEST_F(ServerJoin, ResolveOnDocumentsAlreadyReadRefusesTheServerSide) {
  std::vector<Folder> folders;
  odm::JoinOptions options;
  options.side = odm::JoinSide::server;
  EXPECT_THROW((void)odm::resolve(db(), folders, odm::with(&Folder::parent), options), odm::UsageError);
}

TEST(LookupPipeline, OneFlatLookupPerFetchStepInTheOrderTheJoinRunsThem) {
  const auto relation = odm::with(&Order::items, odm::with(&Item::product, odm::with(&Product::category)));
  const auto wishlist = odm::with(&Order::wishlist);
  odm::detail::LookupResults results;
  odm::detail::LookupQuery query;
  query.filter = json(R"({"x": 1})");
  const odm::Document pipeline = odm::detail::lookup_pipeline(query, {&relation.step(), &wishlist.step()}, results);
  EXPECT_EQ(pipeline.to_json(),
            json(R"({"pipeline": [{"$match": {"x": 1}},
                {"$addFields": {"__odm_doc": "$$ROOT"}},
                {"$lookup": {"from": "products", "localField": "items.product", "foreignField": "_id", "as": "__odm_0"}},
                {"$lookup": {"from": "categories", "localField": "__odm_0.category", "foreignField": "_id", "as": "__odm_1"}},
                {"$lookup": {"from": "products", "localField": "wishlist", "foreignField": "_id", "as": "__odm_2"}},
                {"$project": {"_id": 0, "__odm_doc": 1, "__odm_0": 1, "__odm_1": 1, "__odm_2": 1}}]})")
                .to_json());
  EXPECT_EQ(results.sources.size(), 3u);
  EXPECT_EQ(results.pools.size(), 3u);
}

// The roots are selected (sorted, skipped, limited, projected) before the copy and the
// first $lookup, so only the selected roots are joined; a negative limit is find's one
// batch of at most that many.
TEST(LookupPipeline, SkipLimitAndProjectionSelectTheRootsBeforeTheLookups) {
  const auto wishlist = odm::with(&Order::wishlist);
  odm::detail::LookupResults results;
  const odm::Document pipeline = odm::detail::lookup_pipeline(
      {json(R"({"x": 1})"), json(R"({"_id": -1})"), json(R"({"wishlist": 1})"), 5, -3}, {&wishlist.step()}, results);
  EXPECT_EQ(pipeline.to_json(),
            json(R"({"pipeline": [{"$match": {"x": 1}}, {"$sort": {"_id": -1}}, {"$skip": {"$numberLong": "5"}},
                {"$limit": {"$numberLong": "3"}}, {"$project": {"wishlist": 1}},
                {"$addFields": {"__odm_doc": "$$ROOT"}},
                {"$lookup": {"from": "products", "localField": "wishlist", "foreignField": "_id", "as": "__odm_0"}},
                {"$project": {"_id": 0, "__odm_doc": 1, "__odm_0": 1}}]})")
                .to_json());
}

TEST(LookupResults, FieldsOutOfShapeFromTheServerAreIgnored) {
  odm::detail::LookupResults results;
  results.pools.resize(2);
  results.sources = {"a", "b"};
  const odm::Document row = json(R"({"__odm_doc": {"_id": 1, "__odm_0": "stored", "name": "kept"}, "__odm_0": "not an array",
                                      "__odm_1": [1, {"_id": 2}, null, {"_id": 3}], "__odm_7": [{"_id": 4}],
                                      "__odm_": [{}], "__odm_1x": [{}], "__odm_99999999999999999999999": [{}]})");
  odm::detail::collect_lookups(row.get(), results);
  EXPECT_EQ(results.pools[0].size(), 0u) << "not an array";
  EXPECT_EQ(results.pools[1].size(), 2u) << "only the documents of the array";
  bson_t document;
  ASSERT_TRUE(odm::detail::joined_document(row.get(), results, document));
  EXPECT_EQ(odm::Document::copy_of(&document).to_json(), json(R"({"_id": 1, "__odm_0": "stored", "name": "kept"})").to_json())
      << "the root as stored, its own `__odm_0` included";
  EXPECT_FALSE(odm::detail::joined_document(json(R"({"__odm_doc": 1})").get(), results, document));
}

}  // namespace
