// from_bson on raw bytes: malformed input of any kind is an odm::DecodeError, never a
// crash, a hang or another exception. A deterministic fuzz test damages valid encoded
// seed documents thousands of times (bit flips, byte overwrites, truncations, length
// fields changed, bytes inserted and removed) with a fixed seed; build it with
// -DODM_SANITIZE=ON to have ASan/UBSan watch every decode.

#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <odm/fields/decimal.hpp>
#include <odm/fields/money.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace bson_malformed_input_test {

using odm_test::day;
using odm_test::instant;
using odm_test::oid;

/// splitmix64: tiny, and the same sequence on every platform and standard library
/// (std::uniform_int_distribution is not).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform enough in [0, bound).
  std::size_t below(std::size_t bound) { return bound == 0 ? 0 : static_cast<std::size_t>(next() % bound); }

 private:
  std::uint64_t state_;
};

enum class Kind { red, green };

/// Every codec in one document, so damage reaches each of them.
struct Everything {
  odm::ObjectId id;
  std::int32_t i32;
  std::int64_t i64;
  double d;
  bool b;
  std::string s;
  Kind kind;
  std::chrono::system_clock::time_point when;
  std::chrono::sys_days day;
  std::optional<std::string> maybe;
  std::optional<std::int32_t> absent;
  std::vector<std::vector<std::int32_t>> grid;
  std::map<std::string, std::string> labels;
  std::variant<std::string, std::vector<std::string>> author;
  odm::Binary blob;
  odm::Embedded<seed::Address> address;
  odm::LocalTime local;
  bool operator==(const Everything&) const = default;
};

/// The money types, each with its own decoder.
struct Priced {
  odm::Money price;
  odm::Decimal exact;
  odm::ScaledAmount<100> cents;
  odm::DisplayMoney display;
  odm::DecimalFromLegacy<100> legacy;
  odm::DecimalFromLegacy<100> legacy_string;
  bool operator==(const Priced&) const = default;
};

/// A decoder under test: decodes the bytes as T and, if that works, re-encodes the value.
struct Target {
  const char* name;
  odm::Document valid;
  std::function<void(std::span<const std::uint8_t>)> decode;
};

template <class T>
Target target(const char* name, const T& value) {
  return Target{name, odm::to_bson(value), [](std::span<const std::uint8_t> bytes) {
                  const T decoded = odm::from_bson<T>(bytes);
                  try {
                    (void)odm::to_bson(decoded);
                  } catch (const odm::EncodeError&) {
                    // A decoded map may hold keys odm refuses to write ("$x"); that is fine.
                  }
                }};
}

/// A target whose valid document is given as Extended JSON (shapes odm does not write,
/// such as the legacy money shapes).
template <class T>
Target target_from_json(const char* name, std::string_view json) {
  Target t = target<T>(name, T{});
  t.valid = odm_test::doc_from_json(json);
  return t;
}

