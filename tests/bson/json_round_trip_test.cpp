// to_json -> from_json is a round trip for every document odm can hold, and to_json refuses,
// naming the path, the few documents Extended JSON cannot carry back: dates after 9999 now
// print as {"$date": {"$numberLong": ...}}; a sub-document whose first key is a type
// wrapper's name, code or a DBPointer namespace with a NUL, regular expression options
// libbson's reader would reorder, and nesting its reader cannot read are refused.

#include "bson/hostile_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bson_json_round_trip_test {

using odm_hostile::Bytes;
using odm_hostile::RawDocument;

/// The relaxed text reads back as the same document, and so does the canonical text
/// (odm_hostile::json_round_trip_problem says how "the same" is meant).
::testing::AssertionResult reads_back(const odm::Document& doc);

odm::Document with_date(std::int64_t ms) {
  odm::Document doc;
  bson_append_date_time(doc.get_mutable(), "d", 1, ms);
  return doc;
}

TEST(JsonRoundTrip, DatesOfEveryYearReadBack) {
  constexpr std::int64_t year_10000 = 253402300800000;  // 10000-01-01T00:00:00Z
  EXPECT_EQ(with_date(year_10000).to_json(), R"({ "d" : { "$date" : { "$numberLong" : "253402300800000" } } })");
  EXPECT_EQ(with_date(year_10000 - 1).to_json(), R"({ "d" : { "$date" : "9999-12-31T23:59:59.999Z" } })");
  for (const std::int64_t ms : {std::int64_t{0}, std::int64_t{-1}, year_10000 - 1, year_10000, year_10000 + 1,
                                std::int64_t{4102444800123}, std::int64_t{32503680000000}, std::int64_t{1} << 60,
                                std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    SCOPED_TRACE(ms);
    EXPECT_TRUE(reads_back(with_date(ms)));
  }
}

struct Event {
  std::string name;
  std::chrono::sys_time<std::chrono::milliseconds> when;  // (nanoseconds end in 2262)
  bool operator==(const Event&) const = default;
};

TEST(JsonRoundTrip, AModelWithAFarDateReadsBack) {
  const Event far{"launch",
                  std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(400000000000000))};
  EXPECT_EQ(odm::from_json<Event>(odm::to_json(far)), far);
}

/// {"x": {<key>: "5"}}
odm::Document sub_document_with_first_key(std::string_view key) {
  odm::Document doc;
  bson_t child;
  bson_append_document_begin(doc.get_mutable(), "x", 1, &child);
  bson_append_utf8(&child, key.data(), static_cast<int>(key.size()), "5", 1);
  bson_append_document_end(doc.get_mutable(), &child);
  return doc;
}

TEST(JsonRoundTrip, ASubDocumentWhoseFirstKeyIsATypeWrapperIsRefused) {
  for (const char* key : {"$numberLong", "$numberInt", "$numberDouble", "$numberDecimal", "$date", "$oid", "$binary",
                          "$uuid", "$timestamp", "$minKey", "$maxKey", "$undefined", "$symbol", "$code", "$scope",
                          "$dbPointer", "$regularExpression"}) {
    SCOPED_TRACE(key);
    const odm::Document doc = sub_document_with_first_key(key);
    try {
      (void)doc.to_json();
      ADD_FAILURE() << "printed";
    } catch (const odm::EncodeError& e) {
      EXPECT_EQ(e.path(), "x");
      EXPECT_NE(e.reason().find(key), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)doc.to_canonical_json(), odm::EncodeError);
    // Where the reader does not take it as a wrapper, it prints and reads back: at the top
    // level, and after another key.
    odm::Document top;
    bson_append_utf8(top.get_mutable(), key, -1, "5", 1);
    EXPECT_TRUE(reads_back(top));
    odm::Document second;
    bson_t child;
    bson_append_document_begin(second.get_mutable(), "x", 1, &child);
    bson_append_int32(&child, "a", 1, 1);
    bson_append_utf8(&child, key, -1, "5", 1);
    bson_append_document_end(second.get_mutable(), &child);
    EXPECT_TRUE(reads_back(second));
  }
}

