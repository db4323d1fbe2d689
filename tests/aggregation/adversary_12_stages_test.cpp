// Adversarial probes (issue 12) of the typed pipeline's one-buffer stage writer
// (odm::detail::StageList in include/odm/aggregation/stages.hpp, odm/aggregation/
// aggregation.cpp): growth across the 512 bytes kept inline, copies and moves at every
// size, stages that fail half written, many and huge stages, and the bytes compared
// with the same array written with libbson. Randomized cases use a fixed seed, printed,
// overridable with ODM_ADV12_SEED.

#include "aggregation/aggregation_models.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using namespace agg_test;
using odm::field;
using odm::detail::StageList;
namespace agg = odm::agg;

std::uint32_t seed_from_env() {
  if (const char* text = std::getenv("ODM_ADV12_SEED")) return static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10));
  return 20261128u;
}

std::uint32_t read_le32(const std::uint8_t* at) {
  std::uint32_t v = 0;
  std::memcpy(&v, at, 4);
  return BSON_UINT32_FROM_LE(v);
}

/// Checks the raw bytes of a document or array at every nesting level: the length field,
/// the terminator, every element's extent, and (for arrays) the keys 0, 1, 2, ...
/// Returns an empty string when well formed, else what is wrong and where.
std::string check_structure(const std::uint8_t* data, std::size_t available, bool array, const std::string& where) {
  if (available < 5) return where + ": fewer than 5 bytes";
  const std::uint32_t length = read_le32(data);
  if (length < 5 || length > available) return where + ": length " + std::to_string(length) + " out of bounds";
  if (data[length - 1] != 0) return where + ": no terminator";
  std::size_t at = 4;
  std::uint32_t index = 0;
  while (at < length - 1) {
    const std::uint8_t type = data[at++];
    const auto* key_end = static_cast<const std::uint8_t*>(std::memchr(data + at, 0, length - 1 - at));
    if (key_end == nullptr) return where + ": key not terminated";
    const std::string key(reinterpret_cast<const char*>(data + at), static_cast<std::size_t>(key_end - (data + at)));
    if (array && key != std::to_string(index)) return where + ": array key " + key + " at index " + std::to_string(index);
    at = static_cast<std::size_t>(key_end - data) + 1;
    const std::size_t left = length - 1 - at;
    std::size_t size = 0;
    switch (type) {
      case 0x01: case 0x09: case 0x11: case 0x12: size = 8; break;
      case 0x10: size = 4; break;
      case 0x08: size = 1; break;
      case 0x0A: size = 0; break;
      case 0x13: size = 16; break;
      case 0x07: size = 12; break;
      case 0x02: {
        if (left < 4) return where + "." + key + ": string length cut";
        const std::uint32_t n = read_le32(data + at);
        if (n < 1 || n > left - 4 || data[at + 4 + n - 1] != 0) return where + "." + key + ": bad string length";
        size = 4 + n;
        break;
      }
      case 0x03: case 0x04: {
        const std::string inner = check_structure(data + at, left, type == 0x04, where + "." + key);
        if (!inner.empty()) return inner;
        size = read_le32(data + at);
        break;
      }
      default: return where + "." + key + ": unexpected type " + std::to_string(type);
    }
    if (size > left) return where + "." + key + ": value past the end";
    at += size;
    ++index;
  }
  if (at != length - 1) return where + ": elements overrun the length";
  return {};
}

/// The stages' bytes are a well-formed array, both by our walk and by libbson.
void expect_well_formed(const StageList& stages) {
  ASSERT_GE(stages.length(), 5u);
  EXPECT_EQ(read_le32(stages.data()), stages.length());
  EXPECT_EQ(check_structure(stages.data(), stages.length(), true, "stages"), "");
  const odm::detail::BsonView view(stages.data(), stages.length());
  std::size_t offset = 0;
  EXPECT_TRUE(bson_validate(view.get(), BSON_VALIDATE_NONE, &offset)) << "invalid at " << offset;
  EXPECT_EQ(bson_count_keys(view.get()), stages.size());
}

