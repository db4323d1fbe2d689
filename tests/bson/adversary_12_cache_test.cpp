// Adversarial probes (issue 12) of the per-thread cache of destroyed small documents
// (odm::detail::new_document / free_document, odm/bson/document.cpp): what comes back
// from it is empty and independent, what is kept is small, and documents crossing
// threads, thread exit and static destruction are neither lost nor kept forever.
// Randomized cases use a fixed seed, printed, overridable with ODM_ADV12_SEED.

#include <odm/bson/document.hpp>
#include <odm/error.hpp>

#include <gtest/gtest.h>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

std::uint32_t seed_from_env() {
  if (const char* text = std::getenv("ODM_ADV12_SEED")) return static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10));
  return 20261128u;
}

/// Whether the document's bytes live outside its struct (a document that grew past the
/// 120 bytes bson_new keeps inline); a fresh bson_new() document keeps them inside.
bool bytes_outside(const bson_t* doc) {
  const auto* bytes = bson_get_data(doc);
  const auto* self = reinterpret_cast<const std::uint8_t*>(doc);
  return bytes < self || bytes >= self + sizeof(bson_t);
}

/// Takes every document this thread keeps (the cache holds at most 8), so that the next
/// new_document() is a fresh one unless something is kept in between.
using Taken = std::vector<void*>;  // bson_t* (a vector of it would drop its alignment attribute)
Taken drain() {
  Taken taken;
  for (int i = 0; i < 16; ++i) taken.push_back(odm::detail::new_document());
  return taken;
}
void give_back(Taken& taken) {
  for (void* doc : taken) bson_destroy(static_cast<bson_t*>(doc));
  taken.clear();
}

void fill(odm::Document& doc, std::size_t bytes, char c = 'x') {
  const std::string value(bytes, c);
  ASSERT_TRUE(bson_append_utf8(doc.get_mutable(), "v", 1, value.data(), static_cast<int>(value.size())));
}

void expect_empty(const bson_t* doc) {
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->len, 5u);
  const std::uint8_t empty[5] = {5, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(bson_get_data(doc), empty, 5), 0);
  EXPECT_EQ(bson_count_keys(doc), 0u);
}

// Documents destroyed in random sizes and orders come back empty, distinct and independent
// of each other (appending to one changes no other).
TEST(Adversary12Cache, KeptDocumentsComeBackEmptyAndIndependent) {
  const std::uint32_t seed = seed_from_env();
  SCOPED_TRACE("ODM_ADV12_SEED=" + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int round = 0; round < 200; ++round) {
    {
      std::vector<odm::Document> made(rng() % 12);
      for (auto& doc : made) fill(doc, rng() % 1100, static_cast<char>('a' + rng() % 26));
      std::shuffle(made.begin(), made.end(), rng);
    }  // destroyed: the small ones are kept
    std::vector<odm::Document> fresh(10);
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      expect_empty(fresh[i].get_mutable());
      ASSERT_TRUE(bson_append_int32(fresh[i].get_mutable(), "i", 1, static_cast<std::int32_t>(i)));
    }
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      EXPECT_EQ(bson_count_keys(fresh[i].get()), 1u);
      bson_iter_t it;
      ASSERT_TRUE(bson_iter_init_find(&it, fresh[i].get(), "i"));
      EXPECT_EQ(bson_iter_int32(&it), static_cast<std::int32_t>(i));
      for (std::size_t j = i + 1; j < fresh.size(); ++j) EXPECT_NE(fresh[i].get(), fresh[j].get());
    }
  }
}

// A kept document that had a big inline-overflow buffer takes appends past its old size
// correctly, and a copy made into a kept document equals its original (1024/1025 bytes).
TEST(Adversary12Cache, CopiesIntoKeptDocumentsAreExact) {
  for (std::size_t size = 990; size <= 1040; ++size) {
    SCOPED_TRACE("size " + std::to_string(size));
    { odm::Document warm; fill(warm, 200); }  // one kept document with its bytes on the heap
    odm::Document original;
    fill(original, size);
    const odm::Document copy = original;
    EXPECT_TRUE(copy == original);
    EXPECT_NE(copy.get(), original.get());
    ASSERT_TRUE(bson_append_int32(const_cast<bson_t*>(original.get()), "more", 4, 1));
    EXPECT_FALSE(copy == original);
    EXPECT_EQ(bson_count_keys(copy.get()), 1u);
  }
}

