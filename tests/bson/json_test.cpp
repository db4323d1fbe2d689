// to_json / from_json: relaxed Extended JSON out, relaxed or canonical in.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace bson_json_test {

struct Student {
  odm::ObjectId id;
  std::string name;
  std::int32_t points;
  std::int64_t big;
  double score;
  std::chrono::sys_days enrolled;
  std::vector<std::string> tags;
  std::optional<std::string> note;
  bool operator==(const Student&) const = default;
};

const Student kSammy{odm_test::oid("612d1e835ebee16872a109a4"), "Sammy", 7, 5'000'000'000, 2.5,
                     odm_test::day(2020, 1, 23), {"a", "b"}, std::nullopt};

struct Loose {
  std::optional<std::int32_t> a;
  bool operator==(const Loose&) const = default;
};

TEST(Json, ToJsonIsRelaxedExtendedJson) {
  EXPECT_EQ(odm::to_json(kSammy),
            R"({ "_id" : { "$oid" : "612d1e835ebee16872a109a4" }, "name" : "Sammy", "points" : 7, )"
            R"("big" : 5000000000, "score" : 2.5, "enrolled" : { "$date" : "2020-01-23T00:00:00Z" }, )"
            R"("tags" : [ "a", "b" ], "note" : null })");
}

TEST(Json, FromJsonReadsRelaxedAndCanonical) {
  EXPECT_EQ(odm::from_json<Student>(odm::to_json(kSammy)), kSammy);
  EXPECT_EQ(odm::from_json<Student>(odm::to_bson(kSammy).to_canonical_json()), kSammy);
  EXPECT_EQ(odm::from_json<Student>(R"({"_id": {"$oid": "612d1e835ebee16872a109a4"}, "name": "Sammy",
      "points": 7, "big": 5000000000, "score": 2.5, "enrolled": {"$date": "2020-01-23T00:00:00Z"},
      "tags": ["a", "b"]})"),
            kSammy);
}

TEST(Json, InvalidJsonIsAJsonError) {
  for (const char* text : {"", "{", "{\"a\": }", "not json", "{\"a\": 1,}", "{a: 1}", "{\"a\": 'x'}",
                           "{\"a\": {\"$oid\": \"xyz\"}}", "{\"a\": {\"$numberInt\": \"1.5\"}}"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW((void)odm::from_json<Loose>(text), odm::JsonError);
  }
  try {
    (void)odm::from_json<Loose>("{");
  } catch (const odm::JsonError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("invalid Extended JSON: ", 0), 0u);
  }
  // A JsonError is an odm::Error, not a DecodeError.
  EXPECT_THROW((void)odm::from_json<Loose>("{"), odm::Error);
}

TEST(Json, ValidJsonOfTheWrongShapeIsADecodeError) {
  EXPECT_EQ(odm_test::error_of([] { (void)odm::from_json<Loose>(R"({"a": "x"})"); }), "a: expected int, got string");
  EXPECT_THROW((void)odm::from_json<Student>(R"({"name": "x"})"), odm::DecodeError);
}

TEST(Json, TrailingTextAfterTheDocumentIsAJsonError) {
  // libbson's bson_new_from_json reads the first document and ignores what follows;
  // odm::from_json promises JsonError for text that is not (one) Extended JSON document.
  EXPECT_THROW((void)odm::from_json<Loose>(R"({"a": 1} {"a": 2})"), odm::JsonError);
  EXPECT_THROW((void)odm::from_json<Loose>(R"({"a": 1}{"b": 2})"), odm::JsonError);
}

TEST(Json, TopLevelArrayIsNotADocument) {
  // libbson turns `[1, 2]` into the document {"0": 1, "1": 2}.
  EXPECT_THROW((void)odm::from_json<Loose>(R"([1, 2])"), odm::Error);
}

TEST(Json, StringViewNeedNotBeNulTerminated) {
  const std::string text = R"({"a": 5}garbage)";
  EXPECT_EQ(odm::from_json<Loose>(std::string_view(text).substr(0, 8)), Loose{5});
}

