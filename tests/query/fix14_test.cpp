// Regression tests of the defects an adversary found after issue 14's redesign: filters
// combined in a loop, members whose kind (not their C++ type) makes them arrays, unset
// decided by the member table.

#include "query/query_models.hpp"

#include <bson/bson.h>

#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace fix14_query {
namespace {

using odm::field;
using query_test::Book;
using query_test::canonical;

/// The `pages` value of each filter of `array` (the operands of an `$or` or `$and`), in
/// order, when each is `{pages: <int32>}` or `{pages: {<op>: <int32>}}`; -1 otherwise.
std::vector<std::int32_t> operand_pages(const odm::Document& filter, const char* op) {
  std::vector<std::int32_t> pages;
  bson_iter_t it;
  bson_iter_t array;
  if (!bson_iter_init_find(&it, filter.get(), op) || !BSON_ITER_HOLDS_ARRAY(&it) || !bson_iter_recurse(&it, &array))
    return pages;
  while (bson_iter_next(&array)) {
    bson_iter_t operand;
    bson_iter_t value;
    if (!BSON_ITER_HOLDS_DOCUMENT(&array) || !bson_iter_recurse(&array, &operand) ||
        !bson_iter_find_descendant(&operand, "pages", &value)) {
      pages.push_back(-1);
      continue;
    }
    if (BSON_ITER_HOLDS_DOCUMENT(&value)) {
      bson_iter_t inner;
      pages.push_back(bson_iter_recurse(&value, &inner) && bson_iter_next(&inner) && BSON_ITER_HOLDS_INT32(&inner)
                          ? bson_iter_int32(&inner)
                          : -1);
    } else {
      pages.push_back(BSON_ITER_HOLDS_INT32(&value) ? bson_iter_int32(&value) : -1);
    }
  }
  return pages;
}

constexpr std::int32_t many = 100000;

std::vector<std::int32_t> zero_to(std::int32_t n) {
  std::vector<std::int32_t> all;
  for (std::int32_t i = 0; i < n; ++i) all.push_back(i);
  return all;
}

// Combining in a loop used to copy every operand so far at each step: 8,000 `f = f || c`
// took 9.7 s. These build 100,000 (a quadratic build would not finish in the test's
// time limit) and check that every condition is there, in order, in one flat operator.
TEST(Fix14Filters, OrInALoopKeepsEveryConditionInOneOr) {
  odm::Filter<Book> any = field(&Book::pages) == 0;
  for (std::int32_t i = 1; i < many; ++i) any = any || field(&Book::pages) == i;
  const odm::Document written = any.bson();
  EXPECT_EQ(operand_pages(written, "$or"), zero_to(many));
  EXPECT_EQ(written.to_canonical_json().find("$or", 10), std::string::npos) << "one $or, not nested ones";
}

TEST(Fix14Filters, AndInALoopKeepsEveryConditionInOneAnd) {
  odm::Filter<Book> every = field(&Book::pages) > 0;
  for (std::int32_t i = 1; i < many; ++i) every = every && field(&Book::pages) > i;
  const odm::Document written = every.bson();
  EXPECT_EQ(operand_pages(written, "$and"), zero_to(many));
}

TEST(Fix14Filters, PrependingInALoopKeepsTheOrder) {
  odm::Filter<Book> any = field(&Book::pages) == many - 1;
  for (std::int32_t i = many - 2; i >= 0; --i) any = field(&Book::pages) == i || any;
  EXPECT_EQ(operand_pages(any.bson(), "$or"), zero_to(many));
}

TEST(Fix14Filters, SharedPartsOfALoopStayUnchanged) {
  // A filter kept from the middle of a loop is not changed by what the loop adds later.
  odm::Filter<Book> any = field(&Book::pages) == 0;
  std::vector<odm::Filter<Book>> kept;
  for (std::int32_t i = 1; i < 100; ++i) {
    any = any || field(&Book::pages) == i;
    kept.push_back(any);
  }
  for (std::int32_t i = 1; i < 100; ++i) EXPECT_EQ(operand_pages(kept[i - 1].bson(), "$or"), zero_to(i + 1));
  // Two loops that branch from one filter each keep their own operands.
  const odm::Filter<Book> left = kept[40] || field(&Book::pages) == -7;
  const odm::Filter<Book> right = kept[40] || field(&Book::rating) == 2.0;
  auto expected = zero_to(42);
  expected.push_back(-7);
  EXPECT_EQ(operand_pages(left.bson(), "$or"), expected);
  expected.back() = -1;  // {rating: 2.0}
  EXPECT_EQ(operand_pages(right.bson(), "$or"), expected);
}

TEST(Fix14Filters, LoopsOfAndKeepTheImplicitAndForDistinctFields) {
  odm::Filter<Book> every = field(&Book::pages) > 1;
  for (int i = 0; i < 40; ++i) every = every && odm::Filter<Book>{};
  every = every && field(&Book::rating) < 2.0 && field(&Book::title) == "t";
  EXPECT_BSON(every, R"({"pages": {"$gt": 1}, "rating": {"$lt": 2.0}, "title": "t"})");
  // An element condition built in a loop keeps every condition (and its checks).
  const auto matched = field(&Book::checkout).elem_match([](auto c) {
    odm::Filter<odm::Element<query_test::Checkout>> all = c / &query_test::Checkout::by != "x0";
    for (int i = 1; i < 40; ++i) all = all && c / &query_test::Checkout::by != "x" + std::to_string(i);
    return all;
  });
  std::string expected = R"({"checkout": {"$elemMatch": {"$and": [)";
  for (int i = 0; i < 40; ++i) expected += (i ? ", " : "") + std::string(R"({"by": {"$ne": "x)") + std::to_string(i) + R"("}})";
  EXPECT_BSON(matched, expected + "]}}}");
  EXPECT_THROW((void)field(&Book::author).elem_match([](auto a) {
    odm::Filter<odm::Element<std::string>> all = a != "x0";
    for (int i = 1; i < 40; ++i) all = all && a != "x" + std::to_string(i);
    return all;
  }),
               odm::ValueError);  // $ne twice: MongoDB's operator form holds each operator once
}

// ---- arrays are what the kind says, not std::vector -------------------------------------

/// A user type stored as an array of doubles (its codec says so, and names the element).
struct Polyline {
  std::vector<double> points;
};

}  // namespace
}  // namespace fix14_query

