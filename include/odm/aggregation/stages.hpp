#pragma once
// The stages of a typed pipeline (aggregation/pipeline.hpp) as one BSON array, written
// byte by byte into one buffer: on the pipeline itself while it is small (as a
// hand-written pipeline lives in a bson_t on the stack), on the heap past that. Each
// stage writes its elements straight from its typed arguments, with no document in
// between, and the buffer moves from one stage's pipeline type to the next.
//
// The bytes are the ones libbson's appends write (the golden tests compare them). Keys
// are not checked for NUL: every key written here is a stored member name or an
// operator, known at compile time.

#include <odm/bson/document.hpp>

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace odm::detail {

/// A bson_t on the stack for code that appends with libbson (a filter, a $lookup), whose
/// bytes then become one stage or part of one.
class ScratchBson {
 public:
  ScratchBson() noexcept { bson_init(&doc_); }
  ScratchBson(const ScratchBson&) = delete;
  ScratchBson& operator=(const ScratchBson&) = delete;
  ~ScratchBson() { bson_destroy(&doc_); }
  bson_t* get() noexcept { return &doc_; }

 private:
  bson_t doc_;
};

/// A read-only bson_t over bytes someone else owns (no copy).
class BsonView {
 public:
  BsonView(const std::uint8_t* data, std::uint32_t length) noexcept { bson_init_static(&doc_, data, length); }
  const bson_t* get() const noexcept { return &doc_; }

 private:
  bson_t doc_;
};

class StageList {
 public:
  /// BSON type bytes of the elements written here.
  enum Type : std::uint8_t {
    float64 = 0x01, utf8 = 0x02, document = 0x03, array = 0x04, boolean = 0x08, null = 0x0A,
    int32 = 0x10, int64 = 0x12, decimal128 = 0x13,
  };

  StageList() noexcept { std::memcpy(data_, empty_array, sizeof empty_array); }
  StageList(const StageList& other);
  StageList(StageList&& other) noexcept { take(other); }
  StageList& operator=(const StageList& other) {
    if (this != &other) *this = StageList(other);
    return *this;
  }
  StageList& operator=(StageList&& other) noexcept;
  ~StageList() {
    if (data_ != inline_) std::free(data_);
  }

  std::uint32_t size() const noexcept { return count_; }
  /// The array `[stage, ...]` as BSON bytes (always a complete array between stages).
  const std::uint8_t* data() const noexcept { return data_; }
  std::uint32_t length() const noexcept { return length_; }

  /// `{op: document}`, `{op: n}`, `{op: "text"}`.
  void add_document(std::string_view op, const bson_t* document);
  void add_int64(std::string_view op, std::int64_t value);
  void add_string(std::string_view op, std::string_view value);
  /// A stage written by hand: one field whose name starts with `$` (else odm::ValueError).
  void add_raw(const Document& stage);
  /// A stage written with libbson: write(stage, op) appends its one element `op: ...`.
  template <class Write>
  void add(std::string_view op, Write&& write) {
    ScratchBson stage;
    write(stage.get(), op);
    add_stage_document(stage.get());
  }

  /// `{op: {...}}` whose body write(*this) appends with the put_ functions below.
  template <class Write>
  void write_stage(std::string_view op, Write&& write) {
    Stage stage(*this);
    const std::uint32_t body = open(document, op);
    write(*this);
    close(body);
    stage.commit();
  }

  /// Writes one stage in place: its document stays open until commit(); a stage left
  /// without commit() (an exception on the way) is taken back whole, so the pipeline is
  /// what it was before.
  class Stage {
   public:
    explicit Stage(StageList& list);
    Stage(const Stage&) = delete;
    Stage& operator=(const Stage&) = delete;
    ~Stage() {
      if (!committed_) list_.truncate(start_);
    }
    void commit();

   private:
    StageList& list_;
    std::uint32_t start_;
    std::uint32_t document_;
    bool committed_ = false;
  };

  // Elements appended to the innermost open document of the stage being written.
  /// Opens a document or array element; close(offset) ends it.
  std::uint32_t open(Type type, std::string_view key);
  void close(std::uint32_t offset);
  void put_utf8(std::string_view key, std::string_view value) {
    char* out = put_utf8_uninitialized(key, value.size());
    if (!value.empty()) std::memcpy(out, value.data(), value.size());
  }
  /// A string element of `size` bytes whose text the caller writes at the pointer returned.
  char* put_utf8_uninitialized(std::string_view key, std::size_t size);
  void put_int32(std::string_view key, std::int32_t value) {
    const std::uint32_t bytes = BSON_UINT32_TO_LE(static_cast<std::uint32_t>(value));
    put_fixed(int32, key, &bytes, sizeof bytes);
  }
  void put_int64(std::string_view key, std::int64_t value) {
    const std::uint64_t bytes = BSON_UINT64_TO_LE(static_cast<std::uint64_t>(value));
    put_fixed(int64, key, &bytes, sizeof bytes);
  }
  void put_double(std::string_view key, double value) {
    const double bytes = BSON_DOUBLE_TO_LE(value);
    put_fixed(float64, key, &bytes, sizeof bytes);
  }
  void put_bool(std::string_view key, bool value) {
    const std::uint8_t byte = value ? 1 : 0;
    put_fixed(boolean, key, &byte, 1);
  }
  void put_null(std::string_view key) { put_fixed(null, key, nullptr, 0); }
  void put_decimal128(std::string_view key, const bson_decimal128_t& value);
  /// A document or array element holding the bytes of `value`.
  void put_embedded(Type type, std::string_view key, const bson_t* value);

 private:
  static constexpr std::uint8_t empty_array[5] = {5, 0, 0, 0, 0};
  /// Room for a typical pipeline (the report per currency takes about 300 bytes).
  static constexpr std::uint32_t inline_capacity = 512;

  /// The whole document `stage` as the next stage.
  void add_stage_document(const bson_t* stage);
  /// Makes room for `more` bytes; returns where they go (length_ grows by `more`).
  std::uint8_t* grow(std::size_t more) {
    if (capacity_ - length_ < more) reserve(more);
    std::uint8_t* at = data_ + length_;
    length_ += static_cast<std::uint32_t>(more);
    return at;
  }
  void reserve(std::size_t more);
  std::uint8_t* put_key(Type type, std::string_view key, std::size_t value_size);
  void put_fixed(Type type, std::string_view key, const void* value, std::size_t size) {
    std::uint8_t* out = put_key(type, key, size);
    if (size != 0) std::memcpy(out, value, size);
  }
  void truncate(std::uint32_t length) noexcept;
  /// Takes other's stages (copying inline bytes, taking a heap buffer); other becomes empty.
  void take(StageList& other) noexcept;

  std::uint8_t* data_ = inline_;
  std::uint32_t length_ = sizeof empty_array;
  std::uint32_t capacity_ = inline_capacity;
  std::uint32_t count_ = 0;
  std::uint8_t inline_[inline_capacity];
};

}  // namespace odm::detail
