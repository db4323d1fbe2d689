// Joins through a type of the user's with its own codec: the join looks through a member
// as its codec says it is stored (its `kind`, odm/bson/kind.hpp), not by recognizing the
// standard containers. A list stored as an array is looked through (its references, or
// the references of the documents it holds, resolved in one query per level, on both
// sides); a list its codec stores as one string is a leaf a join cannot reach
// (tests/compile_fail/with_list_stored_as_scalar.cpp).

#include <odm/join/lookup.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace user_codec {

/// A list of the user's, stored as a BSON array of its elements.
template <class T>
struct Bag {
  std::vector<T> items;
  auto begin() { return items.begin(); }
  auto end() { return items.end(); }
  auto begin() const { return items.begin(); }
  auto end() const { return items.end(); }
};

/// A list of references the user's codec stores as one string, "1,2,3".
struct Product;
struct CsvProducts {
  std::vector<odm::Ref<Product>> refs;
  auto begin() { return refs.begin(); }
  auto end() { return refs.end(); }
};

}  // namespace user_codec

template <class T>
struct odm::codec<user_codec::Bag<T>> {
  using kind = odm::kinds::array<odm::kind_of<T>>;
  static void encode(bson_t* parent, std::string_view key, const user_codec::Bag<T>& bag) {
    odm::codec<std::vector<T>>::encode(parent, key, bag.items);
  }
  static void decode(const bson_iter_t& it, user_codec::Bag<T>& out) { odm::codec<std::vector<T>>::decode(it, out.items); }
};

template <>
struct odm::codec<user_codec::CsvProducts> {
  using kind = odm::kinds::scalar<BSON_TYPE_UTF8>;
  static void encode(bson_t* parent, std::string_view key, const user_codec::CsvProducts& list) {
    std::string text;
    for (const auto& ref : list.refs)
      text += (text.empty() ? "" : ",") + std::to_string(std::get<std::int64_t>(odm::detail::Access::raw_id(ref)));
    odm::codec<std::string>::encode(parent, key, text);
  }
  static void decode(const bson_iter_t& it, user_codec::CsvProducts& out) {
    std::string text;
    odm::codec<std::string>::decode(it, text);
    out.refs.clear();
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t comma = std::min(text.find(',', at), text.size());
      out.refs.emplace_back(std::int64_t{std::stoll(text.substr(at, comma - at))});
      at = comma + 1;
    }
  }
};

namespace user_codec {

struct Product {
  std::int64_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

struct LineItem {
  odm::Ref<Product> product;
  std::int32_t quantity = 0;
};

struct Order {
  std::int32_t id = 0;
  Bag<odm::Embedded<LineItem>> items;  // an array of documents
  Bag<odm::Ref<Product>> favourites;   // an array of ids
  CsvProducts recent;                  // one string
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

}  // namespace user_codec

namespace {

using namespace user_codec;
using odm_test::json;

// What the join reads from the kinds: Bag is an array (of documents, or of references),
// CsvProducts a leaf holding no reference, though it could be iterated.
static_assert(odm::detail::path_step<Bag<odm::Embedded<LineItem>>>::container);
static_assert(odm::detail::is_document_leaf<odm::detail::path_leaf_t<Bag<odm::Embedded<LineItem>>>>);
static_assert(odm::detail::is_reference_leaf<odm::detail::path_leaf_t<Bag<odm::Ref<Product>>>>);
static_assert(!odm::detail::path_step<CsvProducts>::container);
static_assert(!odm::detail::is_reference_leaf<CsvProducts> && !odm::detail::is_document_leaf<CsvProducts>);

class UserCodecJoin : public odm_test::DriverTest, public ::testing::WithParamInterface<odm::JoinSide> {};

TEST_P(UserCodecJoin, AUserListStoredAsAnArrayIsLookedThroughOnBothSides) {
  const bool server = GetParam() == odm::JoinSide::server;
  if (server) {
    ODM_REQUIRE(lookup_through_arrays);  // items.product: through an array of documents
  }
  for (std::int64_t p = 1; p <= 3; ++p)
    db().collection<Product>().insert_one(Product{p, "p" + std::to_string(p)});
  db().run_command(json(R"({"insert": "orders", "documents": [
      {"_id": 1, "items": [{"product": 2, "quantity": 1}, {"product": 9, "quantity": 2}, {"product": 2, "quantity": 3}],
       "favourites": [3, 1, 3], "recent": "1,2"},
      {"_id": 2, "items": [], "favourites": [], "recent": ""}]})"));

  const auto items = odm::with(&Order::items, odm::with(&LineItem::product));
  const auto favourites = odm::with(&Order::favourites);
  EXPECT_EQ(items.step().through, std::vector<odm::Through>{odm::Through::array});
  EXPECT_EQ(favourites.step().through, std::vector<odm::Through>{odm::Through::array});

  odm::JoinOptions options;
  options.side = GetParam();
  log_.clear();
  const auto orders =
      odm::find_joined(db(), {}, odm::Sort<Order>::raw(json(R"({"_id": 1})")), options, items, favourites);
  EXPECT_EQ(log_.started("find") + log_.started("aggregate"), server ? 1 : 3) << "one query per relation and level";
  ASSERT_EQ(orders.size(), 2u);
  const Order& first = orders[0];
  ASSERT_EQ(first.items.items.size(), 3u);
  EXPECT_EQ(first.items.items[0]->product->name, "p2");
  EXPECT_TRUE(first.items.items[1]->product.is_dangling()) << "9 names no product";
  EXPECT_EQ(first.items.items[2]->product->name, "p2");
  EXPECT_EQ(&*first.items.items[0]->product, &*first.items.items[2]->product) << "one target, shared";
  ASSERT_EQ(first.favourites.items.size(), 3u);
  EXPECT_EQ(first.favourites.items[0]->name, "p3");
  EXPECT_EQ(first.favourites.items[1]->name, "p1");
  EXPECT_EQ(first.favourites.items[2]->name, "p3");
  EXPECT_FALSE(first.recent.refs.at(0).is_loaded()) << "a list stored as one string is not joined";
  EXPECT_TRUE(orders[1].items.items.empty());
}

INSTANTIATE_TEST_SUITE_P(Sides, UserCodecJoin, ::testing::Values(odm::JoinSide::client, odm::JoinSide::server),
                         [](const auto& info) { return info.param == odm::JoinSide::server ? "server" : "client"; });

}  // namespace