// A document longer than 1 KiB when destroyed is not kept.
TEST(Adversary12Cache, DocumentPastOneKiBIsNotKept) {
  Taken taken = drain();
  {
    odm::Document big;
    fill(big, 4096);
  }
  bson_t* next = odm::detail::new_document();
  EXPECT_FALSE(bytes_outside(next)) << "the 4 KiB document was kept";
  expect_empty(next);
  bson_destroy(next);
  give_back(taken);
}

// A document emptied with bson_reinit (its length is small again, its buffer is not) keeps
// a buffer as large as it ever was. The cache says a thread keeps at most a few KiB: such
// a document should not be kept with its large buffer.
TEST(Adversary12Cache, ReinitializedBigDocumentIsNotKeptWithItsBuffer) {
  Taken taken = drain();
  {
    odm::Document big;
    fill(big, 1 << 20);
    bson_reinit(big.get_mutable());  // emptied in place, as bson_reinit allows
  }
  bson_t* next = odm::detail::new_document();
  const bool kept_big = bytes_outside(next) && malloc_usable_size(const_cast<std::uint8_t*>(bson_get_data(next))) > 64 * 1024;
  const std::size_t usable = bytes_outside(next) ? malloc_usable_size(const_cast<std::uint8_t*>(bson_get_data(next))) : 0;
  expect_empty(next);
  bson_destroy(next);
  give_back(taken);
  EXPECT_FALSE(kept_big) << "a 1 MiB document emptied by bson_reinit was kept by the per-thread cache with its "
                         << usable << "-byte buffer";
}

// The other side of the same check: a document that grew to a few hundred bytes, its
// buffer on the heap, is kept with that buffer (the reuse the cache exists for), and so is
// one emptied by bson_reinit after it did; the buffer's size is read, not guessed.
TEST(Adversary12Cache, GrownSmallDocumentIsKeptWithItsBuffer) {
  for (const bool emptied : {false, true}) {
    Taken taken = drain();
    {
      odm::Document grown;
      fill(grown, 600);
      if (emptied) bson_reinit(grown.get_mutable());
    }
    bson_t* next = odm::detail::new_document();
    EXPECT_TRUE(bytes_outside(next)) << "a 600-byte document was not kept" << (emptied ? " after bson_reinit" : "");
    expect_empty(next);
    bson_destroy(next);
    give_back(taken);
  }
}

// A document whose child was left open by an exception (IN_CHILD) is not kept, and does not
// poison the cache.
TEST(Adversary12Cache, DocumentWithAnOpenChildIsDestroyedNotKept) {
  Taken taken = drain();
  bson_t child;
  try {
    odm::Document doc;
    fill(doc, 300);
    ASSERT_TRUE(bson_append_document_begin(doc.get_mutable(), "child", 5, &child));
    ASSERT_TRUE(bson_append_int32(&child, "a", 1, 1));
    throw std::runtime_error("between begin and end");
  } catch (const std::runtime_error&) {
  }
  bson_t* next = odm::detail::new_document();
  EXPECT_FALSE(bytes_outside(next)) << "a document with an open child was kept";
  expect_empty(next);
  ASSERT_TRUE(bson_append_int32(next, "x", 1, 1));
  bson_destroy(next);
  give_back(taken);
}

// Exceptions between making and destroying documents leave the next ones empty.
TEST(Adversary12Cache, ExceptionsBetweenMakeAndDestroy) {
  for (int i = 0; i < 50; ++i) {
    try {
      odm::Document a;
      fill(a, static_cast<std::size_t>(i * 17 % 900));
      odm::Document b = a;
      odm::Document c = std::move(a);
      throw odm::ValueError("thrown with three documents alive");
    } catch (const odm::ValueError&) {
    }
    odm::Document next;
    expect_empty(next.get_mutable());
  }
}

// bson_steal of a released document, and a moved document: the released one is owned by
// the caller, the moved-from one is empty and gets its own document.
TEST(Adversary12Cache, ReleasedStolenAndMovedDocuments) {
  { odm::Document warm; fill(warm, 200); }
  odm::Document doc;
  fill(doc, 150);
  bson_t stolen;
  ASSERT_TRUE(bson_steal(&stolen, doc.release()));  // frees the released struct, keeps the bytes
  EXPECT_TRUE(doc.empty());
  EXPECT_EQ(bson_count_keys(&stolen), 1u);
  odm::Document moved_to = std::move(doc);
  fill(doc, 10);  // NOLINT(bugprone-use-after-move): a moved-from Document is {} and usable
  fill(moved_to, 20);
  EXPECT_NE(doc.get(), moved_to.get());
  EXPECT_EQ(bson_count_keys(doc.get()), 1u);
  EXPECT_EQ(bson_count_keys(moved_to.get()), 1u);
  bson_destroy(&stolen);
  bson_t* released = odm::Document().release();  // from an empty Document: a new heap document
  expect_empty(released);
  odm::Document adopted = odm::Document::adopt(released);
  fill(adopted, 5);
}