TEST(JsonRoundTrip, QueryOperatorsThatShareAWrappersNameStillPrint) {
  // $type, $regex and $options are query operators: filters must print. {"$type": "string"}
  // reads back as it was; {"$regex", "$options"} as a regular expression, which a query
  // matches the same way.
  odm::Document filter;  // built with libbson: from_json would already read the regex
  bson_t age;
  bson_append_document_begin(filter.get_mutable(), "age", -1, &age);
  bson_append_utf8(&age, "$type", -1, "string", -1);
  bson_append_document_end(filter.get_mutable(), &age);
  bson_t name;
  bson_append_document_begin(filter.get_mutable(), "name", -1, &name);
  bson_append_utf8(&name, "$regex", -1, "^a", -1);
  bson_append_utf8(&name, "$options", -1, "i", -1);
  bson_append_document_end(filter.get_mutable(), &name);
  EXPECT_EQ(filter.to_json(), R"({ "age" : { "$type" : "string" }, "name" : { "$regex" : "^a", "$options" : "i" } })");
  EXPECT_EQ(odm::Document::from_json(filter.to_json()),
            odm_test::doc_from_json(R"({"age": {"$type": "string"},
                                        "name": {"$regularExpression": {"pattern": "^a", "options": "i"}}})"));
}

TEST(JsonRoundTrip, ATypeOperatorThatTheReaderCannotReadIsRefusedWhenRead) {
  odm::Document filter;
  bson_t age;
  bson_append_document_begin(filter.get_mutable(), "age", -1, &age);
  bson_append_int32(&age, "$type", -1, 2);
  bson_append_document_end(filter.get_mutable(), &age);
  EXPECT_EQ(filter.to_json(), R"({ "age" : { "$type" : 2 } })");  // printed: it is a filter
  EXPECT_THROW((void)odm::Document::from_json(filter.to_json()), odm::JsonError);
}

TEST(JsonRoundTrip, FromJsonAlwaysReturnsValidBson) {
  // libbson's reader gives code in an array the key of an earlier field (here none, so a
  // stale byte that is not UTF-8); from_json numbers the array's elements again.
  const odm::Document doc =
      odm::Document::from_json(R"j({"a": [{"$code": "f()"}, 2, {"$code": "g()", "$scope": {}}]})j");
  EXPECT_NO_THROW((void)odm::Document::from_bytes(doc.bytes()));
  bson_iter_t it;
  bson_iter_t element;
  ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "a") && bson_iter_recurse(&it, &element));
  const std::pair<const char*, bson_type_t> expected[] = {
      {"0", BSON_TYPE_CODE}, {"1", BSON_TYPE_INT32}, {"2", BSON_TYPE_CODEWSCOPE}};
  for (const auto& [key, type] : expected) {
    ASSERT_TRUE(bson_iter_next(&element));
    EXPECT_STREQ(bson_iter_key(&element), key);
    EXPECT_EQ(bson_iter_type(&element), type);
  }
  EXPECT_FALSE(bson_iter_next(&element));
  // Printing it again is one of the refusals: the reader could not read it back right.
  EXPECT_THROW((void)doc.to_json(), odm::EncodeError);
}

/// What libbson's own reader says of `json`: nullopt when it reads it, else its message.
std::optional<std::string> libbson_refusal(const std::string& json) {
  bson_error_t error;
  bson_t* read = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json.data()),
                                    static_cast<ssize_t>(json.size()), &error);
  if (read == nullptr) return std::string(error.message);
  bson_destroy(read);
  return std::nullopt;
}

