// std::string: BSON string, UTF-8 checked in both directions, embedded NUL kept.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bson_strings_test {

using namespace std::string_literals;
using odm_test::decode;
using odm_test::encode_error;

struct Text {
  std::string s;
  bool operator==(const Text&) const = default;
};

struct Tagged {
  struct Inner {
    std::vector<std::string> tags;
    bool operator==(const Inner&) const = default;
  };
  Inner inner;
  bool operator==(const Tagged&) const = default;
};

/// A document {key: <string of these exact bytes>}, built with libbson directly (its
/// append functions do not validate).
odm::Document with_raw_string(const char* key, const std::string& bytes) {
  odm::Document doc;
  bson_append_utf8(doc.get_mutable(), key, -1, bytes.data(), static_cast<int>(bytes.size()));
  return doc;
}

/// {"inner": {"tags": ["ok", <bytes>]}}
odm::Document tags_with_raw_string(const std::string& bytes) {
  odm::Document doc;
  bson_t inner, tags;
  bson_append_document_begin(doc.get_mutable(), "inner", -1, &inner);
  bson_append_array_begin(&inner, "tags", -1, &tags);
  bson_append_utf8(&tags, "0", -1, "ok", -1);
  bson_append_utf8(&tags, "1", -1, bytes.data(), static_cast<int>(bytes.size()));
  bson_append_array_end(&inner, &tags);
  bson_append_document_end(doc.get_mutable(), &inner);
  return doc;
}

std::string decode_error_of(const odm::Document& doc) {
  return odm_test::error_of([&] { (void)odm::from_bson<Tagged>(doc); });
}

TEST(Strings, RoundTripUtf8) {
  for (const std::string& s : {""s, "plain"s, "Lumière"s, "岳云鹏"s, "Сэмми"s, "😀"s, std::string(10000, 'x')}) {
    EXPECT_EQ(odm_test::round_trip(Text{s}), Text{s});
  }
  EXPECT_EQ(odm_test::encoded(Text{"Lumière"}), odm_test::canonical(R"({"s": "Lumière"})"));
}

TEST(Strings, EmbeddedNulIsKept) {
  const Text text{"a\0b\0"s};
  ASSERT_EQ(text.s.size(), 4u);
  const odm::Document doc = odm::to_bson(text);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "s"));
  std::uint32_t length = 0;
  const char* data = bson_iter_utf8(&it, &length);
  EXPECT_EQ(std::string(data, length), "a\0b\0"s);
  EXPECT_EQ(odm::from_bson<Text>(doc), text);
  EXPECT_EQ(decode<Text>(R"({"s": "x\u0000y"})").s, "x\0y"s);
}

TEST(Strings, InvalidUtf8IsRefusedOnDecodeWithItsPath) {
  EXPECT_EQ(decode_error_of(tags_with_raw_string("\xff")), "inner.tags.1: string is not valid UTF-8");
  EXPECT_EQ(decode_error_of(tags_with_raw_string("caf\xc3")), "inner.tags.1: string is not valid UTF-8");
  EXPECT_EQ(decode_error_of(tags_with_raw_string("\xed\xa0\x80")), "inner.tags.1: string is not valid UTF-8");
  EXPECT_EQ(decode_error_of(tags_with_raw_string("\xf4\x90\x80\x80")), "inner.tags.1: string is not valid UTF-8");
  EXPECT_EQ(odm_test::error_of([] { (void)odm::from_bson<Text>(with_raw_string("s", "\x80")); }),
            "s: string is not valid UTF-8");
}

TEST(Strings, InvalidUtf8IsRefusedOnEncodeWithItsPath) {
  EXPECT_EQ(encode_error(Text{"\xff"}), "s: string is not valid UTF-8");
  EXPECT_EQ(encode_error(Tagged{{{"ok", "ok", "bad\xc3("}}}), "inner.tags.2: string is not valid UTF-8");
  try {
    (void)odm::to_bson(Tagged{{{"\xfe"}}});
    FAIL() << "no error";
  } catch (const odm::EncodeError& e) {
    EXPECT_EQ(e.path(), "inner.tags.0");
    EXPECT_EQ(e.reason(), "string is not valid UTF-8");
  }
}

TEST(Strings, OverlongNulIsNotUtf8) {
  // "\xC0\x80" is the "modified UTF-8" spelling of NUL, which UTF-8 forbids (an overlong
  // sequence). libbson's bson_utf8_validate(..., allow_null = true) lets it through;
  // odm must not, or it stores and hands back bytes that are not UTF-8.
  EXPECT_EQ(encode_error(Text{"\xc0\x80"}), "s: string is not valid UTF-8");
  EXPECT_EQ(odm_test::error_of([] { (void)odm::from_bson<Text>(with_raw_string("s", "\xc0\x80")); }),
            "s: string is not valid UTF-8");
}

TEST(Strings, WrongTypeIsAnError) {
  EXPECT_EQ(odm_test::decode_error<Text>(R"({"s": 1})"), "s: expected string, got int");
  EXPECT_EQ(odm_test::decode_error<Text>(R"({"s": null})"), "s: expected string, got null");
  EXPECT_EQ(odm_test::decode_error<Text>(R"({"s": {"$symbol": "x"}})"), "s: expected string, got symbol");
}

}  // namespace bson_strings_test