/// The same bytes as the libbson array `expected`.
void expect_bytes(const std::uint8_t* data, std::uint32_t length, const bson_t* expected) {
  ASSERT_EQ(length, expected->len);
  EXPECT_EQ(std::memcmp(data, bson_get_data(expected), length), 0);
}
template <class P>
void expect_pipeline_bytes(const P& pipeline, const bson_t* expected) {
  const odm::detail::BsonView view = pipeline.bson_view();
  expect_bytes(bson_get_data(view.get()), view.get()->len, expected);
  const odm::Document copied = pipeline.bson();
  expect_bytes(copied.data(), static_cast<std::uint32_t>(copied.size()), expected);
  EXPECT_EQ(check_structure(copied.data(), copied.size(), true, "pipeline"), "");
}

/// A libbson array of stages, written as a hand-written pipeline would be.
class Expected {
 public:
  Expected() { bson_init(&array_); }
  Expected(const Expected&) = delete;
  Expected& operator=(const Expected&) = delete;
  ~Expected() { bson_destroy(&array_); }
  const bson_t* get() const { return &array_; }
  std::uint32_t count() const { return count_; }

  void match_status(std::string_view status) {
    open("$match");
    EXPECT_TRUE(bson_append_utf8(&inner_, "status", 6, status.data(), static_cast<int>(status.size())));
    close();
  }
  void int64_stage(const char* op, std::int64_t n) {
    bson_t stage;
    key_ = std::to_string(count_++);
    EXPECT_TRUE(bson_append_document_begin(&array_, key_.c_str(), -1, &stage));
    EXPECT_TRUE(bson_append_int64(&stage, op, -1, n));
    EXPECT_TRUE(bson_append_document_end(&array_, &stage));
  }
  void string_stage(const char* op, std::string_view s) {
    bson_t stage;
    key_ = std::to_string(count_++);
    EXPECT_TRUE(bson_append_document_begin(&array_, key_.c_str(), -1, &stage));
    EXPECT_TRUE(bson_append_utf8(&stage, op, -1, s.data(), static_cast<int>(s.size())));
    EXPECT_TRUE(bson_append_document_end(&array_, &stage));
  }
  void sort_items_desc_id_asc() {
    open("$sort");
    EXPECT_TRUE(bson_append_int32(&inner_, "items", -1, -1));
    EXPECT_TRUE(bson_append_int32(&inner_, "_id", -1, 1));
    close();
  }
  void raw(const bson_t* stage) {
    key_ = std::to_string(count_++);
    EXPECT_TRUE(bson_append_document(&array_, key_.c_str(), -1, stage));
  }

 private:
  void open(const char* op) {
    key_ = std::to_string(count_++);
    EXPECT_TRUE(bson_append_document_begin(&array_, key_.c_str(), -1, &stage_));
    EXPECT_TRUE(bson_append_document_begin(&stage_, op, -1, &inner_));
  }
  void close() {
    EXPECT_TRUE(bson_append_document_end(&stage_, &inner_));
    EXPECT_TRUE(bson_append_document_end(&array_, &stage_));
  }
  bson_t array_;
  bson_t stage_;
  bson_t inner_;
  std::string key_;
  std::uint32_t count_ = 0;
};

/// A random string: ASCII, multi-byte UTF-8 and embedded NULs (valid UTF-8 throughout).
std::string random_text(std::mt19937& rng, std::size_t max_length) {
  static const char* const pieces[] = {"a", "Z", "9", ".", "$", "\"", "\\", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                       std::string_view("\0", 1).data()};
  std::uniform_int_distribution<std::size_t> length(0, max_length);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(pieces) - 1);
  std::string out;
  const std::size_t n = length(rng);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t p = pick(rng);
    if (p == std::size(pieces) - 1)
      out.push_back('\0');
    else
      out += pieces[p];
  }
  return out;
}

