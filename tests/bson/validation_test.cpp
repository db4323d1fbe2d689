// What Document::from_bytes and from_bson promise: the whole input is checked, every value
// type's UTF-8 included (code, symbol, DBPointer, regular expression, code with scope), the
// fields a model does not declare included; so to_json never throws on a document from_bytes
// accepted (except for the few Extended JSON cannot carry back: json_round_trip_test.cpp),
// and a corrupt document is never half-trusted.

#include "bson/hostile_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace bson_validation_test {

using odm_hostile::append_cstring;
using odm_hostile::append_int32;
using odm_hostile::append_string;
using odm_hostile::Bytes;
using odm_hostile::code_with_scope_value;
using odm_hostile::RawDocument;
using odm_hostile::string_value;

constexpr std::string_view kBad = "a\xff" "b";  // not UTF-8

Bytes regex_value(std::string_view pattern, std::string_view options) {
  Bytes out;
  append_cstring(out, pattern);
  append_cstring(out, options);
  return out;
}
Bytes dbpointer_value(std::string_view collection) {
  Bytes out = string_value(collection);
  out.insert(out.end(), 12, 0x11);
  return out;
}
const Bytes kEmptyScope = RawDocument().bytes();

struct Case {
  const char* name;
  Bytes value;       // the raw value of field "x"
  std::uint8_t type;
  const char* path;  // where from_bytes says the problem is
};

/// A value of every string-carrying type with invalid UTF-8 somewhere in it.
std::vector<Case> bad_values() {
  return {
      {"string", string_value(kBad), 0x02, "x"},
      {"code", string_value(kBad), 0x0D, "x"},
      {"symbol", string_value(kBad), 0x0E, "x"},
      {"dbpointer", dbpointer_value(kBad), 0x0C, "x"},
      {"regex pattern", regex_value(kBad, "i"), 0x0B, "x"},
      {"regex options", regex_value("a", kBad), 0x0B, "x"},
      {"code with scope: code", code_with_scope_value(kBad, kEmptyScope), 0x0F, "x"},
      {"code with scope: scope", code_with_scope_value("f()", RawDocument().string("s", kBad).bytes()), 0x0F, "x.s"},
      {"nested string", RawDocument().string("s", kBad).bytes(), 0x03, "x.s"},
      {"array element", RawDocument().string("0", kBad).bytes(), 0x04, "x.0"},
  };
}

/// A model that declares only `n`: `x` is skipped.
struct Shallow {
  std::int32_t n;
};

struct Declared {
  std::int32_t n;
  std::map<std::string, std::string> x;
};

struct WithArray {
  std::int32_t n;
  std::optional<std::vector<std::int32_t>> x;
};

Bytes with_x(std::uint8_t type, const Bytes& value) { return RawDocument().int32("n", 1).element(type, "x", value).bytes(); }

TEST(Validation, FromBytesChecksTheUtf8OfEveryValueType) {
  for (const Case& c : bad_values()) {
    SCOPED_TRACE(c.name);
    const Bytes bytes = with_x(c.type, c.value);
    try {
      (void)odm::Document::from_bytes(bytes);
      ADD_FAILURE() << "accepted";
    } catch (const odm::DecodeError& e) {
      EXPECT_EQ(e.path(), c.path) << e.what();
      EXPECT_NE(e.reason().find("not valid UTF-8"), std::string::npos) << e.what();
    }
  }
}

TEST(Validation, FromBsonChecksTheFieldsTheModelDoesNotDeclare) {
  for (const Case& c : bad_values()) {
    SCOPED_TRACE(c.name);
    const Bytes bytes = with_x(c.type, c.value);
    try {
      (void)odm::from_bson<Shallow>(std::span<const std::uint8_t>(bytes));
      ADD_FAILURE() << "accepted";
    } catch (const odm::DecodeError& e) {
      EXPECT_EQ(e.path(), c.path) << e.what();
    }
  }
}

/// A user type whose codec trusts what it reads (bson_iter_utf8 without a UTF-8 check).
struct Label {
  std::string text;
};

struct Labelled {
  std::int32_t n;
  Label x;
};

}  // namespace bson_validation_test

template <>
struct odm::codec<bson_validation_test::Label> {
  using kind = odm::kind_of<std::string>;
  static void encode(bson_t* parent, std::string_view key, const bson_validation_test::Label& l) {
    odm::codec<std::string>::encode(parent, key, l.text);
  }
  static void decode(const bson_iter_t& it, bson_validation_test::Label& out) {
    std::uint32_t length = 0;
    const char* text = bson_iter_utf8(&it, &length);
    out.text.assign(text, length);
  }
};