/// The bytes of what from_json makes of `json`, in hex, or "refused: <message>".
std::string outcome_of(const std::string& json) {
  try {
    std::string hex;
    for (const std::uint8_t byte : odm::Document::from_json(json).bytes()) {
      hex += "0123456789abcdef"[byte >> 4];
      hex += "0123456789abcdef"[byte & 15];
    }
    return hex;
  } catch (const odm::JsonError& e) {
    return std::string("refused: ") + e.what();
  }
}

TEST(JsonRoundTrip, ReadingATextWithCodeInAnArrayGivesTheSameResultEveryTime) {
  // libbson 1.23's reader names such an element with bytes of a buffer that, after a
  // short first key, is fresh memory: reading the same text failed now and then. A key
  // read once before makes the buffer's bytes those of that key; allocations between
  // readings make any fresh memory differ.
  const std::vector<std::string> texts = {
      R"j({"a": [{"$code": "f()"}]})j",
      R"j({"a": [{"$code": "f()"}, 2, {"$code": "g()", "$scope": {"x": 1}}]})j",
      R"j({"a": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, {"$code": "f()"}]})j",
      R"j({"longer_key_than_an_index": [{"x": 1}, {"$code": "f()"}], "b": [{"$dbPointer": {"$ref": "db.c", )j"
      R"j("$id": {"$oid": "0123456789abcdef01234567"}}}]})j",
  };
  for (const std::string& json : texts) {
    SCOPED_TRACE(json);
    const std::string first = outcome_of(json);
    for (int i = 0; i < 200; ++i) {
      const std::vector<std::string> churn(static_cast<std::size_t>(i % 7) + 1,
                                           std::string(static_cast<std::size_t>(i % 13) + 1, 'x'));
      ASSERT_EQ(outcome_of(json), first) << "reading " << i << " (" << churn.size() << " allocations between)";
    }
  }
  // The first two are read, with their elements numbered.
  const odm::Document one = odm::Document::from_json(texts[0]);
  bson_iter_t it;
  bson_iter_t element;
  ASSERT_TRUE(bson_iter_init_find(&it, one.get(), "a") && bson_iter_recurse(&it, &element) && bson_iter_next(&element));
  EXPECT_STREQ(bson_iter_key(&element), "0");
  EXPECT_EQ(bson_iter_type(&element), BSON_TYPE_CODE);
  bson_iter_t top;
  ASSERT_TRUE(bson_iter_init(&top, one.get()) && bson_iter_next(&top));
  EXPECT_STREQ(bson_iter_key(&top), "a");
  EXPECT_FALSE(bson_iter_next(&top)) << "the reading leaves no field of its own";
  EXPECT_NO_THROW((void)odm::Document::from_json(texts[1]));
}

TEST(JsonRoundTrip, TheWayAroundTheReadersCodeKeyChangesNothingElse) {
  // Texts that name $code or $dbPointer but hold none in an array read as libbson reads them.
  const std::vector<std::string> texts = {
      R"j({"s": "say \"$code\""})j",
      R"j({"x": {"$code": "f()"}})j",
      R"j({ "$code": "f()" })j",
      R"j({"$dbPointer": 1, "y": 2})j",
      R"j({"e": {}, "s": "\"$code\"", "n": [1, {"k": "v"}]})j",
  };
  for (const std::string& json : texts) {
    SCOPED_TRACE(json);
    bson_error_t error;
    bson_t* direct = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json.data()),
                                        static_cast<ssize_t>(json.size()), &error);
    if (direct == nullptr) {
      EXPECT_THROW((void)odm::Document::from_json(json), odm::JsonError);
      continue;
    }
    const odm::Document expected = odm::Document::copy_of(direct);
    bson_destroy(direct);
    EXPECT_EQ(odm::Document::from_json(json), expected);
  }
  // A text it cannot read is refused with the reader's message, its positions those of
  // the text as written.
  const auto refusal = [](const std::string& json) -> std::string {
    try {
      (void)odm::Document::from_json(json);
      return "read";
    } catch (const odm::JsonError& e) {
      return e.what();
    }
  };
  // The same error, at the same position, as the same text with a plain key of the same
  // length in place of "$code" (which libbson reads without the defect).
  const auto plain = [](std::string json) {
    for (std::size_t at = json.find("\"$code\""); at != std::string::npos; at = json.find("\"$code\"", at))
      json.replace(at, 7, "\"xcode\"");
    return json;
  };
  for (const std::string& json : {std::string(R"j({"a": [{"$code": "f()"}], })j"),
                                 std::string(R"j({"a": [{"$code": "f()"}]} trailing)j"),
                                 std::string(R"j({"a": [{"$code": "f()"}, {"$code": "g()"}, ]})j")}) {
    SCOPED_TRACE(json);
    const std::optional<std::string> expected = libbson_refusal(plain(json));
    ASSERT_TRUE(expected.has_value());
    for (int i = 0; i < 50; ++i) EXPECT_EQ(refusal(json), "invalid Extended JSON: " + *expected);
  }
  const std::string not_code = R"j({"a": {"$code": 1}})j";
  ASSERT_TRUE(libbson_refusal(not_code).has_value());
  EXPECT_EQ(refusal(not_code), "invalid Extended JSON: " + *libbson_refusal(not_code));
}