std::vector<Target> targets() {
  const auto sammy = oid("612d1e835ebee16872a109a4");
  std::vector<Target> all;
  all.push_back(target("FullMovie", seed::FullMovie{1, "The Arrival of a Train", 1896, 1, day(1896, 1, 25), "poster",
                                                    "plot", "fullplot", instant(2015, 8, 15, 10, 6, 53), "movie",
                                                    {"Auguste Lumière", "Louis Lumière"}, seed::Imdb{7.3, 5043, 12},
                                                    {"France"}, {"Documentary", "Short"},
                                                    seed::Tomatoes{seed::Viewer{3.7, 59}, instant(2020, 1, 9)}}));
  all.push_back(target("Patron", seed::Patron{"joe", "Joe Bookreader",
                                              {seed::Address{"123 Fake Street", "Faketon", "MA", "12345"},
                                               seed::Address{"1 Some Other Street", "Boston", "MA", "12345"}}}));
  all.push_back(target("BookWithCheckout",
                       seed::BookWithCheckout{123456789, "MongoDB: The Definitive Guide",
                                              std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
                                              day(2010, 9, 24), 216, "English", "oreilly", 3,
                                              {seed::Checkout{"joe", instant(2012, 10, 15)}}}));
  all.push_back(target("BookWithPublisher",
                       seed::BookWithPublisher{"50 Tips", std::string("Kristina Chodorow"), day(2011, 5, 6), 68,
                                               "English", seed::PublisherInfo{"O'Reilly Media", 1980, "CA"}}));
  all.push_back(target("CategoryWithParent", seed::CategoryWithParent{"Books", std::nullopt}));
  all.push_back(target("CategoryWithChildren", seed::CategoryWithChildren{"Databases", {"MongoDB", "dbm"}}));
  all.push_back(target("StudentWithEmbeddedMessages",
                       seed::StudentWithEmbeddedMessages{
                           sammy, "Sammy", "Shark",
                           {seed::Email{"[email protected]", seed::EmailType::work},
                            seed::Email{"[email protected]", seed::EmailType::home}},
                           {oid("61741c9cbc9ec583c836170a"), oid("61741c9cbc9ec583c836170b")},
                           {seed::BoardMessage{"Books", "Hello!", instant(2021, 7, 23, 16, 3, 21)}}}));
  all.push_back(target("StudentWithIdCard", seed::StudentWithIdCard{sammy, "Sammy", "Shark",
                                                                    seed::IdCard{"123-1234-123", day(2020, 1, 23),
                                                                                 day(2020, 1, 23)}}));
  all.push_back(target("Person", seed::Person{"岳云鹏", "123-456-7890",
                                              {seed::PersonAddress{"史各庄东路108号", "北京", "China"}}}));
  all.push_back(target("ProductWithParts", seed::ProductWithParts{"left-handed smoke shifter", "Acme Corp", 1234,
                                                                  {oid("00000000000000000000aaaa")}}));
  all.push_back(target("LogMessage", seed::LogMessage{instant(2014, 3, 28, 9, 42, 41, 284), "cpu is on fire!",
                                                      oid("00000000000000000000aaab")}));
  all.push_back(target("Volume", seed::Volume{"Moby-Dick", "Herman Melville", 1851, 451526996,
                                              {"whaling", "allegory", "voyage"}}));
  all.push_back(target("Everything", Everything{sammy, -5, 5'000'000'000, 0.25, true, std::string("a\0b", 3),
                                                Kind::green, instant(2021, 1, 2, 3, 4, 5, 6), day(2020, 2, 29),
                                                std::string("m"), std::nullopt, {{1, 2}, {}, {3}},
                                                {{"k", "v"}, {"k2", "v2"}}, std::vector<std::string>{"x"},
                                                odm::Binary{{1, 2, 3}, BSON_SUBTYPE_UUID},
                                                seed::Address{"s", "c", "st", "z"},
                                                odm::LocalTime{std::chrono::sys_time<std::chrono::milliseconds>(
                                                                   std::chrono::milliseconds(1615714013589)),
                                                               -120}}));
  Priced priced{odm::Money("119.99", "USD"), odm::Decimal("2.099"), odm::ScaledAmount<100>::from_units(1999),
                odm::DisplayMoney(odm::Decimal("9.99"), "USD"), odm::Decimal("19.99"), odm::Decimal("80.00")};
  all.push_back(target("Priced", priced));
  all.push_back(target_from_json<Priced>("PricedLegacy", R"({
      "price": {"value": {"$numberDecimal": "119.99"}, "currency": "USD"}, "exact": {"$numberDecimal": "-1.5E+3"},
      "cents": 1999, "display": {"display": "0.25", "approx": 0.2499999999999999, "currency": "EUR"},
      "legacy": {"$numberLong": "1999"}, "legacy_string": "80.00"})"));
  return all;
}

/// What happened to one damaged input.
enum class Outcome { decoded, decode_error };

/// Decodes `bytes` with `t`; any exception but DecodeError fails the test.
Outcome run(const Target& t, std::span<const std::uint8_t> bytes) {
  try {
    t.decode(bytes);
    return Outcome::decoded;
  } catch (const odm::DecodeError& e) {
    EXPECT_NE(std::string(e.what()), "") << t.name;
    return Outcome::decode_error;
  } catch (const std::exception& e) {
    ADD_FAILURE() << t.name << ": unexpected exception " << typeid(e).name() << ": " << e.what();
  } catch (...) {
    ADD_FAILURE() << t.name << ": unexpected non-standard exception";
  }
  return Outcome::decode_error;
}

void write_int32(std::vector<std::uint8_t>& bytes, std::size_t at, std::int32_t value) {
  if (at + 4 > bytes.size()) return;
  const auto u = static_cast<std::uint32_t>(value);
  for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(u >> (8 * i));
}

