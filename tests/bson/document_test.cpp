// odm::Document: the one owner of a bson_t.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace bson_document_test {

TEST(Document, DefaultIsEmpty) {
  const odm::Document doc;
  EXPECT_TRUE(doc.empty());
  EXPECT_EQ(doc.size(), 5u);
  EXPECT_EQ(doc.to_json(), "{ }");
}

TEST(Document, CopiesDeeplyAndMovesLeaveAnEmptyDocument) {
  odm::Document a = odm_test::doc_from_json(R"({"a": 1})");
  odm::Document b = a;
  EXPECT_EQ(a, b);
  EXPECT_NE(a.get(), b.get());
  bson_append_int32(b.get_mutable(), "b", -1, 2);
  EXPECT_NE(a, b);
  odm::Document c = std::move(b);
  EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move): documented state
  EXPECT_EQ(odm_test::canonical(c), odm_test::canonical(R"({"a": 1, "b": 2})"));
  c = a;
  EXPECT_EQ(c, a);
}

TEST(Document, ReleaseHandsOverOwnership) {
  odm::Document doc = odm_test::doc_from_json(R"({"a": 1})");
  bson_t* raw = doc.release();
  EXPECT_TRUE(doc.empty());
  odm::Document back = odm::Document::adopt(raw);
  EXPECT_EQ(odm_test::canonical(back), odm_test::canonical(R"({"a": 1})"));
}

TEST(Document, CopyOf) {
  bson_t* raw = bson_new();
  bson_append_utf8(raw, "k", -1, "v", -1);
  const odm::Document copy = odm::Document::copy_of(raw);
  bson_destroy(raw);
  EXPECT_EQ(odm_test::canonical(copy), odm_test::canonical(R"({"k": "v"})"));
}

TEST(Document, FromBytesValidatesEverything) {
  const odm::Document good = odm_test::doc_from_json(R"({"a": {"b": ["x"]}})");
  EXPECT_EQ(odm::Document::from_bytes(good.bytes()), good);
  EXPECT_THROW((void)odm::Document::from_bytes({}), odm::DecodeError);
  std::vector<std::uint8_t> bytes = odm_test::bytes_of(good);
  bytes.back() = 1;
  EXPECT_THROW((void)odm::Document::from_bytes(bytes), odm::DecodeError);
  // Invalid UTF-8 deep inside is found up front.
  odm::Document bad;
  bson_t inner;
  bson_append_document_begin(bad.get_mutable(), "a", -1, &inner);
  bson_append_utf8(&inner, "b", -1, "\xff", 1);
  bson_append_document_end(bad.get_mutable(), &inner);
  EXPECT_THROW((void)odm::Document::from_bytes(bad.bytes()), odm::DecodeError);
}

TEST(Document, JsonOutput) {
  const odm::Document doc = odm_test::doc_from_json(R"({"n": 1, "l": {"$numberLong": "2"}, "d": 1.5})");
  EXPECT_EQ(doc.to_json(), R"({ "n" : 1, "l" : 2, "d" : 1.5 })");
  EXPECT_EQ(doc.to_canonical_json(),
            R"({ "n" : { "$numberInt" : "1" }, "l" : { "$numberLong" : "2" }, "d" : { "$numberDouble" : "1.5" } })");
}

}  // namespace bson_document_test