TEST(JsonRoundTrip, ValuesTheReaderWouldChangeAreRefusedNamingThePath) {
  const auto refused = [](const Bytes& bytes, const char* path) {
    const odm::Document doc = odm::Document::from_bytes(bytes);  // valid BSON
    try {
      (void)doc.to_json();
      return ::testing::AssertionFailure() << "printed " << doc.to_canonical_json();
    } catch (const odm::EncodeError& e) {
      if (e.path() != path) return ::testing::AssertionFailure() << e.what();
      return ::testing::AssertionSuccess() << e.what();
    }
  };
  Bytes code;
  odm_hostile::append_string(code, std::string_view("a\0b", 3));
  EXPECT_TRUE(refused(RawDocument().element(0x0D, "c", code).bytes(), "c"));
  Bytes pointer = code;
  pointer.insert(pointer.end(), 12, 1);
  EXPECT_TRUE(refused(RawDocument().document("a", RawDocument().element(0x0C, "p", pointer).bytes()).bytes(), "a.p"));
  Bytes unsorted;
  odm_hostile::append_cstring(unsorted, "a");
  odm_hostile::append_cstring(unsorted, "mi");
  EXPECT_TRUE(refused(RawDocument().element(0x0B, "r", unsorted).bytes(), "r"));
  // libbson's reader gives a DBPointer or code in an array an earlier field's key (or fails).
  Bytes clean_pointer;
  odm_hostile::append_string(clean_pointer, "db.c");
  clean_pointer.insert(clean_pointer.end(), 12, 1);
  EXPECT_TRUE(
      refused(RawDocument().document("list", RawDocument().element(0x0C, "0", clean_pointer).bytes(), 0x04).bytes(),
              "list.0"));
  EXPECT_TRUE(reads_back(odm::Document::from_bytes(RawDocument().element(0x0C, "p", clean_pointer).bytes())));
  Bytes js;
  odm_hostile::append_string(js, "f()");
  EXPECT_TRUE(refused(RawDocument().document("list", RawDocument().element(0x0D, "0", js).bytes(), 0x04).bytes(),
                      "list.0"));
  // libbson's reader makes code inside a scope a document.
  const Bytes scope = RawDocument().document("inner", RawDocument().string("f", "g()", 0x0D).bytes()).bytes();
  Bytes with_scope;
  odm_hostile::append_int32(with_scope, 4 + 4 + 5 + static_cast<std::int64_t>(scope.size()));
  odm_hostile::append_string(with_scope, "f(x)");
  with_scope.insert(with_scope.end(), scope.begin(), scope.end());
  EXPECT_TRUE(refused(RawDocument().element(0x0F, "cws", with_scope).bytes(), "cws.inner.f"));
  // A Decimal128 coefficient of 35 digits (not canonical: IEEE 754 reads it as zero) would
  // print as 35 digits, which no reader accepts.
  Bytes overlong(1, 0x13);
  odm_hostile::append_cstring(overlong, "d");
  const std::uint64_t ten34_low = 0x378D8E6400000000ull;
  const std::uint64_t ten34_high = 0x3040000000000000ull | 0x1ED09BEAD87C0ull;  // exponent 0
  for (int i = 0; i < 8; ++i) overlong.push_back(static_cast<std::uint8_t>(ten34_low >> (8 * i)));
  for (int i = 0; i < 8; ++i) overlong.push_back(static_cast<std::uint8_t>(ten34_high >> (8 * i)));
  Bytes overlong_doc = RawDocument().bytes();
  overlong_doc.insert(overlong_doc.begin() + 4, overlong.begin(), overlong.end());
  overlong_doc[0] = static_cast<std::uint8_t>(overlong_doc.size());
  EXPECT_TRUE(refused(overlong_doc, "d"));
  // A symbol keeps its NUL; sorted options are fine.
  EXPECT_TRUE(reads_back(odm::Document::from_bytes(RawDocument().element(0x0E, "s", code).bytes())));
  Bytes sorted;
  odm_hostile::append_cstring(sorted, "a");
  odm_hostile::append_cstring(sorted, "ilmsux");
  EXPECT_TRUE(reads_back(odm::Document::from_bytes(RawDocument().element(0x0B, "r", sorted).bytes())));
}