// Random chains of match/sort/skip/limit/raw stages over Order, each step compared byte
// for byte with libbson and checked at every nesting level; every few steps the pipeline
// is copied and moved, and the copies compared too.
TEST(Adversary12Stages, RandomChainsEqualHandWrittenLibbson) {
  const std::uint32_t seed = seed_from_env();
  SCOPED_TRACE("ODM_ADV12_SEED=" + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    auto pipeline = odm::pipeline<Order>();
    Expected expected;
    std::uniform_int_distribution<int> kind(0, 5);
    std::uniform_int_distribution<int> steps(0, 80);
    const int n = steps(rng);
    for (int i = 0; i < n; ++i) {
      switch (kind(rng)) {
        case 0: {
          const std::string status = random_text(rng, rng() % 4 == 0 ? 700 : 20);
          pipeline = std::move(pipeline).match(field(&Order::status) == status);
          expected.match_status(status);
          break;
        }
        case 1: {
          const std::int64_t v = static_cast<std::int64_t>(rng()) * static_cast<std::int64_t>(rng() % 1000);
          pipeline = std::move(pipeline).skip(v);
          expected.int64_stage("$skip", v);
          break;
        }
        case 2: {
          const std::int64_t v = 1 + static_cast<std::int64_t>(rng() % std::numeric_limits<std::int32_t>::max());
          pipeline = pipeline.limit(v);  // the copying overload
          expected.int64_stage("$limit", v);
          break;
        }
        case 3:
          pipeline = std::move(pipeline).sort(odm::sort(odm::desc(&Order::items), odm::asc(&Order::id)));
          expected.sort_items_desc_id_asc();
          break;
        default: {
          // A raw stage whose field names need no escaping in BSON but would in JSON,
          // including a very long one, and values of random sizes.
          bson_t* raw = bson_new();
          bson_t body;
          bson_append_document_begin(raw, "$addFields", -1, &body);
          const std::string long_key(rng() % 900 + 1, 'k');
          const std::string value = random_text(rng, 300);
          bson_append_utf8(&body, long_key.c_str(), -1, value.data(), static_cast<int>(value.size()));
          bson_append_utf8(&body, "with \"quote\" and \\ and \xc3\xa9", -1, "v", 1);
          bson_append_double(&body, "a.b", -1, 0.5);
          bson_append_document_end(raw, &body);
          expected.raw(raw);
          pipeline = std::move(pipeline).stage<Order>(odm::Document::adopt(raw));
          break;
        }
      }
      ASSERT_EQ(pipeline.size(), expected.count());
      expect_pipeline_bytes(pipeline, expected.get());
      if (i % 7 == 0) {
        const auto copy = pipeline;
        expect_pipeline_bytes(copy, expected.get());
        auto moved = std::move(pipeline);
        expect_pipeline_bytes(moved, expected.get());
        EXPECT_EQ(pipeline.size(), 0u);  // NOLINT(bugprone-use-after-move)
        pipeline = std::move(moved);
        expect_pipeline_bytes(pipeline, expected.get());
      }
    }
  }
}

// A stage whose bytes end at every offset around the 512 bytes kept inline, then one more
// stage that crosses or follows it; copies and moves of each, inline and heap.
TEST(Adversary12Stages, StagesStraddlingTheInlineBoundary) {
  for (std::size_t pad = 440; pad <= 540; ++pad) {
    SCOPED_TRACE("pad " + std::to_string(pad));
    StageList stages;
    Expected expected;
    const std::string first(pad, 'p');
    stages.add_string("$count", first);
    expected.string_stage("$count", first);
    expect_bytes(stages.data(), stages.length(), expected.get());
    for (std::size_t second = 0; second < 40; second += 13) {
      StageList more = stages;  // copy: inline or heap
      Expected both;
      both.string_stage("$count", first);
      const std::string text(second, 's');
      more.add_string("$count", text);
      both.string_stage("$count", text);
      expect_bytes(more.data(), more.length(), both.get());
      expect_well_formed(more);
      StageList moved(std::move(more));
      expect_bytes(moved.data(), moved.length(), both.get());
      EXPECT_EQ(more.length(), 5u);  // NOLINT(bugprone-use-after-move)
      more.add_int64("$limit", 1);   // a moved-from list is usable
      Expected one;
      one.int64_stage("$limit", 1);
      expect_bytes(more.data(), more.length(), one.get());
      StageList assigned;
      assigned = moved;  // copy-assign over an inline one
      expect_bytes(assigned.data(), assigned.length(), both.get());
      assigned = more;  // a short one over a possibly-heap one
      expect_bytes(assigned.data(), assigned.length(), one.get());
      assigned = std::move(moved);
      expect_bytes(assigned.data(), assigned.length(), both.get());
      StageList& self = assigned;
      assigned = self;  // self-assignment keeps everything
      expect_bytes(assigned.data(), assigned.length(), both.get());
      assigned = std::move(self);  // NOLINT: self-move
      expect_bytes(assigned.data(), assigned.length(), both.get());
    }
  }
}