std::int32_t read_int32(const std::vector<std::uint8_t>& bytes, std::size_t at) {
  std::uint32_t u = 0;
  for (int i = 0; i < 4; ++i) u |= static_cast<std::uint32_t>(bytes[at + static_cast<std::size_t>(i)]) << (8 * i);
  return static_cast<std::int32_t>(u);
}

/// One random kind of damage.
std::vector<std::uint8_t> damage(const std::vector<std::uint8_t>& original, Random& random) {
  std::vector<std::uint8_t> bytes = original;
  const std::size_t size = bytes.size();
  switch (random.below(8)) {
    case 0: {  // flip 1..4 bits
      const std::size_t flips = 1 + random.below(4);
      for (std::size_t i = 0; i < flips; ++i) bytes[random.below(size)] ^= static_cast<std::uint8_t>(1u << random.below(8));
      break;
    }
    case 1: {  // overwrite a byte with an interesting value
      static constexpr std::uint8_t interesting[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x08, 0x09, 0x0a,
                                                     0x10, 0x11, 0x12, 0x13, 0x20, 0x7f, 0x80, 0xc0, 0xff, 0xfe};
      bytes[random.below(size)] = interesting[random.below(std::size(interesting))];
      break;
    }
    case 2:  // truncate (the length prefix then disagrees)
      bytes.resize(random.below(size));
      break;
    case 3: {  // truncate and fix the length prefix and the terminator, to reach the element parser
      bytes.resize(5 + random.below(size - 5));
      bytes.back() = 0;
      write_int32(bytes, 0, static_cast<std::int32_t>(bytes.size()));
      break;
    }
    case 4: {  // change a length-like int32 at a random offset by a small amount or to an extreme
      const std::size_t at = random.below(size - 3);
      static constexpr std::int32_t extremes[] = {0, -1, 1, 4, 5, 0x7fffffff, -0x7fffffff - 1, 0x10000};
      if (random.below(2) == 0)
        write_int32(bytes, at, read_int32(bytes, at) + static_cast<std::int32_t>(random.below(17)) - 8);
      else
        write_int32(bytes, at, extremes[random.below(std::size(extremes))]);
      break;
    }
    case 5: {  // insert a few random bytes, fixing the top-level length
      const std::size_t at = 4 + random.below(size - 4);
      const std::size_t count = 1 + random.below(4);
      for (std::size_t i = 0; i < count; ++i)
        bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(random.next()));
      write_int32(bytes, 0, static_cast<std::int32_t>(bytes.size()));
      break;
    }
    case 6: {  // remove a few bytes, fixing the top-level length
      const std::size_t at = 4 + random.below(size - 5);
      const std::size_t count = 1 + random.below(std::min<std::size_t>(4, size - 1 - at));
      bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin() + static_cast<std::ptrdiff_t>(at + count));
      write_int32(bytes, 0, static_cast<std::int32_t>(bytes.size()));
      break;
    }
    default: {  // several kinds at once (when the first leaves enough to damage again)
      bytes = damage(original, random);
      if (bytes.size() >= 16) bytes = damage(bytes, random);
      if (bytes.size() >= 5 && random.below(2) == 0) write_int32(bytes, 0, static_cast<std::int32_t>(bytes.size()));
      break;
    }
  }
  return bytes;
}

TEST(MalformedInput, ValidSeedDocumentsDecode) {
  for (const Target& t : targets()) {
    SCOPED_TRACE(t.name);
    EXPECT_EQ(run(t, t.valid.bytes()), Outcome::decoded);
  }
}

TEST(MalformedInput, RandomDamageNeverCrashes) {
  Random random(20240229);
  constexpr int kRoundsPerDocument = 3000;
  std::size_t decoded = 0, refused = 0;
  for (const Target& t : targets()) {
    SCOPED_TRACE(t.name);
    const std::vector<std::uint8_t> original = odm_test::bytes_of(t.valid);
    for (int round = 0; round < kRoundsPerDocument; ++round) {
      const std::vector<std::uint8_t> bytes = damage(original, random);
      const Outcome outcome = run(t, bytes);
      (outcome == Outcome::decoded ? decoded : refused) += 1;
      // Document::from_bytes validates everything up front: it either refuses with a
      // DecodeError or yields a document the codec can read without crashing. And what it
      // refuses, decoding refuses too: no part of a corrupt document is trusted, not even
      // the fields the model does not declare.
      try {
        const odm::Document copy = odm::Document::from_bytes(bytes);
        (void)run(t, copy.bytes());
      } catch (const odm::DecodeError& e) {
        EXPECT_EQ(outcome, Outcome::decode_error) << t.name << ": decoded what from_bytes refuses: " << e.what();
      }
      if (testing::Test::HasFailure()) return;
    }
  }
  // The damage must actually reach both outcomes (a fuzzer that only ever fails at the
  // length prefix proves nothing).
  EXPECT_GT(decoded, 100u);
  EXPECT_GT(refused, 10000u);
}