TEST(JsonRoundTrip, NestingDeeperThanTheReaderReadsIsRefused) {
  // libbson's reader reads 98 levels of objects and arrays; a type wrapper is a level too.
  const auto deep = [](std::size_t levels, const Bytes& innermost = {}) {
    return odm::Document::from_bytes(odm_hostile::nested_documents(levels, innermost));
  };
  EXPECT_TRUE(reads_back(deep(98)));
  EXPECT_THROW((void)deep(99).to_json(), odm::EncodeError);
  Bytes date(1, 0x09);
  odm_hostile::append_cstring(date, "d");
  date.insert(date.end(), 8, 0);  // 1970-01-01: {"$date": "..."} relaxed, {"$date": {"$numberLong"}} canonical
  EXPECT_NO_THROW((void)deep(97, date).to_json());
  EXPECT_EQ(odm::Document::from_json(deep(97, date).to_json()), deep(97, date));
  EXPECT_THROW((void)deep(97, date).to_canonical_json(), odm::EncodeError);
  EXPECT_NO_THROW((void)deep(96, date).to_canonical_json());
  try {
    (void)deep(100).to_json();
    ADD_FAILURE() << "printed";
  } catch (const odm::EncodeError& e) {
    EXPECT_NE(e.reason().find("98 levels"), std::string::npos) << e.what();
    EXPECT_EQ(e.depth(), 98u);
  }
}

// ---- randomized: documents of every BSON type, printed and read back --------------------

::testing::AssertionResult reads_back(const odm::Document& doc) {
  if (const auto problem = odm_hostile::json_round_trip_problem(doc)) return ::testing::AssertionFailure() << *problem;
  return ::testing::AssertionSuccess();
}

TEST(JsonRoundTrip, RandomDocumentsOfEveryTypeReadBack) {
  constexpr std::uint64_t kSeed = 20261107;
  odm_hostile::RandomDocuments documents(kSeed);
  for (int i = 0; i < 3000; ++i) {
    const odm::Document doc = documents.next();
    // Every document libbson builds passes from_bytes, and everything from_bytes accepts prints.
    const odm::Document validated = odm::Document::from_bytes(doc.bytes());
    ASSERT_TRUE(reads_back(validated)) << "seed " << kSeed << ", document " << i;
  }
}

}  // namespace bson_json_round_trip_test
