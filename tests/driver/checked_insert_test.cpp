// insert_one tells libmongoc not to validate a document again when odm's encoder already
// guarantees what that validation checks (odm/driver/checked_encoding.hpp, issue 12). These
// tests prove that bad input is still refused, and nothing stored: by odm's encoder for a
// model whose encoding is checked, by libmongoc for one whose encoding is not.

#include "../celsius.hpp"
#include "support.hpp"

#include <odm/driver/checked_encoding.hpp>
#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace odm_test {
namespace {

struct Line {
  std::string sku;
  std::int32_t quantity = 0;
  bool operator==(const Line&) const = default;
};

struct Order {
  std::int64_t id = 0;
  std::string customer;
  std::optional<std::string> note;
  std::map<std::string, std::int32_t> tags;
  std::vector<Line> lines;
  std::chrono::sys_days day{};
  odm::Money total{odm::Decimal("0"), "EUR"};
  bool operator==(const Order&) const = default;
};

/// A user's type whose codec writes `{<name>: 1}` without checking the name, so an empty
/// key can reach libmongoc, whose insert validation refuses it (libmongoc 1.23 refuses
/// empty keys by default; it leaves UTF-8 and '$'/'.' keys to the server).
struct Unchecked {
  std::string name;
};

struct WithUserCodec {
  std::int64_t id = 0;
  Unchecked field;
};

struct WithCelsius {
  std::int64_t id = 0;
  Celsius temperature;
};

struct KeepsUnknown {
  std::int64_t id = 0;
  std::string name;
  odm::Extra rest;
};

}  // namespace
}  // namespace odm_test

template <>
struct odm::codec<odm_test::Unchecked> {
  using kind = odm::kinds::any_document;
  static void encode(bson_t* parent, std::string_view key, const odm_test::Unchecked& v) {
    bson_t child;
    odm::detail::check_append(bson_append_document_begin(parent, key.data(), static_cast<int>(key.size()), &child));
    odm::detail::check_append(bson_append_int32(&child, v.name.data(), static_cast<int>(v.name.size()), 1));
    odm::detail::check_append(bson_append_document_end(parent, &child));
  }
  static void decode(const bson_iter_t&, odm_test::Unchecked&) {}
};

namespace odm_test {
namespace {

// Only models made of odm's own checking codecs skip libmongoc's validation.
static_assert(odm::detail::checked_encoding<Order>);
static_assert(odm::detail::checked_encoding<Line>);
static_assert(!odm::detail::checked_encoding<WithUserCodec>, "a user's codec may write anything");
static_assert(!odm::detail::checked_encoding<WithCelsius>, "a user's codec is not trusted, even a harmless one");
static_assert(!odm::detail::checked_encoding<KeepsUnknown>, "odm::Extra writes back fields odm did not check");
static_assert(!odm::detail::checked_encoding<std::vector<Celsius>>);
static_assert(odm::detail::checked_encoding<std::map<std::string, std::vector<std::optional<Line>>>>);

class CheckedInsert : public DriverTest {
 protected:
  odm::Collection<Order> orders() { return db().collection<Order>("orders"); }

  static Order order(std::int64_t id) {
    using namespace std::chrono;
    return Order{.id = id,
                 .customer = "Zoë",
                 .note = "bitte läuten",
                 .tags = {{"größe", 2}, {"color", 1}},
                 .lines = {{"A-1", 2}, {"Б-2", 1}},
                 .day = sys_days(year(2024) / 5 / 17),
                 .total = odm::Money(odm::Decimal("12.50"), "EUR")};
  }

  /// Inserting `bad` throws EncodeError naming `what`, and the collection stays empty.
  void expect_refused(const Order& bad, std::string_view what) {
    try {
      orders().insert_one(bad);
      ADD_FAILURE() << "inserted an order with " << what;
    } catch (const odm::EncodeError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string(what)), std::string::npos) << error.what();
    }
    EXPECT_EQ(orders().count(), 0);
  }
};

TEST_F(CheckedInsert, AValidDocumentIsStoredAsEncoded) {
  const Order written = order(1);
  orders().insert_one(written);
  EXPECT_EQ(orders().find_by_id(1), written);
}

TEST_F(CheckedInsert, InvalidUtf8IsRefusedAtEveryDepth) {
  Order top = order(1);
  top.customer = "Zo\xC3";  // a truncated two-byte sequence
  expect_refused(top, "customer");
  Order optional = order(2);
  optional.note = std::string("\xFF\xFE");
  expect_refused(optional, "note");
  Order nested = order(3);
  nested.lines[1].sku = "\xE2\x82";  // a truncated euro sign
  expect_refused(nested, "lines.1.sku");
  Order overlong = order(4);
  overlong.customer = "\xC0\xAF";  // an overlong '/', which UTF-8 forbids
  expect_refused(overlong, "customer");
}

TEST_F(CheckedInsert, ANulInsideAStringIsStoredAndReadBack) {
  // BSON strings are length-prefixed and may hold NUL (libmongoc's own validation allows it
  // in values too); only field names cannot.
  Order with_nul = order(1);
  with_nul.customer = std::string("Zo\0e", 4);
  orders().insert_one(with_nul);
  EXPECT_EQ(orders().find_by_id(1), with_nul);
}

TEST_F(CheckedInsert, MapKeysMongoDbWouldMisreadAreRefused) {
  for (const std::string& key : {std::string("a.b"), std::string("$inc"), std::string(), std::string("x\0y", 3),
                                std::string("\xC3\x28")}) {
    Order bad = order(1);
    bad.tags.emplace(key, 1);
    expect_refused(bad, "tags");
  }
}

TEST_F(CheckedInsert, AModelWithAUserCodecIsStillValidatedByLibmongoc) {
  auto collection = db().collection<WithUserCodec>("user_codec");
  EXPECT_THROW(collection.insert_one(WithUserCodec{1, {""}}), odm::Error);
  EXPECT_EQ(collection.count(), 0);
  collection.insert_one(WithUserCodec{2, {"size"}});  // what the codec writes well is stored
  EXPECT_EQ(collection.count(), 1);
}

}  // namespace
}  // namespace odm_test