// ---- doubles: the shortest text that reads back, libbson's text for everything else ----

/// libbson's own relaxed Extended JSON of a document (what odm printed before it shortened
/// doubles).
std::string libbson_json(const odm::Document& doc) {
  std::unique_ptr<char, decltype(&bson_free)> json(bson_as_relaxed_extended_json(doc.get(), nullptr), &bson_free);
  return json ? std::string(json.get()) : std::string("<NULL>");
}

odm::Document one_double(double value) {
  odm::Document doc;
  bson_append_double(doc.get_mutable(), "d", -1, value);
  return doc;
}

/// The double stored under "d", checking that it is one.
::testing::AssertionResult double_at_d(const odm::Document& doc, double& value) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc.get(), "d")) return ::testing::AssertionFailure() << "no field d";
  if (bson_iter_type(&it) != BSON_TYPE_DOUBLE)
    return ::testing::AssertionFailure() << "d has BSON type " << static_cast<int>(bson_iter_type(&it));
  value = bson_iter_double(&it);
  return ::testing::AssertionSuccess();
}

TEST(JsonDoubles, ShortestTextThatReadsBack) {
  const struct {
    double value;
    const char* text;
  } cases[] = {
      {7.3, "7.3"},                        // libbson: 7.2999999999999998224
      {0.1 + 0.2, "0.30000000000000004"},  // libbson: 0.30000000000000004441
      {2.5, "2.5"},
      {-4.35, "-4.35"},
      {0.1, "0.1"},
      {2.5e-5, "2.5e-05"},
      {123456.789, "123456.789"},
      {std::numeric_limits<double>::max(), "1.7976931348623157e+308"},
      {std::numeric_limits<double>::min(), "2.2250738585072014e-308"},
      {-std::numeric_limits<double>::denorm_min(), "-5e-324"},
      {1e300, "1e+300"},
      {1e-300, "1e-300"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(one_double(c.value).to_json(), std::string(R"({ "d" : )") + c.text + " }");
  }
}

TEST(JsonDoubles, IntegralValuesKeepAPointOrAnExponent) {
  // Relaxed Extended JSON writes a finite double as a *non-integer* number (a fraction or
  // an exponent), or it would read back as an int32/int64: as libbson, 1 -> 1.0.
  const struct {
    double value;
    const char* text;
  } cases[] = {
      {1.0, "1.0"},
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {-3.0, "-3.0"},
      {100.0, "100.0"},
      {9007199254740992.0, "9007199254740992.0"},
      {123456789012345680.0, "123456789012345680.0"},
      {1e15, "1e+15"},  // shorter than libbson's 1000000000000000.0
      {1e20, "1e+20"},
      {-1e21, "-1e+21"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const odm::Document doc = one_double(c.value);
    EXPECT_EQ(doc.to_json(), std::string(R"({ "d" : )") + c.text + " }");
    double back = 1;
    ASSERT_TRUE(double_at_d(odm::Document::from_json(doc.to_json()), back));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back), std::bit_cast<std::uint64_t>(c.value));
  }
}

TEST(JsonDoubles, NonFiniteValuesStayNumberDoubleWrappers) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(one_double(inf).to_json(), R"({ "d" : { "$numberDouble" : "Infinity" } })");
  EXPECT_EQ(one_double(-inf).to_json(), R"({ "d" : { "$numberDouble" : "-Infinity" } })");
  EXPECT_EQ(one_double(std::numeric_limits<double>::quiet_NaN()).to_json(), R"({ "d" : { "$numberDouble" : "NaN" } })");
  EXPECT_EQ(one_double(-std::numeric_limits<double>::quiet_NaN()).to_json(),
            R"({ "d" : { "$numberDouble" : "NaN" } })");
  for (const double value : {inf, -inf, std::numeric_limits<double>::quiet_NaN()})
    EXPECT_EQ(one_double(value).to_json(), libbson_json(one_double(value)));
}

