// Adversarial probes of insert_one's `validate: false` for models whose encoding odm judges
// checked (odm/driver/checked_encoding.hpp, issue 12). The promise: skipping libmongoc's
// insert validation changes nothing a user sees. Whatever libmongoc 1.23 would have refused
// (its default insert flags: UTF-8 in keys and strings, empty keys) or MongoDB refuses must
// still be refused with a clear odm error, and nothing stored. A probe that shows a defect
// is kept, skipped with `defect:` and its reason.

#include "support.hpp"

#include <odm/driver/checked_encoding.hpp>
#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace adv12insert {

struct Leaf {
  std::string text;
  std::map<std::string, std::int32_t> counts;
};

// Maps and structs nested in every container odm judges checked.
struct Deep {
  std::int64_t id = 0;
  std::map<std::string, std::map<std::string, std::int32_t>> maps;
  std::optional<std::map<std::string, std::string>> optional_map;
  // No std::array of strings, maps or structs: g++ 12.2 crashes (internal compiler error in
  // boost::pfr's field count) on any model with such a member, e.g. std::array<std::string, 2>.
  std::vector<std::optional<Leaf>> leaves;
  std::map<std::string, Leaf> leaf_by_name;
  std::map<std::string, std::vector<std::string>> lists;
  std::string id_like;
  struct odm_model {
    static constexpr std::string_view collection = "deep";
  };
};

// A string id: the `_id` itself holds user text.
struct Named {
  std::string id;
  odm::Decimal amount{"0"};
  odm::Money price{odm::Decimal("0"), "EUR"};
  struct odm_model {
    static constexpr std::string_view collection = "named";
  };
};

struct Big {
  std::int64_t id = 0;
  std::vector<std::string> chunks;
  struct odm_model {
    static constexpr std::string_view collection = "big";
  };
};

// A plain struct whose std::vector a user stores with a codec of their own (a full
// specialization of odm::codec<std::vector<Point>>), writing keys it never checks.
struct Point {
  std::int32_t x = 0;
  std::string label;
};
struct Shape {
  std::int64_t id = 0;
  std::vector<Point> points;
  struct odm_model {
    static constexpr std::string_view collection = "shapes";
  };
};

}  // namespace adv12insert

// Stores the points as one document keyed by label: {<label>: x, ...}, unchecked.
template <>
struct odm::codec<std::vector<adv12insert::Point>> {
  using kind = odm::kinds::any_document;
  static void encode(bson_t* parent, std::string_view key, const std::vector<adv12insert::Point>& points) {
    bson_t child;
    odm::detail::check_append(bson_append_document_begin(parent, key.data(), static_cast<int>(key.size()), &child));
    for (const adv12insert::Point& p : points)
      odm::detail::check_append(bson_append_int32(&child, p.label.data(), static_cast<int>(p.label.size()), p.x));
    odm::detail::check_append(bson_append_document_end(parent, &child));
  }
  static void decode(const bson_iter_t&, std::vector<adv12insert::Point>&) {}
};

