// Keyset pagination against a server: every page of a sorted query, walked to the end,
// checked against the same query answered in memory (ties broken by _id, keys of several
// BSON types in MongoDB's order of types), with writes between the pages, and the
// refusals (a token of another query, a sort key that holds an array, a raw sort).

#include "driver/support.hpp"
#include "pagination/token_text.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace pagination_itest {

struct Dimensions {
  std::int32_t width = 0;
  std::int32_t height = 0;
};

struct Product {
  std::int32_t id = 0;
  std::string category;
  std::int64_t price_cents = 0;
  odm::Money price;
  Dimensions size;
  bool in_stock = true;
  std::vector<std::string> tags;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

// A key of several BSON types (null and missing, numbers, strings, booleans): what data
// written by other programs, or a model's changes over time, leave in one field.
struct Mixed {
  std::int32_t id = 0;
  std::optional<std::variant<std::int64_t, double, std::string, bool>> key;
  struct odm_model {
    static constexpr std::string_view collection = "mixed";
  };
};

struct Reading {
  std::int32_t id = 0;
  double value = 0;
  struct odm_model {
    static constexpr std::string_view collection = "readings";
  };
};

}  // namespace pagination_itest

namespace {

using namespace pagination_itest;
using odm::field;
using odm_test::DriverTest;

class PaginationIT : public DriverTest {};

/// 80 products over 4 categories and 12 prices, so that most keys tie.
std::vector<Product> catalogue(std::uint32_t seed) {
  std::mt19937 random(seed);
  const char* categories[] = {"books", "games", "music", "tools"};
  std::vector<Product> products;
  for (std::int32_t id = 1; id <= 80; ++id) {
    const auto cents = static_cast<std::int64_t>(100 * (1 + random() % 12));
    Product p;
    p.id = id;
    p.category = categories[random() % 4];
    p.price_cents = cents;
    p.price = odm::Money(odm::Decimal(cents, -2), "USD");
    p.size = {static_cast<std::int32_t>(random() % 5), static_cast<std::int32_t>(random() % 5)};
    p.in_stock = random() % 4 != 0;
    products.push_back(p);
  }
  return products;
}

/// Every page of the query, walked to its end; each page must be full but the last, and
/// the token of each must survive its text.
template <class T>
std::vector<T> walk(const odm::Collection<T>& collection, const odm::Filter<T>& filter, const odm::Sort<T>& sort,
                    std::int64_t size) {
  std::vector<T> all;
  std::optional<odm::PageToken> after;
  for (int pages = 0;; ++pages) {
    if (pages > 1000) {
      ADD_FAILURE() << "more than 1000 pages: the walk does not end";
      return all;
    }
    odm::Page<T> page = odm::find_page(collection, filter, sort, size, after);
    EXPECT_FALSE(page.items.empty() && after.has_value()) << "an empty page after a token: page " << pages;
    all.insert(all.end(), page.items.begin(), page.items.end());
    if (!page.next) break;
    EXPECT_EQ(static_cast<std::int64_t>(page.items.size()), size) << "a page before the last is not full";
    after = odm::PageToken::parse(page.next->str());
    EXPECT_EQ(*after, *page.next);
  }
  return all;
}

std::vector<std::int32_t> ids(const std::vector<Product>& products) {
  std::vector<std::int32_t> out;
  for (const Product& p : products) out.push_back(p.id);
  return out;
}

TEST_F(PaginationIT, PagesHoldEveryMatchingDocumentOnceInTheSortsOrder) {
  const std::uint32_t seed = 20261204;
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto products = db().collection<Product>();
  const std::vector<Product> stored = catalogue(seed);
  products.insert_many(stored);

  const auto in_stock = field(&Product::in_stock) == true;
  std::vector<Product> matching;
  for (const Product& p : stored)
    if (p.in_stock) matching.push_back(p);

  struct Order {
    const char* name;
    odm::Sort<Product> sort;
    bool (*before)(const Product&, const Product&);
  };
  const Order orders[] = {
      {"price ascending", odm::sort(odm::asc(&Product::price_cents)),
       [](const Product& a, const Product& b) {
         return a.price_cents != b.price_cents ? a.price_cents < b.price_cents : a.id < b.id;
       }},
      {"price descending", odm::sort(odm::desc(&Product::price_cents)),
       [](const Product& a, const Product& b) {
         return a.price_cents != b.price_cents ? a.price_cents > b.price_cents : a.id < b.id;
       }},
      {"category, then price descending",
       odm::sort(odm::asc(&Product::category), odm::desc(&Product::price_cents)),
       [](const Product& a, const Product& b) {
         if (a.category != b.category) return a.category < b.category;
         return a.price_cents != b.price_cents ? a.price_cents > b.price_cents : a.id < b.id;
       }},
      {"Money amount descending, _id descending",
       odm::sort(odm::desc(odm::amount(field(&Product::price))), odm::desc(&Product::id)),
       [](const Product& a, const Product& b) {
         return a.price.amount() != b.price.amount() ? a.price.amount() > b.price.amount() : a.id > b.id;
       }},
      {"an embedded member, then another",
       odm::sort(odm::asc(field(&Product::size) / &Dimensions::width),
                 odm::desc(field(&Product::size) / &Dimensions::height)),
       [](const Product& a, const Product& b) {
         if (a.size.width != b.size.width) return a.size.width < b.size.width;
         return a.size.height != b.size.height ? a.size.height > b.size.height : a.id < b.id;
       }},
  };
  for (const Order& order : orders) {
    std::vector<Product> expected = matching;
    std::sort(expected.begin(), expected.end(), order.before);
    for (std::int64_t size : {1, 3, 7, 59, 200}) {
      SCOPED_TRACE(std::string(order.name) + ", pages of " + std::to_string(size));
      EXPECT_EQ(ids(walk(products, odm::Filter<Product>(in_stock), order.sort, size)), ids(expected));
    }
  }
}

TEST_F(PaginationIT, TheReadmesPagesOfProductsInStock) {
  auto products = db().collection<Product>();
  const std::vector<Product> stored = catalogue(20261204);
  products.insert_many(stored);
  const auto by_price = odm::sort(odm::asc(&Product::price_cents));
  odm::Page<Product> first = odm::find_page(products, field(&Product::in_stock) == true, by_price, 20);
  // first.items: the 20 cheapest in stock; first.next: where the next page starts (none: no more)
  const std::string text = first.next->str();  // handed to the client, and passed back unchanged
  odm::Page<Product> second =
      odm::find_page(products, field(&Product::in_stock) == true, by_price, 20, odm::PageToken::parse(text));

  std::vector<Product> expected;
  for (const Product& p : stored)
    if (p.in_stock) expected.push_back(p);
  std::sort(expected.begin(), expected.end(), [](const Product& a, const Product& b) {
    return a.price_cents != b.price_cents ? a.price_cents < b.price_cents : a.id < b.id;
  });
  ASSERT_GE(expected.size(), 40u) << "the seed gives too few products in stock";
  std::vector<Product> both = first.items;
  both.insert(both.end(), second.items.begin(), second.items.end());
  expected.resize(40);
  EXPECT_EQ(ids(both), ids(expected));
}

TEST_F(PaginationIT, ALastPageThatIsFullHasNoNextToken) {
  auto products = db().collection<Product>();
  std::vector<Product> stored = catalogue(7);
  stored.resize(6);
  products.insert_many(stored);
  const auto by_price = odm::sort(odm::asc(&Product::price_cents));
  const odm::Page<Product> first = odm::find_page(products, {}, by_price, 3);
  ASSERT_TRUE(first.next.has_value());
  const odm::Page<Product> second = odm::find_page(products, {}, by_price, 3, first.next);
  EXPECT_EQ(second.items.size(), 3u);
  EXPECT_FALSE(second.next.has_value()) << "no document follows the second page";
  const odm::Page<Product> none = odm::find_page(products, field(&Product::category) == "nothing", by_price, 3);
  EXPECT_TRUE(none.items.empty());
  EXPECT_FALSE(none.next.has_value());
}

// Documents inserted, changed and deleted between pages: each document that was there
// throughout and kept its key is read exactly once, and what is read is in the sort's
// order; nothing before the reader's position comes back.
TEST_F(PaginationIT, WritesBetweenPagesMoveNoOtherDocumentInOrOut) {
  for (std::uint32_t seed : {1u, 2u, 3u, 20261204u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    db().drop();
    auto products = db().collection<Product>();
    std::mt19937 random(seed);
    std::vector<Product> stored = catalogue(seed);
    products.insert_many(stored);
    std::map<std::int32_t, Product> now;
    for (const Product& p : stored) now[p.id] = p;
    std::set<std::int32_t> throughout;
    for (const Product& p : stored) throughout.insert(p.id);
    std::int32_t next_id = 1000;

    const auto by_price = odm::sort(odm::desc(&Product::price_cents));
    std::vector<Product> read;
    std::optional<odm::PageToken> after;
    do {
      odm::Page<Product> page = odm::find_page(products, {}, by_price, 1 + random() % 9, after);
      read.insert(read.end(), page.items.begin(), page.items.end());
      after = page.next;
      for (int w = 0; w < 4; ++w) {
        switch (random() % 3) {
          case 0: {  // an insert, anywhere in the order
            Product p = stored[random() % stored.size()];
            p.id = next_id++;
            products.insert_one(p);
            now[p.id] = p;
            break;
          }
          case 1: {  // a delete of any document
            auto it = std::next(now.begin(), static_cast<long>(random() % now.size()));
            products.delete_one(field(&Product::id) == it->first);
            throughout.erase(it->first);
            now.erase(it);
            break;
          }
          default: {  // a change of a member that is no key
            auto it = std::next(now.begin(), static_cast<long>(random() % now.size()));
            products.update_one(field(&Product::id) == it->first, field(&Product::category).set("changed"));
            break;
          }
        }
      }
    } while (after);

    std::map<std::int32_t, int> times;
    for (const Product& p : read) ++times[p.id];
    for (std::int32_t id : throughout) EXPECT_EQ(times[id], 1) << "product " << id << " was there throughout";
    for (const auto& [id, count] : times) EXPECT_EQ(count, 1) << "product " << id << " was read twice";
    for (std::size_t i = 1; i < read.size(); ++i) {
      const Product& a = read[i - 1];
      const Product& b = read[i];
      EXPECT_TRUE(a.price_cents > b.price_cents || (a.price_cents == b.price_cents && a.id < b.id))
          << "product " << b.id << " follows " << a.id << " out of the sort's order";
    }
  }
}

/// MongoDB's order of the key's values: null and missing, then numbers by value, strings
/// bytewise, booleans (false first).
int place(const Mixed& m) {
  if (!m.key) return 0;
  return std::visit(
      [](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>)
          return 2;
        else if constexpr (std::is_same_v<V, bool>)
          return 3;
        else
          return 1;
      },
      *m.key);
}
bool mixed_before(const Mixed& a, const Mixed& b) {
  if (place(a) != place(b)) return place(a) < place(b);
  if (place(a) == 1) {
    const auto number = [](const Mixed& m) {
      return std::visit(
          [](const auto& v) -> double {
            if constexpr (std::is_arithmetic_v<std::decay_t<decltype(v)>>)
              return static_cast<double>(v);
            else
              return 0;
          },
          *m.key);
    };
    if (number(a) != number(b)) return number(a) < number(b);
  }
  if (place(a) == 2 && std::get<std::string>(*a.key) != std::get<std::string>(*b.key))
    return std::get<std::string>(*a.key) < std::get<std::string>(*b.key);
  if (place(a) == 3 && std::get<bool>(*a.key) != std::get<bool>(*b.key)) return !std::get<bool>(*a.key);
  return a.id < b.id;
}

std::vector<std::int32_t> ids(const std::vector<Mixed>& values) {
  std::vector<std::int32_t> out;
  for (const Mixed& m : values) out.push_back(m.id);
  return out;
}

TEST_F(PaginationIT, KeysOfSeveralTypesArePagedInMongoDBsOrderOfTypes) {
  auto mixed = db().collection<Mixed>();
  std::vector<Mixed> stored;
  const std::vector<std::optional<std::variant<std::int64_t, double, std::string, bool>>> keys = {
      std::nullopt, std::int64_t{7}, 7.0, 2.5, std::int64_t{-3}, std::string("b"), std::string(""),
      std::string("a"), true, false, std::string("b"), std::int64_t{7}, std::nullopt, -0.5, false};
  for (std::size_t i = 0; i < keys.size(); ++i) stored.push_back(Mixed{static_cast<std::int32_t>(i + 1), keys[i]});
  mixed.insert_many(stored);
  // Two documents without the field, which sorts as null.
  auto raw = db().collection<odm::Document>("mixed");
  raw.insert_one(odm::Document::from_json(R"({"_id": 100})"));
  raw.insert_one(odm::Document::from_json(R"({"_id": 0})"));
  stored.push_back(Mixed{100, std::nullopt});
  stored.push_back(Mixed{0, std::nullopt});

  std::vector<Mixed> ascending = stored;
  std::sort(ascending.begin(), ascending.end(), mixed_before);
  std::vector<Mixed> descending;
  // Reversed by value; ties still by ascending _id.
  descending = stored;
  std::stable_sort(descending.begin(), descending.end(), [](const Mixed& a, const Mixed& b) {
    Mixed x = a, y = b;
    x.id = y.id = 0;
    if (mixed_before(x, y) || mixed_before(y, x)) return mixed_before(y, x);
    return a.id < b.id;
  });
  for (std::int64_t size : {1, 2, 5}) {
    SCOPED_TRACE("pages of " + std::to_string(size));
    EXPECT_EQ(ids(walk(mixed, {}, odm::sort(odm::asc(&Mixed::key)), size)), ids(ascending));
    EXPECT_EQ(ids(walk(mixed, {}, odm::sort(odm::desc(&Mixed::key)), size)), ids(descending));
  }
}

TEST_F(PaginationIT, NotANumberSortsBelowEveryNumber) {
  if (auto gap = missing_capability(odm_test::Capability::nan_order)) GTEST_SKIP() << *gap;
  auto readings = db().collection<Reading>();
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  readings.insert_many(std::vector<Reading>{{1, 3.0}, {2, nan}, {3, -inf}, {4, nan}, {5, 0.0}, {6, inf}, {7, -1.0}});
  std::vector<std::int32_t> ascending, descending;
  for (const Reading& r : walk(readings, {}, odm::sort(odm::asc(&Reading::value)), 1)) ascending.push_back(r.id);
  for (const Reading& r : walk(readings, {}, odm::sort(odm::desc(&Reading::value)), 2)) descending.push_back(r.id);
  EXPECT_EQ(ascending, (std::vector<std::int32_t>{2, 4, 3, 7, 5, 1, 6}));
  EXPECT_EQ(descending, (std::vector<std::int32_t>{6, 1, 5, 7, 3, 2, 4}));
}

TEST_F(PaginationIT, ATokenIsRefusedWithAnotherSortOrFilter) {
  auto products = db().collection<Product>();
  products.insert_many(catalogue(11));
  const auto by_price = odm::sort(odm::asc(&Product::price_cents));
  const odm::Filter<Product> books(field(&Product::category) == "books");
  const odm::Page<Product> first = odm::find_page(products, books, by_price, 2);
  ASSERT_TRUE(first.next.has_value());
  try {
    odm::find_page(products, books, odm::sort(odm::desc(&Product::price_cents)), 2, first.next);
    ADD_FAILURE() << "a token of another sort was taken";
  } catch (const odm::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("{price_cents: 1, _id: 1}"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("{price_cents: -1, _id: 1}"), std::string::npos) << error.what();
  }
  try {
    odm::find_page(products, odm::Filter<Product>(field(&Product::category) == "games"), by_price, 2, first.next);
    ADD_FAILURE() << "a token of another filter was taken";
  } catch (const odm::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("another filter"), std::string::npos) << error.what();
  }
  EXPECT_THROW(odm::find_page(products, books, by_price, 0), odm::ValueError);
  EXPECT_THROW(odm::find_page(products, books, odm::Sort<Product>::raw(odm::Document::from_json(R"({"price_cents": 1})")),
                              2),
               odm::ValueError);
}