// Documents made on one thread and destroyed on another, many threads at once; and
// threads that end with documents kept (freed by their exit: LeakSanitizer checks it).
TEST(Adversary12Cache, DocumentsCrossingThreads) {
  const std::uint32_t seed = seed_from_env();
  SCOPED_TRACE("ODM_ADV12_SEED=" + std::to_string(seed));
  constexpr int threads = 4;
  std::vector<std::vector<odm::Document>> handed(threads);
  std::atomic<int> failures{0};
  {
    std::vector<std::thread> makers;
    for (int t = 0; t < threads; ++t)
      makers.emplace_back([&, t] {
        std::mt19937 rng(seed + static_cast<std::uint32_t>(t));
        for (int i = 0; i < 300; ++i) {
          odm::Document doc;
          const std::string value(rng() % 1200, static_cast<char>('a' + t));
          bson_append_utf8(doc.get_mutable(), "t", 1, value.data(), static_cast<int>(value.size()));
          if (i % 2 == 0) handed[static_cast<std::size_t>(t)].push_back(std::move(doc));
          odm::Document empty;
          if (empty.get_mutable()->len != 5) failures.fetch_add(1);
        }
      });
    for (auto& m : makers) m.join();
  }
  {
    std::vector<std::thread> destroyers;
    for (int t = 0; t < threads; ++t)
      destroyers.emplace_back([&, t] {
        std::vector<odm::Document> mine = std::move(handed[static_cast<std::size_t>((t + 1) % threads)]);
        for (const auto& doc : mine) {
          bson_iter_t it;
          if (!bson_iter_init_find(&it, doc.get(), "t")) failures.fetch_add(1);
        }
        mine.clear();  // kept by this thread, then freed when it ends
        for (int i = 0; i < 100; ++i) {
          odm::Document fresh;
          if (fresh.get_mutable()->len != 5 || bson_count_keys(fresh.get()) != 0) failures.fetch_add(1);
          bson_append_int32(fresh.get_mutable(), "i", 1, i);
        }
      });
    for (auto& d : destroyers) d.join();
  }
  EXPECT_EQ(failures.load(), 0);
}

// A thread_local Document destroyed after the thread's cache was released (constructed
// before the cache's release object), and one destroyed before it.
struct HoldsDocument {
  odm::Document doc;
};
TEST(Adversary12Cache, ThreadLocalDocumentsAtThreadExit) {
  for (int order = 0; order < 2; ++order) {
    std::thread([order] {
      if (order == 0) {
        // Constructed before anything is kept: destroyed after the cache's release.
        thread_local HoldsDocument early;
        fill(early.doc, 200);
        { odm::Document kept; fill(kept, 150); }
      } else {
        { odm::Document kept; fill(kept, 150); }
        thread_local HoldsDocument late;  // destroyed before the cache's release
        fill(late.doc, 200);
      }
    }).join();
  }
  odm::Document after;
  expect_empty(after.get_mutable());
}

// A Document destroyed during static destruction on a thread that never kept anything
// before: the cache's release was never armed, and arming it during exit registers a
// thread_local destructor that never runs, so the document would be kept forever (a leak
// at exit). Run in a child process (this binary again, only this test), observed from an
// atexit handler registered before the static, which runs after the static's destructor.
void look_at_cache_after_static_destruction() {
  bson_t* next = odm::detail::new_document();
  if (bytes_outside(next)) std::_Exit(3);  // the static's document is kept, and never freed
  bson_destroy(next);
  std::_Exit(0);
}
TEST(Adversary12Cache, DocumentDestroyedDuringStaticDestructionIsNotKept) {
  if (std::getenv("ODM_ADV12_STATIC_CHILD") != nullptr) {
    std::atexit(look_at_cache_after_static_destruction);
    static odm::Document at_exit = [] {
      odm::Document d;
      fill(d, 300);
      return d;
    }();
    std::exit(0);
  }
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  const std::string command = std::string("ODM_ADV12_STATIC_CHILD=1 '") + self +
                              "' --gtest_filter=Adversary12Cache.DocumentDestroyedDuringStaticDestructionIsNotKept "
                              ">/dev/null 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "the child did not exit normally: " << status;
  const int code = WEXITSTATUS(status);
  EXPECT_EQ(code, 0) << (code == 3 ? "a Document destroyed during static destruction was kept by the cache, and "
                                      "is never freed"
                                    : "the child failed");
}

}  // namespace
