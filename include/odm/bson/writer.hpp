#pragma once
// A child document or array that is closed on every way out of the scope that opened it.
// libbson leaves the parent unusable while a child is open (any further append to it
// fails its precondition and aborts the process), so a child opened by hand and skipped
// past by an exception would poison the parent; this one cannot be.

#include <odm/bson/codec.hpp>

#include <bson/bson.h>

#include <cstdint>
#include <string_view>

namespace odm::detail {

class ChildWriter {
 public:
  enum class Kind : std::uint8_t { document, array };

  ChildWriter(bson_t* parent, std::string_view key, Kind kind = Kind::document) : parent_(parent), kind_(kind) {
    check_append(kind == Kind::document
                     ? bson_append_document_begin(parent, key.data(), key_length(key), &child_)
                     : bson_append_array_begin(parent, key.data(), key_length(key), &child_));
  }
  ChildWriter(const ChildWriter&) = delete;
  ChildWriter& operator=(const ChildWriter&) = delete;
  /// Closes the child if close() did not: on the way out of an exception the parent stays
  /// appendable (what was written into the child stays in it).
  ~ChildWriter() {
    if (parent_ != nullptr) end();
  }

  bson_t* get() noexcept { return &child_; }
  /// The index of the next element of an array child, counting from 0.
  std::uint32_t next_index() noexcept { return index_++; }

  /// Closes the child; throws odm::EncodeError when the parent cannot take it.
  void close() { check_append(end()); }

 private:
  bool end() noexcept {
    bson_t* parent = parent_;
    parent_ = nullptr;
    return kind_ == Kind::document ? bson_append_document_end(parent, &child_) : bson_append_array_end(parent, &child_);
  }

  bson_t* parent_;
  bson_t child_;
  Kind kind_;
  std::uint32_t index_ = 0;
};

}  // namespace odm::detail