TEST_F(PaginationIT, ATokenOfAnotherCollectionIsRefused) {
  auto products = db().collection<Product>();
  auto archived = db().collection<Product>("archived_products");
  products.insert_many(catalogue(11));
  archived.insert_many(catalogue(12));
  const auto by_price = odm::sort(odm::asc(&Product::price_cents));
  const odm::Page<Product> first = odm::find_page(products, {}, by_price, 2);
  ASSERT_TRUE(first.next.has_value());
  EXPECT_THROW(odm::find_page(archived, {}, by_price, 2, first.next), odm::ValueError);
}

// A client may take a token apart and change its key values: they are compared as values,
// so a document of operators in their place reads as a document (after every number in
// MongoDB's order: nothing follows it here), never as `{$ne: null}`.
TEST_F(PaginationIT, AForgedTokensValuesAreComparedAsValuesNeverReadAsOperators) {
  auto products = db().collection<Product>();
  products.insert_many(catalogue(13));
  const auto by_price = odm::sort(odm::asc(&Product::price_cents));
  const odm::Page<Product> first = odm::find_page(products, {}, by_price, 2);
  ASSERT_TRUE(first.next.has_value());
  const odm::Document contents = pagination_test::contents_of(*first.next);
  for (const char* forged_key : {R"({"$ne": null})", R"({"$gt": 0})", R"({"$exists": true})"}) {
    SCOPED_TRACE(forged_key);
    // {v, q, s, k: [forged, last _id]}
    std::string json = contents.to_canonical_json();
    const auto k = json.find("\"k\"");
    ASSERT_NE(k, std::string::npos) << json;
    json = json.substr(0, k) + "\"k\" : [ " + forged_key + ", { \"$numberInt\" : \"1\" } ] }";
    const odm::PageToken forged = odm::PageToken::parse(pagination_test::text_of(odm::Document::from_json(json)));
    const odm::Page<Product> page = odm::find_page(products, {}, by_price, 100, forged);
    EXPECT_TRUE(page.items.empty()) << page.items.size() << " products follow a sub-document";
  }
}

