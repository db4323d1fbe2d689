// odm::Document: the one owner of a bson_t.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
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

// Each thread keeps a few destroyed small documents for the next ones it makes
// (detail::new_document): whatever a document held before, a new one starts empty, a
// copy holds exactly its source, and a released one is the caller's to destroy. Under
// AddressSanitizer (scripts/test.sh) these also show that nothing is freed twice, used
// after it was freed, or leaked at a thread's exit.
TEST(Document, ANewDocumentIsEmptyWhateverTheDestroyedOnesHeld) {
  for (int round = 0; round < 50; ++round) {
    std::vector<odm::Document> made(12);
    for (std::size_t i = 0; i < made.size(); ++i) {
      // Small ones (bytes inside the struct) and, every third, one that grew past 120 bytes.
      const std::string text(i % 3 == 0 ? 200 : 3, 'x');
      bson_append_utf8(made[i].get_mutable(), "text", -1, text.c_str(), -1);
      bson_append_int32(made[i].get_mutable(), "i", -1, static_cast<std::int32_t>(i));
    }
    made.clear();
    odm::Document fresh;
    bson_t* out = fresh.get_mutable();
    EXPECT_TRUE(bson_empty(out));
    EXPECT_EQ(out->len, 5u);
    bson_append_int32(out, "n", -1, round);
    EXPECT_EQ(odm_test::canonical(fresh), odm_test::canonical("{\"n\": " + std::to_string(round) + "}"));
    const odm::Document copy = fresh;  // a small copy, made into a kept document
    EXPECT_EQ(copy, fresh);
    EXPECT_NE(copy.get(), fresh.get());
    bson_t* released = odm::Document(copy).release();
    EXPECT_TRUE(bson_equal(released, copy.get()));
    bson_destroy(released);
    odm::Document empty_released;
    bson_t* nothing = empty_released.release();
    EXPECT_TRUE(bson_empty(nothing));
    bson_destroy(nothing);
  }
}

TEST(Document, DocumentsLiveAndDieOnManyThreads) {
  // A document made on one thread and destroyed on another, and threads that end with
  // documents kept: each is destroyed exactly once.
  std::vector<odm::Document> handed_over;
  std::mutex mutex;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        odm::Document doc;
        bson_append_int32(doc.get_mutable(), "t", -1, t);
        bson_append_int32(doc.get_mutable(), "i", -1, i);
        if (i % 10 == 0) {
          const std::lock_guard lock(mutex);
          handed_over.push_back(std::move(doc));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(handed_over.size(), 80u);
  for (const odm::Document& doc : handed_over) {
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "i"));
    EXPECT_EQ(bson_iter_int32(&it) % 10, 0) << doc.to_json();
  }
  handed_over.clear();  // destroyed here, kept by this thread
  odm::Document after;
  EXPECT_TRUE(bson_empty(after.get_mutable()));
}

}  // namespace bson_document_test