TEST(MalformedInput, EveryTruncationOfEveryDocument) {
  for (const Target& t : targets()) {
    SCOPED_TRACE(t.name);
    const std::vector<std::uint8_t> original = odm_test::bytes_of(t.valid);
    for (std::size_t length = 0; length < original.size(); ++length) {
      std::vector<std::uint8_t> bytes(original.begin(), original.begin() + static_cast<std::ptrdiff_t>(length));
      EXPECT_EQ(run(t, bytes), Outcome::decode_error) << "length " << length;
      if (length >= 5) {  // the same with a consistent prefix and terminator: may even decode
        bytes.back() = 0;
        write_int32(bytes, 0, static_cast<std::int32_t>(length));
        (void)run(t, bytes);
      }
    }
  }
}

TEST(MalformedInput, EverySingleByteValueAtEveryOffset) {
  // Exhaustive over one small document: 256 values at every position.
  const Target t = target("CategoryWithParent", seed::CategoryWithParent{"MongoDB", "Databases"});
  const std::vector<std::uint8_t> original = odm_test::bytes_of(t.valid);
  for (std::size_t at = 0; at < original.size(); ++at) {
    for (int value = 0; value < 256; ++value) {
      std::vector<std::uint8_t> bytes = original;
      bytes[at] = static_cast<std::uint8_t>(value);
      (void)run(t, bytes);
    }
  }
}

TEST(MalformedInput, HandWrittenCases) {
  const Target t = target("CategoryWithParent", seed::CategoryWithParent{"MongoDB", "Databases"});
  const auto refused = [&](std::vector<std::uint8_t> bytes) { return run(t, bytes) == Outcome::decode_error; };
  EXPECT_TRUE(refused({}));
  EXPECT_TRUE(refused({0x05, 0x00, 0x00, 0x00}));
  EXPECT_TRUE(refused({0x05, 0x00, 0x00, 0x00, 0x01}));              // no terminator
  EXPECT_TRUE(refused({0x06, 0x00, 0x00, 0x00, 0x00}));              // prefix too long
  EXPECT_TRUE(refused({0x04, 0x00, 0x00, 0x00, 0x00}));              // prefix too short
  EXPECT_TRUE(refused({0xff, 0xff, 0xff, 0xff, 0x00}));              // negative prefix
  EXPECT_TRUE(refused({0x05, 0x00, 0x00, 0x00, 0x00}));              // {} lacks the required _id
  // {"_id": <string whose length runs past the end>}
  EXPECT_TRUE(refused({0x12, 0, 0, 0, 0x02, '_', 'i', 'd', 0, 0x40, 0, 0, 0, 'a', 'b', 'c', 0, 0}));
  // {"_id": <string without its terminating NUL>}
  EXPECT_TRUE(refused({0x12, 0, 0, 0, 0x02, '_', 'i', 'd', 0, 0x04, 0, 0, 0, 'a', 'b', 'c', 'd', 0}));
  // {"_id": <string with negative length>}
  EXPECT_TRUE(refused({0x12, 0, 0, 0, 0x02, '_', 'i', 'd', 0, 0xff, 0xff, 0xff, 0xff, 'a', 'b', 'c', 0, 0}));
  // An element of unknown type 0x20.
  EXPECT_TRUE(refused({0x0c, 0, 0, 0, 0x20, '_', 'i', 'd', 0, 0, 0, 0}));
  // A key without its NUL, running into the terminator.
  EXPECT_TRUE(refused({0x08, 0, 0, 0, 0x0a, 'a', 'b', 0}));
  // {"_id": "x", "parent": {<nested length past its parent>}}
  EXPECT_TRUE(refused({0x1d, 0, 0, 0, 0x02, '_', 'i', 'd', 0, 0x02, 0, 0, 0, 'x', 0, 0x03, 'p', 'a', 'r', 'e', 'n',
                       't', 0, 0x40, 0, 0, 0, 0, 0}));
}

}  // namespace bson_malformed_input_test