TEST(JsonDoubles, NestedDocumentsArraysAndScopes) {
  const odm::Document doc = odm_test::doc_from_json(R"json({
    "a": {"b": [7.3, 1.0, [0.1, {"c": -2.5e-7}], {"$numberDouble": "NaN"}], "n": 7},
    "e": [], "f": {}, "s": "7.2999999999999998224",
    "code": {"$code": "f()", "$scope": {"x": 7.3, "y": [0.3]}}
  })json");
  EXPECT_EQ(doc.to_json(),
            R"json({ "a" : { "b" : [ 7.3, 1.0, [ 0.1, { "c" : -2.5e-07 } ], { "$numberDouble" : "NaN" } ], "n" : 7 }, )json"
            R"json("e" : [  ], "f" : {  }, "s" : "7.2999999999999998224", )json"
            R"json("code" : { "$code" : "f()", "$scope" : { "x" : 7.3, "y" : [ 0.3 ] } } })json");
  EXPECT_EQ(odm::Document::from_json(doc.to_json()), doc);
}

TEST(JsonDoubles, CanonicalJsonIsLibbsons) {
  EXPECT_EQ(one_double(7.3).to_canonical_json(), R"({ "d" : { "$numberDouble" : "7.2999999999999998224" } })");
}

TEST(JsonDoubles, EveryOtherTypeIsPrintedByLibbson) {
  odm::Document doc = odm_test::doc_from_json(R"({
    "int32": 7, "negative": -2147483648, "int64": {"$numberLong": "-9223372036854775808"},
    "big": {"$numberLong": "5000000000"}, "true": true, "false": false, "null": null,
    "undefined": {"$undefined": true}, "oid": {"$oid": "612d1e835ebee16872a109a4"},
    "date": {"$date": "2019-02-18T00:00:00.123Z"}, "before 1970": {"$date": {"$numberLong": "-5"}},
    "last ISO date": {"$date": {"$numberLong": "253402300799999"}},
    "regex": {"$regularExpression": {"pattern": "^a\"b\\.1e5", "options": "xmi"}},
    "dbpointer": {"$dbPointer": {"$ref": "db.c1.5", "$id": {"$oid": "612d1e835ebee16872a109a4"}}},
    "code": {"$code": "return 7.3;"}, "scope": {"$code": "x", "$scope": {"n": 1, "s": "0.1"}},
    "symbol": {"$symbol": "1.5"}, "timestamp": {"$timestamp": {"t": 4294967295, "i": 1}},
    "decimals": [{"$numberDecimal": "7.3"}, {"$numberDecimal": "1E+20"}, {"$numberDecimal": "-0.0"},
                 {"$numberDecimal": "NaN"}, {"$numberDecimal": "-Infinity"}],
    "min": {"$minKey": 1}, "max": {"$maxKey": 1},
    "binary": {"$binary": {"base64": "AQID", "subType": "80"}},
    "uuid": {"$binary": {"base64": "yO2rw/c4TKO2jauSqRR4ow==", "subType": "04"}},
    "empty": {}, "empty array": [], "nested": {"a": [[], {}, [1, -2, {"b": null}]]},
    "strings": ["", "7.2999999999999998224", "a \" 1.5 \\", "\\\" -0.5", "\\\\", " 2.5e-07 ",
                "tab\tnewline\n\u0001\u0000 end", "caf\u00e9 \u20ac \ud83d\ude00", "{ \"d\" : 1.5 }"],
    "key \" 1.5 \\ \u0001 é": 1, "1.5": "1.5", "-0.5": [-1, 1]
  })");
  // (Code with an embedded NUL, dates after 9999 and nesting too deep to read back are not
  // libbson's text: tests/bson/json_round_trip_test.cpp.)
  EXPECT_EQ(doc.to_json(), libbson_json(doc));
}