namespace bson_validation_test {

// Raw bytes get one level of checking, whoever reads them: from_bson<T>(bytes) refuses
// what Document::from_bytes refuses even where T's own codec would read the field
// unchecked (it only checked the length prefix, so the bad text reached the model).
TEST(Validation, FromBsonOfBytesChecksWhatAUserCodecWouldTrust) {
  const Bytes bytes = with_x(0x02, string_value(kBad));
  try {
    const Labelled read = odm::from_bson<Labelled>(std::span<const std::uint8_t>(bytes));
    ADD_FAILURE() << "accepted, read " << read.x.text.size() << " bytes of text";
  } catch (const odm::DecodeError& e) {
    EXPECT_EQ(e.path(), "x") << e.what();
    EXPECT_NE(e.reason().find("not valid UTF-8"), std::string::npos) << e.what();
  }
  const Bytes good = with_x(0x02, string_value("fine"));
  EXPECT_EQ(odm::from_bson<Labelled>(std::span<const std::uint8_t>(good)).x.text, "fine");
  // Both refuse a length prefix that does not match with the same words.
  Bytes short_by_one = good;
  short_by_one.pop_back();
  std::string by_document, by_model;
  try {
    (void)odm::Document::from_bytes(short_by_one);
  } catch (const odm::DecodeError& e) {
    by_document = e.what();
  }
  try {
    (void)odm::from_bson<Labelled>(std::span<const std::uint8_t>(short_by_one));
  } catch (const odm::DecodeError& e) {
    by_model = e.what();
  }
  EXPECT_FALSE(by_document.empty());
  EXPECT_EQ(by_model, by_document);
}

TEST(Validation, AnUnvalidatedDocumentWithBadUtf8CannotBePrinted) {
  for (const Case& c : bad_values()) {
    SCOPED_TRACE(c.name);
    const Bytes bytes = with_x(c.type, c.value);
    bson_t view;
    ASSERT_TRUE(bson_init_static(&view, bytes.data(), bytes.size()));
    const odm::Document unchecked = odm::Document::copy_of(&view);
    EXPECT_THROW((void)unchecked.to_json(), odm::EncodeError);
    EXPECT_THROW((void)unchecked.to_canonical_json(), odm::EncodeError);
  }
}

TEST(Validation, CorruptStructureInsideAnUndeclaredFieldIsADecodeError) {
  // {"n": 1, "x": {"s": <a string whose length runs past the end of x>}}: the top level
  // is consistent, so only a look inside x finds it.
  Bytes inner;
  append_int32(inner, 4 + 1 + 2 + 4 + 4 + 1);
  inner.push_back(0x02);
  append_cstring(inner, "s");
  append_int32(inner, 100);
  append_cstring(inner, "abc");
  inner.push_back(0);
  // A nested document whose length says 4 (libbson's iterator reads it as empty).
  Bytes too_short = {4, 0, 0, 0, 0};
  // A nested document whose last byte is not its terminator.
  Bytes unterminated = RawDocument().int32("a", 1).bytes();
  unterminated.back() = 7;
  for (const Bytes& x : {inner, too_short, unterminated}) {
    const Bytes bytes = with_x(0x03, x);
    const auto decoded = [&] { (void)odm::from_bson<Shallow>(std::span<const std::uint8_t>(bytes)); };
    EXPECT_THROW(decoded(), odm::DecodeError);
    EXPECT_THROW((void)odm::Document::from_bytes(bytes), odm::DecodeError);
  }
  // The same corruption where the model does declare the field.
  for (const Bytes& x : {inner, too_short, unterminated}) {
    const Bytes bytes = with_x(0x03, x);
    EXPECT_THROW((void)odm::from_bson<Declared>(std::span<const std::uint8_t>(bytes)), odm::DecodeError);
  }
}

TEST(Validation, InvalidUtf8InAFieldNameIsRefusedWhereverItIs) {
  const Bytes top = RawDocument().int32("n", 1).int32(kBad, 2).bytes();
  const Bytes in_array = RawDocument().int32("n", 1).document("x", RawDocument().int32(kBad, 2).bytes(), 0x04).bytes();
  for (const Bytes& bytes : {top, in_array}) {
    EXPECT_THROW((void)odm::Document::from_bytes(bytes), odm::DecodeError);
    EXPECT_THROW((void)odm::from_bson<Shallow>(std::span<const std::uint8_t>(bytes)), odm::DecodeError);
    EXPECT_THROW((void)odm::from_bson<WithArray>(std::span<const std::uint8_t>(bytes)), odm::DecodeError);
  }
}

TEST(Validation, EveryValueTypeFromBytesPrintsAndReadsBack) {
  // Valid values of the types that carry strings, written by hand: accepted, printed,
  // and read back as the same document.
  RawDocument doc;
  doc.int32("n", 7).string("s", "caf\xc3\xa9").string("code", "return 1;", 0x0D).string("symbol", "sym", 0x0E);
  doc.element(0x0C, "ptr", dbpointer_value("db.c"));
  doc.element(0x0B, "re", regex_value("^a.*\xc3\xa9", "im"));
  doc.element(0x0F, "cws", code_with_scope_value("f(x)", RawDocument().string("x", "\xe2\x82\xac").bytes()));
  const odm::Document accepted = odm::Document::from_bytes(doc.bytes());
  const std::string json = accepted.to_json();
  EXPECT_EQ(odm::Document::from_json(json), accepted) << json;
  EXPECT_EQ(odm::Document::from_json(accepted.to_canonical_json()), accepted);
  const Bytes bytes = doc.bytes();
  EXPECT_EQ(odm::from_bson<Shallow>(std::span<const std::uint8_t>(bytes)).n, 7);
}

}  // namespace bson_validation_test