// A sort key as long as a document may hold makes a token as long: it still reads back.
TEST_F(PaginationIT, ATokenOfALongSortKeyReadsBack) {
  auto products = db().collection<Product>();
  std::vector<Product> stored = catalogue(17);
  stored.resize(3);
  for (std::size_t i = 0; i < stored.size(); ++i) stored[i].category = std::string(60000, 'a') + std::to_string(i);
  products.insert_many(stored);
  const auto by_category = odm::sort(odm::desc(&Product::category));
  const std::vector<Product> all = walk(products, {}, by_category, 1);
  EXPECT_EQ(ids(all), (std::vector<std::int32_t>{stored[2].id, stored[1].id, stored[0].id}));
}

TEST_F(PaginationIT, ASortKeyHoldingAnArrayIsRefused) {
  auto products = db().collection<Product>();
  std::vector<Product> stored = catalogue(3);
  stored.resize(4);
  stored[2].tags = {"b", "a"};
  products.insert_many(stored);
  try {
    odm::find_page(products, {}, odm::sort(odm::asc(&Product::tags)), 10);
    ADD_FAILURE() << "a page over a key holding arrays was read";
  } catch (const odm::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("\"tags\" holds an array"), std::string::npos) << error.what();
  }
}

TEST_F(PaginationIT, APageInASessionReadsWhatTheSessionsTransactionWrote) {
  if (auto gap = missing_capability(odm_test::Capability::transactions)) GTEST_SKIP() << *gap;
  auto products = db().collection<Product>();
  products.insert_many(catalogue(5));
  odm::Session session = client().start_session();
  session.start_transaction();
  products.delete_many(session, field(&Product::price_cents) < 600);
  const auto by_price = odm::sort(odm::asc(&Product::price_cents));
  const odm::Page<Product> inside = odm::find_page(products, session, {}, by_price, 200);
  for (const Product& p : inside.items) EXPECT_GE(p.price_cents, 600) << p.id;
  session.abort_transaction();
  EXPECT_EQ(odm::find_page(products, {}, by_price, 200).items.size(), 80u);
}

}  // namespace