template <>
struct odm::codec<fix14_query::Polyline> {
  using kind = odm::kinds::array<odm::kind_of<double>>;
  using element_type = double;
  static void encode(bson_t* parent, std::string_view key, const fix14_query::Polyline& line) {
    odm::codec<std::vector<double>>::encode(parent, key, line.points);
  }
  static void decode(const bson_iter_t& it, fix14_query::Polyline& out) {
    odm::codec<std::vector<double>>::decode(it, out.points);
  }
};

namespace fix14_query {
namespace {

struct Shop;
struct Comment {
  std::int32_t comment_id = 0;
  odm::ParentRef<Shop> shop;
  std::string author;
  std::int32_t stars = 0;
  struct odm_model {
    static constexpr auto key = &Comment::comment_id;
  };
};

struct Shop {
  std::int32_t id = 0;
  std::array<std::int32_t, 3> podium{};
  std::optional<std::array<std::int32_t, 2>> pair;
  odm::Subset<Comment, 3, &Comment::stars> top;
  Polyline route;
};

TEST(Fix14Arrays, StdArrayTakesArrayConditions) {
  static_assert(odm::detail::is_array_field<std::array<std::int32_t, 3>>);
  EXPECT_BSON(field(&Shop::podium).size(3), R"({"podium": {"$size": 3}})");
  EXPECT_BSON(field(&Shop::podium) == 7, R"({"podium": 7})");
  EXPECT_BSON(field(&Shop::podium).all({1, 2}), R"({"podium": {"$all": [1, 2]}})");
  EXPECT_BSON(field(&Shop::podium).in({4}), R"({"podium": {"$in": [4]}})");
  EXPECT_BSON(field(&Shop::podium).elem_match([](auto p) { return p > 1 && p < 5; }),
              R"({"podium": {"$elemMatch": {"$gt": 1, "$lt": 5}}})");
  EXPECT_BSON(field(&Shop::pair).size(2), R"({"pair": {"$size": 2}})");
  EXPECT_BSON(field(&Shop::podium).matched().inc(1), R"({"$inc": {"podium.$": 1}})");
  EXPECT_BSON(field(&Shop::podium).all_elements().inc(1), R"({"$inc": {"podium.$[]": 1}})");
  // Adding or removing elements does not compile (tests/compile_fail/query_push_on_std_array.cpp).
  // (An std::array of structs is left out: g++ 12 stops with an internal compiler error
  // inside Boost.PFR's field count of a struct holding one.)
}

TEST(Fix14Arrays, SubsetTakesConditionsOnItsItems) {
  static_assert(odm::detail::is_array_field<odm::Subset<Comment, 3, &Comment::stars>>);
  EXPECT_BSON(field(&Shop::top).size(3), R"({"top": {"$size": 3}})");
  EXPECT_BSON(field(&Shop::top).elem_match([](auto c) { return c / &Comment::stars >= 4 && c / &Comment::author == "a"; }),
              R"({"top": {"$elemMatch": {"stars": {"$gte": 4}, "author": "a"}}})");
  EXPECT_BSON(field(&Shop::top) / &Comment::author == "b", R"({"top.author": "b"})");
  EXPECT_BSON((field(&Shop::top).matched() / &Comment::author).set("c"), R"({"$set": {"top.$.author": "c"}})");
  // Element values (push, all, ==) are the odm::subset operations' to write
  // (tests/compile_fail/query_push_into_subset.cpp).
  static_assert(!odm::detail::comparable<odm::Subset<Comment, 3, &Comment::stars>, Comment>);
  static_assert(odm::detail::subset_key_index<Comment>() == 0, "items are identified by comment_id");
}

TEST(Fix14Arrays, UserCodecOfAnArrayKindTakesArrayConditions) {
  static_assert(odm::detail::is_array_field<Polyline>);
  static_assert(std::is_same_v<odm::detail::element_t<Polyline>, double>);
  EXPECT_BSON(field(&Shop::route).size(4), R"({"route": {"$size": 4}})");
  EXPECT_BSON(field(&Shop::route) == 2.5, R"({"route": 2.5})");
  EXPECT_BSON(field(&Shop::route).all({1.0, 2.0}), R"({"route": {"$all": [1.0, 2.0]}})");
  EXPECT_BSON(field(&Shop::route).elem_match([](auto p) { return p >= 1.0; }), R"({"route": {"$elemMatch": {"$gte": 1.0}}})");
  EXPECT_BSON(field(&Shop::route).push(3.0), R"({"$push": {"route": 3.0}})");
  EXPECT_BSON(field(&Shop::route).all_elements().mul(2.0), R"({"$mul": {"route.$[]": 2.0}})");
  EXPECT_BSON(field(&Shop::route).pull([](auto p) { return p < 0.0; }), R"({"$pull": {"route": {"$lt": 0.0}}})");
}

// ---- unset() reads the member table ---------------------------------------------------

struct Setting {
  std::int32_t id = 0;
  std::int32_t retries = 3;
  std::optional<std::string> label;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::defaulted(&Setting::retries), odm::rename(&Setting::retries, "r"));
  };
};

