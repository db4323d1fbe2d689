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
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace bson_json_round_trip_test {

using odm_hostile::Bytes;
using odm_hostile::RawDocument;

/// The relaxed text reads back as the same document, and so does the canonical text.
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
  const Event far{"launch", std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(400000000000000))};
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
            odm_test::doc_from_json(R"({"age": {"$type": "string"}, "name": {"$regularExpression": {"pattern": "^a", "options": "i"}}})"));
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
  EXPECT_TRUE(refused(RawDocument().document("list", RawDocument().element(0x0C, "0", clean_pointer).bytes(), 0x04).bytes(),
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

/// An int64 that fits in 32 bits reads back from relaxed JSON as an int32 (the relaxed
/// format writes both as a plain number, and the reader takes the smallest type): the one
/// change relaxed Extended JSON makes. The same document with that change made.
odm::Document narrowed(const bson_t* doc) {
  odm::Document out;
  bson_iter_t it;
  bson_iter_init(&it, doc);
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const int key_length = static_cast<int>(bson_iter_key_len(&it));
    bson_t* target = out.get_mutable();
    switch (bson_iter_type(&it)) {
      case BSON_TYPE_INT64: {
        const std::int64_t value = bson_iter_int64(&it);
        if (value >= INT32_MIN && value <= INT32_MAX)
          bson_append_int32(target, key, key_length, static_cast<std::int32_t>(value));
        else
          bson_append_int64(target, key, key_length, value);
        break;
      }
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY: {
        bson_t child;
        bson_iter_t inner;
        bson_iter_recurse(&it, &inner);
        const std::uint8_t* data = nullptr;
        std::uint32_t length = 0;
        if (BSON_ITER_HOLDS_DOCUMENT(&it))
          bson_iter_document(&it, &length, &data);
        else
          bson_iter_array(&it, &length, &data);
        bson_init_static(&child, data, length);
        const odm::Document converted = narrowed(&child);
        if (BSON_ITER_HOLDS_DOCUMENT(&it))
          bson_append_document(target, key, key_length, converted.get());
        else
          bson_append_array(target, key, key_length, converted.get());
        break;
      }
      case BSON_TYPE_CODEWSCOPE: {
        std::uint32_t code_length = 0;
        std::uint32_t scope_length = 0;
        const std::uint8_t* scope_data = nullptr;
        const char* code = bson_iter_codewscope(&it, &code_length, &scope_length, &scope_data);
        bson_t scope;
        bson_init_static(&scope, scope_data, scope_length);
        bson_append_code_with_scope(target, key, key_length, code, narrowed(&scope).get());
        break;
      }
      default: bson_append_iter(target, key, key_length, &it);
    }
  }
  return out;
}

::testing::AssertionResult reads_back(const odm::Document& doc) {
  std::string relaxed;
  std::string canonical;
  try {
    relaxed = doc.to_json();
    canonical = doc.to_canonical_json();
  } catch (const odm::Error& e) {
    return ::testing::AssertionFailure() << "cannot print: " << e.what();
  }
  try {
    // The canonical text: the same document (same canonical text: NaN payloads and
    // non-canonical Decimal128 encodings are the one thing it does not keep).
    const odm::Document from_canonical = odm::Document::from_json(canonical);
    if (from_canonical.to_canonical_json() != canonical)
      return ::testing::AssertionFailure() << "canonical text reads back as " << from_canonical.to_canonical_json()
                                           << "\n  not " << canonical;
    const odm::Document from_relaxed = odm::Document::from_json(relaxed);
    const std::string expected = narrowed(doc.get()).to_canonical_json();
    if (from_relaxed.to_canonical_json() != expected)
      return ::testing::AssertionFailure() << "relaxed text " << relaxed << "\n  reads back as "
                                           << from_relaxed.to_canonical_json() << "\n  not " << expected;
  } catch (const odm::Error& e) {
    return ::testing::AssertionFailure() << relaxed << " does not read back: " << e.what();
  }
  return ::testing::AssertionSuccess();
}

/// Random documents with every BSON type and tricky values (NaN payloads, -0.0, far dates,
/// non-canonical decimals, NUL in strings and symbols, the extremes of every integer).
class RandomDocuments {
 public:
  explicit RandomDocuments(std::uint64_t seed) : random_(seed) {}

  /// (JavaScript code inside a scope is one of the things to_json refuses: never made here.)
  odm::Document next(int depth = 0, bool in_scope = false, bool in_array = false) {
    odm::Document doc;
    const std::size_t fields = random_() % 6;
    for (std::size_t i = 0; i < fields; ++i) append(doc.get_mutable(), key(), depth, in_scope, in_array);
    return doc;
  }

 private:
  std::string text(bool allow_nul) {
    static constexpr std::string_view pieces[] = {"a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x7f",
                                                  "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "$", ".", "{", "0",
                                                  "1.5", "\0"};
    std::string out;
    for (std::size_t n = random_() % 8; n > 0; --n) {
      const std::string_view piece = pieces[random_() % std::size(pieces)];
      if (!allow_nul && piece == std::string_view("\0", 1)) continue;
      out += piece;
    }
    return out;
  }
  std::string key() {
    std::string k = text(false);
    if (!k.empty() && k.front() == '$') k.insert(k.begin(), 'k');  // never a wrapper's name
    return k;
  }
  std::int64_t integer() {
    static constexpr std::int64_t edges[] = {0, 1, -1, INT32_MAX, INT32_MIN, std::int64_t{INT32_MAX} + 1,
                                             std::int64_t{INT32_MIN} - 1, INT64_MAX, INT64_MIN};
    return random_() % 2 == 0 ? edges[random_() % std::size(edges)] : static_cast<std::int64_t>(random_());
  }
  double number() {
    static constexpr double edges[] = {0.0, -0.0, 1.0, 7.3, 1e300, -5e-324, 0.1, 123456789.0};
    switch (random_() % 3) {
      case 0: return edges[random_() % std::size(edges)];
      case 1: return std::bit_cast<double>(random_());  // NaN payloads and infinities included
      default: return static_cast<double>(static_cast<std::int64_t>(random_() % 2000000) - 1000000) / 8;
    }
  }

  void append(bson_t* doc, const std::string& k, int depth, bool in_scope, bool in_array) {
    const char* key = k.c_str();
    const int length = static_cast<int>(k.size());
    std::uint64_t type = random_() % (depth < 4 ? 21 : 18);
    if ((in_scope || in_array) && (type == 10 || type == 20)) type = 1;
    switch (type) {
      case 0: bson_append_double(doc, key, length, number()); break;
      case 1: {
        const std::string s = text(true);
        bson_append_utf8(doc, key, length, s.data(), static_cast<int>(s.size()));
        break;
      }
      case 2: {
        std::vector<std::uint8_t> bytes(random_() % 20);
        for (auto& b : bytes) b = static_cast<std::uint8_t>(random_());
        static constexpr bson_subtype_t subtypes[] = {BSON_SUBTYPE_BINARY, BSON_SUBTYPE_UUID, BSON_SUBTYPE_MD5,
                                                      BSON_SUBTYPE_USER, BSON_SUBTYPE_BINARY_DEPRECATED,
                                                      static_cast<bson_subtype_t>(0x07)};
        bson_append_binary(doc, key, length, subtypes[random_() % std::size(subtypes)], bytes.data(),
                           static_cast<std::uint32_t>(bytes.size()));
        break;
      }
      case 3: bson_append_undefined(doc, key, length); break;
      case 4: {
        bson_oid_t oid;
        for (auto& b : oid.bytes) b = static_cast<std::uint8_t>(random_());
        bson_append_oid(doc, key, length, &oid);
        break;
      }
      case 5: bson_append_bool(doc, key, length, random_() % 2 == 0); break;
      case 6: bson_append_date_time(doc, key, length, integer()); break;
      case 7: bson_append_null(doc, key, length); break;
      case 8: {
        std::string pattern = text(false);
        static constexpr const char* options[] = {"", "i", "im", "ilmsux", "msx", "u"};
        bson_append_regex(doc, key, length, pattern.c_str(), options[random_() % std::size(options)]);
        break;
      }
      case 9: {  // (never in an array: to_json refuses that)
        if (in_array) {
          bson_append_null(doc, key, length);
          break;
        }
        bson_oid_t oid;
        for (auto& b : oid.bytes) b = static_cast<std::uint8_t>(random_());
        bson_append_dbpointer(doc, key, length, text(false).c_str(), &oid);
        break;
      }
      case 10: bson_append_code(doc, key, length, text(false).c_str()); break;
      case 11: {
        const std::string s = text(true);
        bson_append_symbol(doc, key, length, s.data(), static_cast<int>(s.size()));
        break;
      }
      case 12: bson_append_int32(doc, key, length, static_cast<std::int32_t>(integer())); break;
      case 13: bson_append_timestamp(doc, key, length, static_cast<std::uint32_t>(random_()), static_cast<std::uint32_t>(random_())); break;
      case 14: bson_append_int64(doc, key, length, integer()); break;
      case 15: {
        bson_decimal128_t value{random_(), random_()};
        if (random_() % 2 == 0) value.high &= 0x0000FFFFFFFFFFFFull | (random_() % 2 == 0 ? 0x3040000000000000ull : 0xB040000000000000ull);
        // (Never a coefficient of 35 digits, which to_json refuses: below 2^112.)
        if (((value.high >> 61) & 3) != 3) value.high &= ~(std::uint64_t{1} << 48);
        bson_append_decimal128(doc, key, length, &value);
        break;
      }
      case 16: bson_append_minkey(doc, key, length); break;
      case 17: bson_append_maxkey(doc, key, length); break;
      case 18: bson_append_document(doc, key, length, next(depth + 1, in_scope).get()); break;
      case 19: {
        const odm::Document fields = next(depth + 1, in_scope, true);
        odm::Document array;  // the same values under the keys an array has
        bson_iter_t it;
        bson_iter_init(&it, fields.get());
        for (int i = 0; bson_iter_next(&it); ++i)
          bson_append_iter(array.get_mutable(), std::to_string(i).c_str(), -1, &it);
        bson_append_array(doc, key, length, array.get());
        break;
      }
      default: bson_append_code_with_scope(doc, key, length, text(false).c_str(), next(depth + 1, true).get()); break;
    }
  }

  std::mt19937_64 random_;
};

TEST(JsonRoundTrip, RandomDocumentsOfEveryTypeReadBack) {
  constexpr std::uint64_t kSeed = 20261107;
  RandomDocuments documents(kSeed);
  for (int i = 0; i < 3000; ++i) {
    const odm::Document doc = documents.next();
    // Every document libbson builds passes from_bytes, and everything from_bytes accepts prints.
    const odm::Document validated = odm::Document::from_bytes(doc.bytes());
    ASSERT_TRUE(reads_back(validated)) << "seed " << kSeed << ", document " << i;
  }
}

}  // namespace bson_json_round_trip_test
