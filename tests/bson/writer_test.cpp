// A child document or array is closed on every way out: when encoding throws deep inside
// nested documents, the caller's bson_t can still be appended to (libbson aborts the
// process on an append to a document whose child is still open).

#include "test_support.hpp"

#include <odm/bson/writer.hpp>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Inner {
  std::string name;
  std::map<std::string, std::int32_t> counts;
};

struct Outer {
  std::int32_t id = 0;
  std::vector<Inner> inners;
};

/// Owns a stack bson_t for the test.
struct StackDocument {
  bson_t doc = BSON_INITIALIZER;
  StackDocument() = default;
  StackDocument(const StackDocument&) = delete;
  StackDocument& operator=(const StackDocument&) = delete;
  ~StackDocument() { bson_destroy(&doc); }
};

TEST(WriterTest, EncodeIntoThatThrowsLeavesTheCallersDocumentAppendable) {
  StackDocument out;
  ASSERT_TRUE(bson_append_int32(&out.doc, "before", -1, 1));
  // The bad key is three children deep: inners (array) > 0 (document) > counts (document).
  const Outer value{7, {Inner{"a", {{"ok", 1}}}, Inner{"b", {{"$gt", 2}}}}};
  try {
    odm::encode_into(&out.doc, value);
    ADD_FAILURE() << "no error";
  } catch (const odm::EncodeError& e) {
    EXPECT_STREQ(e.what(), "inners.1.counts: map key \"$gt\" starts with '$', so MongoDB would read it as an operator");
  }
  ASSERT_TRUE(bson_append_int32(&out.doc, "after", -1, 2));
  EXPECT_TRUE(bson_validate(&out.doc, BSON_VALIDATE_NONE, nullptr));
  // What was written before the error stays, closed, and the caller's field follows it.
  EXPECT_EQ(odm_test::canonical(&out.doc),
            odm_test::canonical(R"({"before": 1, "_id": 7, "inners": [{"name": "a", "counts": {"ok": 1}},
                                                                   {"name": "b", "counts": {}}], "after": 2})"));
}

TEST(WriterTest, ChildIsClosedWhenAnExceptionLeavesItsScope) {
  StackDocument out;
  try {
    odm::detail::ChildWriter array(&out.doc, "list", odm::detail::ChildWriter::Kind::array);
    ASSERT_TRUE(bson_append_int32(array.get(), "0", 1, 5));
    odm::detail::ChildWriter inner(array.get(), "1");
    throw std::runtime_error("stop");
  } catch (const std::runtime_error&) {
  }
  ASSERT_TRUE(bson_append_utf8(&out.doc, "next", -1, "x", -1));
  EXPECT_EQ(odm_test::canonical(&out.doc), odm_test::canonical(R"({"list": [5, {}], "next": "x"})"));
}

TEST(WriterTest, CloseWritesTheChildOnce) {
  StackDocument out;
  {
    odm::detail::ChildWriter child(&out.doc, "a");
    ASSERT_TRUE(bson_append_bool(child.get(), "x", 1, true));
    child.close();
  }  // the destructor does not close it again
  ASSERT_TRUE(bson_append_int32(&out.doc, "b", 1, 1));
  EXPECT_EQ(odm_test::canonical(&out.doc), odm_test::canonical(R"({"a": {"x": true}, "b": 1})"));
}

}  // namespace