TEST(Fix14Updates, UnsetOfADefaultedMemberIsAllowedAndDecodes) {
  // odm::defaulted: a document without the field decodes to the initializer, so $unset
  // leaves a document odm reads (the required case is tests/compile_fail/query_unset_*).
  EXPECT_BSON(odm::Update<Setting>(field(&Setting::retries).unset()), R"({"$unset": {"r": ""}})");
  EXPECT_BSON(field(&Setting::retries).unset() + field(&Setting::label).unset(), R"({"$unset": {"r": "", "label": ""}})");
  odm::Update<Setting> both = field(&Setting::label).set("x");
  both += field(&Setting::retries).unset();
  EXPECT_BSON(both, R"({"$set": {"label": "x"}, "$unset": {"r": ""}})");
  const auto read = odm::from_bson<Setting>(odm::Document::from_json(R"({"_id": 1})"));
  EXPECT_EQ(read.retries, 3);
}

// ---- FindOptions keep the type a projection reads as ----------------------------------

struct Summary {
  std::string title;
};

TEST(Fix14Options, AProjectionOntoASummaryMakesOptionsThatReadTheSummary) {
  using Projected = decltype(odm::FindOptions<Book>{}.limit(2).projection(odm::projection<Book, Summary>()));
  static_assert(std::is_same_v<Projected, odm::FindOptions<Book, Summary>>);
  // The setters keep it.
  static_assert(std::is_same_v<decltype(std::declval<Projected&>().limit(1)), odm::FindOptions<Book, Summary>&>);
  // A projection onto the model itself (or raw) still reads the model, and is set in place
  // as the other setters are: `options.projection(p);` as a statement keeps it.
  static_assert(std::is_same_v<decltype(odm::FindOptions<Book>{}.projection(odm::projection<Book, Book>())),
                               odm::FindOptions<Book>&>);
  odm::FindOptions<Book> in_place;
  in_place.projection(odm::Projection<Book>::raw(odm::Document::from_json(R"({"title": 1})")));
  EXPECT_EQ(in_place.projection().to_canonical_json(), canonical(R"({"title": 1})"));
  const auto options = odm::FindOptions<Book>{}.limit(2).projection(odm::projection<Book, Summary>());
  EXPECT_EQ(options.projection().to_canonical_json(), canonical(R"({"title": 1, "_id": 0})"));
  EXPECT_EQ(odm::detail::OptionsAccess::spec(options).limit.value_or(0), 2);
}

}  // namespace
}  // namespace fix14_query