// A stage that throws after it has written past the inline buffer (moving it to the heap)
// is taken back: the earlier stages are intact, the next stage gets the next index, and a
// copy of the list is right.
TEST(Adversary12Stages, HalfWrittenStageAcrossTheBoundaryIsTakenBack) {
  for (std::size_t before = 0; before <= 520; before += 37) {
    SCOPED_TRACE("before " + std::to_string(before));
    StageList stages;
    Expected expected;
    const std::string text(before, 'b');
    stages.add_string("$count", text);
    expected.string_stage("$count", text);
    struct Thrown {};
    EXPECT_THROW(stages.write_stage("$group",
                                    [](StageList& group) {
                                      group.put_null("_id");
                                      const std::uint32_t inner = group.open(StageList::document, "deep");
                                      const std::uint32_t arr = group.open(StageList::array, "$ifNull");
                                      group.put_utf8("0", std::string(700, 'x'));
                                      (void)inner;
                                      (void)arr;
                                      throw Thrown{};
                                    }),
                 Thrown);
    EXPECT_EQ(stages.size(), 1u);
    expect_bytes(stages.data(), stages.length(), expected.get());
    expect_well_formed(stages);
    const StageList copy = stages;
    expect_bytes(copy.data(), copy.length(), expected.get());
    stages.add_int64("$limit", 3);
    expected.int64_stage("$limit", 3);
    expect_bytes(stages.data(), stages.length(), expected.get());
    expect_well_formed(stages);
  }
}

// Lengths that do not fit a BSON int32 are refused before anything is written, and the
// list stays what it was (no 32-bit wrap of a length field).
TEST(Adversary12Stages, LengthsPastInt32AreRefusedAndTakenBack) {
  StageList stages;
  stages.add_int64("$skip", 1);
  Expected expected;
  expected.int64_stage("$skip", 1);
  for (const std::size_t size : {std::size_t{INT32_MAX}, std::size_t{INT32_MAX} - 8, std::size_t{UINT32_MAX},
                                 std::size_t{UINT32_MAX} + 10, std::size_t{1} << 40}) {
    SCOPED_TRACE("size " + std::to_string(size));
    EXPECT_THROW(stages.write_stage("$x",
                                    [&](StageList& body) {
                                      // Never writes through the pointer: the size alone must be refused.
                                      (void)body.put_utf8_uninitialized("s", size);
                                      ADD_FAILURE() << "a string of " << size << " bytes was given room";
                                    }),
                 odm::EncodeError);
    EXPECT_EQ(stages.size(), 1u);
    expect_bytes(stages.data(), stages.length(), expected.get());
  }
  stages.add_int64("$limit", 2);
  expected.int64_stage("$limit", 2);
  expect_bytes(stages.data(), stages.length(), expected.get());
}

// Thousands of stages: keys past 9, 99, 999 (libbson's table of small keys ends at 1000).
TEST(Adversary12Stages, ThousandsOfStagesBuiltInALoop) {
  auto pipeline = odm::pipeline<Order>();
  Expected expected;
  for (int i = 0; i < 2100; ++i) {
    if (i % 3 == 0) {
      pipeline = std::move(pipeline).limit(i + 1);
      expected.int64_stage("$limit", i + 1);
    } else if (i % 3 == 1) {
      pipeline = std::move(pipeline).sort(odm::sort(odm::desc(&Order::items), odm::asc(&Order::id)));
      expected.sort_items_desc_id_asc();
    } else {
      pipeline = std::move(pipeline).match(field(&Order::status) == std::to_string(i));
      expected.match_status(std::to_string(i));
    }
  }
  EXPECT_EQ(pipeline.size(), 2100u);
  expect_pipeline_bytes(pipeline, expected.get());
  const odm::detail::BsonView view = pipeline.bson_view();
  EXPECT_EQ(check_structure(bson_get_data(view.get()), view.get()->len, true, "stages"), "");
}