namespace {

using namespace adv12insert;

static_assert(odm::detail::checked_encoding<Deep>, "the probes below only matter for a model judged checked");
static_assert(odm::detail::checked_encoding<Named>);
static_assert(odm::detail::checked_encoding<Big>);

Deep deep(std::int64_t id) {
  Deep d;
  d.id = id;
  return d;
}

Named named(std::string id, const char* amount = "0") {
  Named n;
  n.id = std::move(id);
  n.amount = odm::Decimal(amount);
  n.price = odm::Money(odm::Decimal(amount), "XAU");
  return n;
}

class Adversary12Insert : public odm_test::DriverTest {
 protected:
  /// Inserting `bad` throws an odm::Error whose message names `where`, and stores nothing.
  template <class T>
  void expect_refused(const T& bad, const std::string& where) {
    auto collection = db().collection<T>();
    try {
      collection.insert_one(bad);
      ADD_FAILURE() << "stored a document with a bad value at " << where;
    } catch (const odm::Error& error) {
      EXPECT_NE(std::string(error.what()).find(where), std::string::npos) << error.what();
    }
    EXPECT_EQ(collection.count(), 0) << where;
  }
};

TEST_F(Adversary12Insert, BadMapKeysAreRefusedAtEveryDepthAndInEveryContainer) {
  const std::string bad_keys[] = {std::string(), "$set", "a.b", std::string("n\0l", 3), "\xC3\x28", "\xED\xA0\x80",
                                  "\xF4\x90\x80\x80"};
  for (const std::string& key : bad_keys) {
    SCOPED_TRACE("key of " + std::to_string(key.size()) + " bytes");
    {
      Deep d = deep(1);
      d.maps["ok"][key] = 1;
      expect_refused(d, "maps.ok");
    }
    {
      Deep d = deep(2);
      d.optional_map = std::map<std::string, std::string>{{key, "v"}};
      expect_refused(d, "optional_map");
    }
    {
      Deep d = deep(4);
      d.leaves = {Leaf{"fine", {}}, std::nullopt, Leaf{"x", {{key, 1}}}};
      expect_refused(d, "leaves.2.counts");
    }
    {
      Deep d = deep(5);
      d.leaf_by_name["k"] = Leaf{"x", {{"ok", 1}, {key, 2}}};
      expect_refused(d, "leaf_by_name.k.counts");
    }
  }
}

TEST_F(Adversary12Insert, InvalidUtf8InStringsIsRefusedAtEveryDepth) {
  const std::string bad = "ok\xE0\x80\xAF";  // an overlong '/'
  {
    Deep d = deep(1);
    d.lists["k"] = {"fine", bad};
    expect_refused(d, "lists.k.1");
  }
  {
    Deep d = deep(2);
    d.leaf_by_name["k"] = Leaf{bad, {}};
    expect_refused(d, "leaf_by_name.k.text");
  }
  {
    Deep d = deep(3);
    d.optional_map = std::map<std::string, std::string>{{"k", bad}};
    expect_refused(d, "optional_map.k");
  }
  {
    Deep d = deep(4);
    d.maps["\xC3\xA9t\xC3\xA9"]["ok"] = 1;  // valid UTF-8 keys are fine: stored as written
    db().collection<Deep>().insert_one(d);
    EXPECT_EQ(db().collection<Deep>().find_by_id(4)->maps.at("\xC3\xA9t\xC3\xA9").at("ok"), 1);
  }
}

TEST_F(Adversary12Insert, AStringIdThatIsNotUtf8IsRefused) {
  expect_refused(named("id\xFF"), "_id");
  expect_refused(named("\xC0\x80"), "_id");  // modified UTF-8's NUL, not UTF-8
}

TEST_F(Adversary12Insert, DecimalAndMoneyEdgeValuesAreStoredAndReadBack) {
  // Decimal128's extremes are valid BSON: nothing to refuse, and they must round-trip
  // (odm::Decimal holds finite values only, so NaN and infinities never reach an insert).
  EXPECT_THROW(odm::Decimal("NaN"), odm::Error);
  EXPECT_THROW(odm::Decimal("-Infinity"), odm::Error);
  auto collection = db().collection<Named>();
  const char* amounts[] = {"-0", "9.999999999999999999999999999999999E+6144", "-1E-6176", "0E-6176", "0E+6111"};
  int n = 0;
  for (const char* amount : amounts) {
    const std::string id = "d" + std::to_string(n++);
    collection.insert_one(named(id, amount));
    const auto back = collection.find_by_id(id);
    ASSERT_TRUE(back.has_value()) << amount;
    EXPECT_EQ(back->amount.to_string(), odm::Decimal(amount).to_string()) << amount;
    EXPECT_EQ(back->price.currency(), "XAU");
  }
}

// A stored name that is not UTF-8 (BSON requires e_name to be UTF-8; libmongoc's insert
// validation refused it, and odm skips that validation for checked models) does not compile:
// compile_fail/rename_not_utf8.cpp and rename_not_utf8_nested.cpp. The check itself:
TEST(Adversary12InsertNames, StoredNamesAreCheckedAsUtf8AtCompileTime) {
  static_assert(odm::detail::is_valid_field_name("caf\xC3\xA9"));
  static_assert(!odm::detail::is_valid_field_name("caf\xC3"));
  for (const char* good : {"a", "caf\xC3\xA9", "\xE6\x97\xA5", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF", "\xEF\xBF\xBF"})
    EXPECT_TRUE(odm::detail::is_utf8(good)) << good;
  for (const char* bad : {"\xC3", "\xFF", "\x80", "\xC0\x80", "\xC1\xBF", "\xE0\x9F\xBF", "\xED\xA0\x80",
                          "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "a\xE6\x97"})
    EXPECT_FALSE(odm::detail::is_utf8(bad)) << testing::PrintToString(std::string(bad));
}

// checked_encoding trusts a std::vector only when odm's own codec writes it: a user's own codec
// for std::vector<Point> may write what libmongoc's insert validation refuses (an empty key),
// so that validation stays on.
TEST_F(Adversary12Insert, AUsersOwnCodecForAContainerIsStillValidated) {
  static_assert(!odm::detail::checked_encoding<Shape>, "a user's codec for std::vector<Point> is not trusted");
  auto shapes = db().collection<Shape>();
  Shape bad;
  bad.id = 1;
  bad.points = {Point{1, "a"}, Point{2, ""}};
  try {
    shapes.insert_one(bad);
    ADD_FAILURE() << "stored an empty field name";
  } catch (const odm::Error& error) {
    EXPECT_EQ(std::string(error.what()).find("server error"), std::string::npos)
        << "refused by the server, not before sending: " << error.what();
  }
  EXPECT_EQ(shapes.count(), 0);
}

TEST_F(Adversary12Insert, ADocumentOverSixteenMebibytesIsACleanErrorAndStoresNothing) {
  Big big;
  big.id = 1;
  big.chunks.assign(17, std::string(1024 * 1024, 'x'));
  auto collection = db().collection<Big>();
  EXPECT_THROW(collection.insert_one(big), odm::Error);
  EXPECT_EQ(collection.count(), 0);
  big.chunks.assign(2, std::string(1024, 'y'));
  collection.insert_one(big);  // the client still works
  EXPECT_EQ(collection.count(), 1);
}

}  // namespace