TEST(JsonDoubles, DocumentsLibbsonCannotPrintStillThrow) {
  odm::Document bad;
  bson_append_utf8(bad.get_mutable(), "s", -1, "\xff", 1);
  EXPECT_THROW((void)bad.to_json(), odm::EncodeError);
  odm::Document bad_key;
  bson_append_int32(bad_key.get_mutable(), "\xc3\x28", -1, 1);
  EXPECT_THROW((void)bad_key.to_json(), odm::EncodeError);
}

/// Significant digits of a JSON number's text: its mantissa's digits without the zeros
/// before the first and after the last nonzero one.
std::size_t significant_digits(std::string_view number) {
  std::string digits;
  for (const char c : number.substr(0, number.find_first_of("eE")))
    if (c >= '0' && c <= '9') digits += c;
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 0;
  return digits.find_last_not_of('0') - first + 1;
}

TEST(JsonDoubles, RandomBitPatternsReadBackExactly) {
  std::mt19937_64 bits(20240611);  // the engine's sequence is fixed by the standard
  int checked = 0;
  for (int i = 0; i < 5000; ++i) {
    const double value = std::bit_cast<double>(bits());
    if (!std::isfinite(value)) continue;
    ++checked;
    odm::Document doc = one_double(value);
    bson_t array;
    bson_append_array_begin(doc.get_mutable(), "in", -1, &array);
    bson_append_double(&array, "0", -1, value);
    bson_append_array_end(doc.get_mutable(), &array);

    const std::string json = doc.to_json();
    SCOPED_TRACE(json);
    const odm::Document back = odm::Document::from_json(json);
    double read = 0;
    ASSERT_TRUE(double_at_d(back, read));
    ASSERT_EQ(std::bit_cast<std::uint64_t>(read), std::bit_cast<std::uint64_t>(value));
    ASSERT_EQ(back, doc);  // same bytes: the array's copy too, and both are doubles
    // Never more digits than a double needs (libbson printed 20), except that std::to_chars
    // writes a whole number in full when that is shorter than its exponent form
    // (-757449717349091377152.0); never longer than libbson's text.
    const std::string_view number = std::string_view(json).substr(8, json.find(',') - 8);
    const bool whole = number.ends_with(".0") && number.find_first_of("eE") == std::string_view::npos;
    ASSERT_TRUE(significant_digits(number) <= 17 || whole) << number;
    ASSERT_LE(json.size(), libbson_json(doc).size());
  }
  EXPECT_GT(checked, 4900);
}

TEST(JsonDoubles, RandomKeysAndStringsAreLeftAlone) {
  // Keys and strings made of the characters that matter (quotes, backslashes, digits,
  // points, exponents, spaces, control characters), between numbers of every kind.
  std::mt19937_64 random(7);
  const std::string_view alphabet = "\"\\ .-+eE0123456789:,{}[]\x01\n\t$nul";
  const auto text = [&] {
    std::string out;
    for (std::uint64_t n = random() % 12; n > 0; --n) out += alphabet[random() % alphabet.size()];
    return out;
  };
  for (int i = 0; i < 500; ++i) {
    odm::Document plain;  // no doubles: exactly libbson's text
    odm::Document mixed;  // the same with doubles: reads back as the same document
    for (int field = 0; field < 6; ++field) {
      const std::string key = text();
      const std::string value = text();
      for (odm::Document* doc : {&plain, &mixed}) {
        bson_append_utf8(doc->get_mutable(), key.c_str(), -1, value.data(), static_cast<int>(value.size()));
        bson_append_int64(doc->get_mutable(), value.c_str(), -1, static_cast<std::int64_t>(random()));
      }
      const double number = std::bit_cast<double>(random());
      bson_append_double(mixed.get_mutable(), key.c_str(), -1, std::isfinite(number) ? number : 0.5);
    }
    SCOPED_TRACE(libbson_json(mixed));
    ASSERT_EQ(plain.to_json(), libbson_json(plain));
    ASSERT_EQ(odm::Document::from_json(mixed.to_json()), mixed);
  }
}

}  // namespace bson_json_test