// One huge raw stage (4 MiB), then small typed ones after it.
TEST(Adversary12Stages, HugeStageThenSmallOnes) {
  bson_t* raw = bson_new();
  bson_t body;
  bson_append_document_begin(raw, "$addFields", -1, &body);
  const std::string big(4u << 20, 'h');
  bson_append_utf8(&body, "big", -1, big.data(), static_cast<int>(big.size()));
  bson_append_document_end(raw, &body);
  Expected expected;
  expected.raw(raw);
  auto pipeline = odm::pipeline<Order>().stage<Order>(odm::Document::adopt(raw)).skip(1);
  expected.int64_stage("$skip", 1);
  expect_pipeline_bytes(pipeline, expected.get());
  const auto copy = pipeline.limit(9);
  expected.int64_stage("$limit", 9);
  expect_pipeline_bytes(copy, expected.get());
}

// A value that cannot be encoded (invalid UTF-8) is refused with odm::EncodeError, and the
// pipeline it was to be added to is unchanged and still usable.
TEST(Adversary12Stages, InvalidUtf8ValuesAreRefusedAndThePipelineStaysUsable) {
  const auto base = odm::pipeline<Order>().skip(2);
  Expected expected;
  expected.int64_stage("$skip", 2);
  for (const std::string& bad : {std::string("\xff"), std::string("ok\xc3"), std::string("\xed\xa0\x80"),
                                std::string("\xc0\x80"), std::string(600, 'a') + "\xfe"}) {
    EXPECT_THROW((void)base.match(field(&Order::status) == bad), odm::EncodeError);
    EXPECT_THROW((void)base.set<Labelled>(agg::constant<&Labelled::label>(bad),
                                          agg::constant<&Labelled::copied_points>(1)),
                 odm::EncodeError);
    expect_pipeline_bytes(base, expected.get());
  }
  const auto next = base.limit(4);
  expected.int64_stage("$limit", 4);
  expect_pipeline_bytes(next, expected.get());
}

// A raw stage of the wrong shape is an odm::ValueError, as documented, even when the
// document holds bytes that are not UTF-8 (the error message cannot print them as JSON).
TEST(Adversary12Stages, WrongShapeRawStageWithInvalidUtf8IsAValueError) {
  std::vector<odm::Document> wrong(3);
  ASSERT_TRUE(bson_append_utf8(wrong[0].get_mutable(), "match", -1, "\xff\xfe", 2));  // a string that is not UTF-8
  ASSERT_TRUE(bson_append_int32(wrong[1].get_mutable(), "m\xc3", -1, 1));             // a key that is not UTF-8
  bson_t body;  // a sub-document Extended JSON would read as a date wrapper
  ASSERT_TRUE(bson_append_document_begin(wrong[2].get_mutable(), "match", -1, &body));
  ASSERT_TRUE(bson_append_int32(&body, "$date", -1, 1));
  ASSERT_TRUE(bson_append_document_end(wrong[2].get_mutable(), &body));
  const auto base = odm::pipeline<Order>();
  std::string others;
  for (std::size_t i = 0; i < wrong.size(); ++i) {
    try {
      (void)base.stage<odm::Document>(wrong[i]);
      ADD_FAILURE() << "case " << i << ": a stage of the wrong shape was accepted";
    } catch (const odm::ValueError&) {
    } catch (const std::exception& e) {
      others += "case " + std::to_string(i) + ": " + e.what() + "; ";
    }
    EXPECT_EQ(base.size(), 0u);
  }
  EXPECT_EQ(others, "") << "Pipeline::stage documents odm::ValueError for a stage of the wrong shape";
}

