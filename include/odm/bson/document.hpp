#pragma once
// odm::Document: the one owner of a libbson `bson_t`.

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace odm {

namespace detail {

/// A new, empty heap document, as bson_new() makes (the caller may bson_destroy() it):
/// one this thread kept from a destroyed Document when it has one. bson_new() costs about
/// 700 instructions because libbson aligns its struct to 128 bytes (aligned_alloc, which
/// glibc serves without its per-thread cache); the small documents of every operation (a
/// filter's value, an update, the filter as sent) would pay it each time.
bson_t* new_document();
/// Destroys a heap document, or keeps it for new_document() when it is small (at most
/// 1 KiB, so its buffer is too) and this thread keeps fewer than a few.
void free_document(bson_t* doc) noexcept;

}  // namespace detail

/// An owning, immutable-by-default BSON document. It always holds a valid document
/// (an empty one when default-constructed or moved from), frees it exactly once, and
/// copies deeply.
class Document {
 public:
  /// An empty document `{}`.
  /// Costs nothing: an empty document is a shared, immutable `{}` until something is appended.
  Document() noexcept : doc_(empty_sentinel()) {}
  /// Takes ownership of a heap document from `bson_new()`/`bson_copy()`.
  static Document adopt(bson_t* owned) noexcept { return Document(owned); }
  /// Copies a document someone else owns.
  static Document copy_of(const bson_t* doc) { return Document(copy(doc)); }
  /// Copies raw BSON bytes after checking that they are a well-formed document
  /// (lengths, terminators, nesting, UTF-8 of keys and strings). Throws odm::DecodeError.
  static Document from_bytes(std::span<const std::uint8_t> bytes);
  /// Parses canonical or relaxed Extended JSON (libbson does the work). Throws odm::JsonError.
  static Document from_json(std::string_view json);

  Document(const Document& other) : doc_(other.is_sentinel() ? empty_sentinel() : copy(other.doc_)) {}
  Document(Document&& other) noexcept : doc_(std::exchange(other.doc_, empty_sentinel())) {}
  Document& operator=(Document other) noexcept {
    std::swap(doc_, other.doc_);
    return *this;
  }
  ~Document() {
    if (!is_sentinel()) detail::free_document(doc_);
  }

  /// The document, for libbson and libmongoc calls. Still owned by this object.
  const bson_t* get() const noexcept { return doc_; }
  /// Mutable access for code that appends to the document (the encoder).
  bson_t* get_mutable() {
    if (is_sentinel()) doc_ = detail::new_document();
    return doc_;
  }
  /// Hands the document over; the caller must bson_destroy() it. This object becomes `{}`.
  [[nodiscard]] bson_t* release() {
    if (is_sentinel()) return detail::new_document();
    return std::exchange(doc_, empty_sentinel());
  }

  const std::uint8_t* data() const noexcept { return bson_get_data(doc_); }
  std::size_t size() const noexcept { return doc_->len; }
  std::span<const std::uint8_t> bytes() const noexcept { return {data(), size()}; }
  bool empty() const noexcept { return bson_empty(doc_); }

  /// Relaxed Extended JSON: `{"n": 1, "when": {"$date": "2019-02-18T00:00:00Z"}}`, as libbson
  /// prints it except that a finite double is the shortest text that reads back to it (7.3,
  /// not libbson's 7.2999999999999998224), still with a '.' or an exponent (1.0, 1e+20).
  /// Throws odm::EncodeError for a document libbson cannot print (malformed, invalid UTF-8).
  std::string to_json() const;
  /// Canonical Extended JSON: every type spelled out (`{"$numberInt": "1"}`).
  std::string to_canonical_json() const;

  /// Byte-wise equality: same fields, same order, same BSON types, same values.
  friend bool operator==(const Document& a, const Document& b) noexcept {
    return a.size() == b.size() && bson_equal(a.doc_, b.doc_);
  }

 private:
  explicit Document(bson_t* owned) noexcept : doc_(owned) {}
  /// The shared `{}` of every empty Document that was never appended to; never written.
  static bson_t* empty_sentinel() noexcept {
    static bson_t empty = BSON_INITIALIZER;
    return &empty;
  }
  bool is_sentinel() const noexcept { return doc_ == empty_sentinel(); }
  /// A heap copy of `doc` (a small one into a kept document: see detail::new_document).
  static bson_t* copy(const bson_t* doc);
  bson_t* doc_;
};

namespace detail {

/// Makes `view` a read-only bson_t over `bytes` after checking all of them as
/// Document::from_bytes does (lengths, terminators, nesting, UTF-8 of keys and strings):
/// the one check for raw bytes, whether they become a Document or a model. Throws
/// odm::DecodeError.
void view_checked_bytes(std::span<const std::uint8_t> bytes, bson_t& view);

/// A copy of the sub-document or array the element `it` is on (bytes inside a reply that
/// libbson has already bounded); an empty Document for any other value.
Document copy_held_document(const bson_iter_t& it);

/// The value of the top-level field `key` as relaxed Extended JSON (`1` for `_id` of
/// `{_id: 1}`, as messages name an id); empty when there is no such field.
std::string field_json(const Document& document, std::string_view key);

}  // namespace detail

}  // namespace odm
