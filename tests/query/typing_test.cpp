// The typing rules of the query builders (which values a field takes), checked at
// compile time, and the numeric fields $inc accepts.
#include "query/query_models.hpp"

#include <odm/fields/decimal.hpp>

namespace query_test {

struct Account {
  std::int32_t id;
  odm::Decimal balance;
  std::optional<std::int32_t> visits;
  struct Profile {
    std::string nick;
    std::int32_t id;
    struct odm_model {
      static constexpr auto fields = odm::fields(odm::rename(&Profile::nick, "nickname"));
    };
  };
  std::vector<Profile> profiles;
};

}  // namespace query_test

namespace {

using namespace query_test;
using odm::field;
using odm::detail::accepts;
using odm::detail::comparable;

// Numbers: the member's type, or a number that converts without narrowing.
static_assert(accepts<std::int32_t, int>);
static_assert(accepts<std::int64_t, int>);
static_assert(accepts<double, int>);
static_assert(accepts<double, float>);
static_assert(!accepts<std::int32_t, double>);
static_assert(!accepts<std::int32_t, std::int64_t>);
static_assert(!accepts<std::int32_t, bool>);
static_assert(!accepts<bool, int>);
static_assert(!accepts<std::int32_t, char>);
static_assert(!accepts<std::int32_t, std::string>);
// Strings: anything that is a string_view, never a number or a null pointer.
static_assert(accepts<std::string, const char*>);
static_assert(accepts<std::string, char[4]>);
static_assert(accepts<std::string, std::string_view>);
static_assert(!accepts<std::string, int>);
static_assert(!accepts<std::string, std::nullptr_t>);
// Optional fields: their value or nullopt; Embedded fields: the struct.
static_assert(accepts<std::optional<std::int32_t>, int>);
static_assert(accepts<std::optional<std::int32_t>, std::nullopt_t>);
static_assert(!accepts<std::optional<std::int32_t>, double>);
static_assert(accepts<odm::Embedded<Address>, Address>);
// Dates: a coarser time point widens, a finer one would be truncated.
static_assert(accepts<Timestamp, std::chrono::sys_days>);
static_assert(!accepts<std::chrono::sys_days, Timestamp>);
// Arrays: the whole array or one element, not an element of another type.
static_assert(comparable<std::vector<std::string>, const char*>);
static_assert(comparable<std::vector<std::string>, std::vector<std::string>>);
static_assert(!comparable<std::vector<std::string>, int>);
static_assert(!comparable<std::vector<std::int32_t>, double>);

TEST(QueryTest, DecimalFieldsAreNumeric) {
  static_assert(odm::is_numeric<odm::Decimal>);
  static_assert(!odm::is_numeric<bool>);
  static_assert(!odm::is_numeric<std::string>);
  EXPECT_BSON(field(&Account::balance).inc(odm::Decimal(5)), R"({"$inc": {"balance": {"$numberDecimal": "5"}}})");
  EXPECT_BSON(field(&Account::balance).inc(5), R"({"$inc": {"balance": {"$numberDecimal": "5"}}})");
  EXPECT_BSON(field(&Account::balance) > 0, R"({"balance": {"$gt": {"$numberDecimal": "0"}}})");
}

TEST(QueryTest, OptionalNumbers) {
  EXPECT_BSON(field(&Account::visits).inc(1), R"({"$inc": {"visits": 1}})");
  EXPECT_BSON(field(&Account::visits) > 3, R"({"visits": {"$gt": 3}})");
  EXPECT_BSON(field(&Account::visits).in({1, 2}), R"({"visits": {"$in": [1, 2]}})");
  EXPECT_BSON(field(&Account::visits).unset(), R"({"$unset": {"visits": ""}})");
}

TEST(QueryTest, NestedRenamesAndIdInsideElements) {
  EXPECT_BSON(field(&Account::profiles) / &Account::Profile::nick == "ann", R"({"profiles.nickname": "ann"})");
  EXPECT_BSON(field(&Account::profiles).elem_match([](auto p) {
                return p / &Account::Profile::nick == "ann" && p / &Account::Profile::id == 2;
              }),
              R"({"profiles": {"$elemMatch": {"nickname": "ann", "id": 2}}})");
  EXPECT_BSON(field(&Account::profiles).pull([](auto p) { return p / &Account::Profile::id == 2; }),
              R"({"$pull": {"profiles": {"id": 2}}})");
  EXPECT_BSON(odm::sort(odm::asc(field(&Account::profiles) / &Account::Profile::id)), R"({"profiles.id": 1})");
}

TEST(QueryTest, NegatedElementConditions) {
  EXPECT_BSON(field(&Movie::scores).elem_match([](auto s) { return !(s > 90); }),
              R"({"scores": {"$elemMatch": {"$not": {"$gt": 90}}}})");
  EXPECT_BSON(field(&Movie::scores).elem_match([](auto s) { return s.in({1, 2}) && s != 3; }),
              R"({"scores": {"$elemMatch": {"$in": [1, 2], "$ne": 3}}})");
  EXPECT_BSON(field(&Movie::scores).elem_match([](auto s) { return s == 7; }),
              R"({"scores": {"$elemMatch": {"$eq": 7}}})");
}

TEST(QueryTest, AndJoinsAnExistingAnd) {
  const auto range = field(&Book::pages) > 1 && field(&Book::pages) < 9;
  EXPECT_BSON(field(&Book::title) == "x" && range,
              R"({"$and": [{"title": "x"}, {"pages": {"$gt": 1}}, {"pages": {"$lt": 9}}]})");
  EXPECT_BSON(range && range,
              R"({"$and": [{"pages": {"$gt": 1}}, {"pages": {"$lt": 9}}, {"pages": {"$gt": 1}}, {"pages": {"$lt": 9}}]})");
  EXPECT_BSON((field(&Book::pages) == 1 || field(&Book::pages) == 2) && field(&Book::title) == "x",
              R"({"$or": [{"pages": 1}, {"pages": 2}], "title": "x"})");
  EXPECT_BSON(odm::Filter<Book>{} || field(&Book::pages) == 1, "{}");
}

}  // namespace