// A facet whose sub-pipeline outgrew the inline buffer, and a $facet making the outer list
// cross it: equal to libbson's.
TEST(Adversary12Stages, FacetOfAHeapSubPipeline) {
  auto sub = odm::pipeline<Order>();
  Expected sub_expected;
  for (int i = 0; i < 40; ++i) {
    sub = std::move(sub).match(field(&Order::status) == std::string(static_cast<std::size_t>(i), 'f'));
    sub_expected.match_status(std::string(static_cast<std::size_t>(i), 'f'));
  }
  struct Only {
    odm::Documents<Order> all;
  };
  const auto pipeline = odm::pipeline<Order>().skip(1).facet<Only>(agg::facet<&Only::all>(sub));
  Expected expected;
  expected.int64_stage("$skip", 1);
  bson_t* stage = bson_new();
  bson_t body;
  bson_append_document_begin(stage, "$facet", -1, &body);
  bson_append_array(&body, "all", -1, sub_expected.get());
  bson_append_document_end(stage, &body);
  expected.raw(stage);
  bson_destroy(stage);
  expect_pipeline_bytes(pipeline, expected.get());
}

// A list filled to exactly the largest BSON length (INT32_MAX bytes, one 2 GiB buffer of
// which only the written bytes are touched): the next stage is refused whether it fails
// while its document is opened (Stage's constructor) or while a whole stage document is
// copied in (a raw stage), and each time the list is taken back to a valid array.
TEST(Adversary12Stages, ListAtTheLargestBsonLengthRefusesTheNextStage) {
  StageList stages;
  const std::size_t size = std::size_t{INT32_MAX} - 30;  // 30 bytes of framing: [ 0: { $x: { s: "..." } } ]
  try {
    stages.write_stage("$x", [&](StageList& body) { body.put_utf8_uninitialized("s", size)[0] = 'a'; });
  } catch (const std::bad_alloc&) {
    GTEST_SKIP() << "no 2 GiB buffer on this machine";
  }
  ASSERT_EQ(stages.size(), 1u);
  ASSERT_EQ(stages.length(), std::uint32_t{INT32_MAX});
  EXPECT_EQ(read_le32(stages.data()), std::uint32_t{INT32_MAX});
  EXPECT_EQ(stages.data()[stages.length() - 1], 0);
  EXPECT_EQ(check_structure(stages.data(), stages.length(), true, "stages"), "");

  EXPECT_THROW(stages.add_int64("$limit", 1), odm::EncodeError);  // fails in Stage's constructor
  EXPECT_EQ(stages.size(), 1u);
  EXPECT_EQ(stages.length(), std::uint32_t{INT32_MAX});
  EXPECT_EQ(stages.data()[stages.length() - 1], 0);
  EXPECT_EQ(check_structure(stages.data(), stages.length(), true, "stages"), "");

  odm::Document raw;
  ASSERT_TRUE(bson_append_int32(raw.get_mutable(), "$sample", -1, 1));
  EXPECT_THROW(stages.add_raw(raw), odm::EncodeError);  // fails while the stage document is copied
  EXPECT_EQ(stages.size(), 1u);
  EXPECT_EQ(stages.length(), std::uint32_t{INT32_MAX});
  EXPECT_EQ(stages.data()[stages.length() - 1], 0);
  EXPECT_EQ(check_structure(stages.data(), stages.length(), true, "stages"), "");

  // Moving it keeps the buffer (no copy of 2 GiB) and leaves an empty, usable list.
  StageList moved(std::move(stages));
  EXPECT_EQ(moved.length(), std::uint32_t{INT32_MAX});
  stages.add_int64("$limit", 1);  // NOLINT(bugprone-use-after-move)
  Expected one;
  one.int64_stage("$limit", 1);
  expect_bytes(stages.data(), stages.length(), one.get());
}

// A pipeline whose stages were moved out by an rvalue stage call is empty and usable.
TEST(Adversary12Stages, PipelineMovedOutByAStageCallIsEmptyAndUsable) {
  for (const int stages : {1, 40}) {  // inline, then heap
    auto p = odm::pipeline<Order>();
    for (int i = 0; i < stages; ++i) p = std::move(p).skip(i);
    auto taken = std::move(p).limit(5);
    EXPECT_EQ(taken.size(), static_cast<std::uint32_t>(stages + 1));
    EXPECT_EQ(p.size(), 0u);  // NOLINT(bugprone-use-after-move)
    const auto again = std::move(p).limit(2);
    Expected expected;
    expected.int64_stage("$limit", 2);
    expect_pipeline_bytes(again, expected.get());
  }
}

// A $facet refused while its stage is being written (its second facet holds $out) leaves
// a long (heap) pipeline as it was, and usable.
TEST(Adversary12Stages, RefusedFacetLeavesALongPipelineUnchanged) {
  auto pipeline = odm::pipeline<Order>();
  Expected expected;
  for (int i = 0; i < 30; ++i) {
    pipeline = std::move(pipeline).skip(i);
    expected.int64_stage("$skip", i);
  }
  struct Two {
    odm::Documents<Order> a;
    odm::Documents<Order> b;
  };
  const auto fine = odm::pipeline<Order>().limit(1);
  const auto refused = odm::pipeline<Order>().stage<Order>(odm::Document::from_json(R"({"$out": "elsewhere"})"));
  EXPECT_THROW((void)pipeline.facet<Two>(agg::facet<&Two::a>(fine), agg::facet<&Two::b>(refused)), odm::ValueError);
  EXPECT_THROW((void)std::move(pipeline).facet<Two>(agg::facet<&Two::a>(fine), agg::facet<&Two::b>(refused)),
               odm::ValueError);
  expect_pipeline_bytes(pipeline, expected.get());  // NOLINT(bugprone-use-after-move): the throw moved nothing
  pipeline = std::move(pipeline).limit(3);
  expected.int64_stage("$limit", 3);
  expect_pipeline_bytes(pipeline, expected.get());
}

// A $group written in place (write_stage) starting at every offset around the inline
// boundary, so that its key, accumulators and nested $ifNull straddle it.
TEST(Adversary12Stages, GroupStraddlingTheInlineBoundary) {
  for (std::size_t pad = 380; pad <= 520; ++pad) {
    SCOPED_TRACE("pad " + std::to_string(pad));
    bson_t* raw = bson_new();
    bson_t fields;
    bson_append_document_begin(raw, "$addFields", -1, &fields);
    const std::string text(pad, 'q');
    bson_append_utf8(&fields, "p", -1, text.data(), static_cast<int>(text.size()));
    bson_append_document_end(raw, &fields);
    Expected expected;
    expected.raw(raw);
    const auto pipeline = odm::pipeline<Order>()
                              .stage<Order>(odm::Document::adopt(raw))
                              .group<GrandTotal>(agg::count<&GrandTotal::orders>(),
                                                 agg::sum<&GrandTotal::items>(field(&Order::items)));
    bson_t* group = bson_new();
    bson_t body;
    bson_t orders;
    bson_t items;
    bson_t sum;
    bson_t args;
    bson_append_document_begin(group, "$group", -1, &body);
    bson_append_null(&body, "_id", -1);
    bson_append_document_begin(&body, "orders", -1, &orders);
    bson_append_int32(&orders, "$sum", -1, 1);
    bson_append_document_end(&body, &orders);
    bson_append_document_begin(&body, "items", -1, &items);
    bson_append_document_begin(&items, "$sum", -1, &sum);
    bson_append_array_begin(&sum, "$ifNull", -1, &args);
    bson_append_utf8(&args, "0", -1, "$items", -1);
    bson_append_int64(&args, "1", -1, 0);
    bson_append_array_end(&sum, &args);
    bson_append_document_end(&items, &sum);
    bson_append_document_end(&body, &items);
    bson_append_document_end(group, &body);
    expected.raw(group);
    bson_destroy(group);
    expect_pipeline_bytes(pipeline, expected.get());
  }
}

}  // namespace
