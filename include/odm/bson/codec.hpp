#pragma once
// odm::codec<T>: the one customization point for how a C++ type is stored in BSON.
//
// A specialization says which BSON type a C++ type becomes and reads it back:
//
//   template <> struct odm::codec<Celsius> {
//     // double: temperatures are measurements, not exact amounts.
//     using kind = odm::kind_of<double>;
//     static void encode(bson_t* parent, std::string_view key, const Celsius& c) {
//       odm::codec<double>::encode(parent, key, c.value);
//     }
//     static void decode(const bson_iter_t& it, Celsius& out) {
//       odm::codec<double>::decode(it, out.value);
//     }
//   };
//
// Contract:
//   kind                        what `encode` writes, from odm/bson/kind.hpp's vocabulary
//                               (`odm::kinds::scalar<BSON_TYPE_DOUBLE>`, `odm::kind_of<double>`,
//                               `odm::kinds::document<Fields>`, ...). Required: the member
//                               table, path checks and schema generation read it.
//   encode(parent, key, value)  appends one field `key` to `parent`. Throws odm::EncodeError.
//   decode(iter, out)           reads the value `iter` points at into `out`. Throws
//                               odm::DecodeError with a message that names no path: the
//                               codec of the enclosing document or array adds it.
//   may_be_absent (optional)    `static constexpr bool may_be_absent = true;` lets a field of
//                               this type be missing from a document (std::optional does);
//                               it then keeps its initial value.
//   relation (optional)         for types that relate documents (odm::Ref, ParentRef,
//                               RefMany, Subset): `using relation = odm::reference_to<...>;`.
//
// The codec works on libbson's own `bson_t`/`bson_iter_t` rather than a wrapper of
// odm's: a user writing a codec is writing BSON anyway, libbson's API is documented and
// stable, and it keeps the encoder as fast as hand-written libbson code.

#include <bson/bson.h>

#include <odm/bson/limits.hpp>
#include <odm/bson/utf8.hpp>
#include <odm/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace odm {

/// Primary template: no mapping. odm's own specializations live in the headers of the
/// types they map; users add theirs the same way.
template <class T, class Enable = void>
struct codec {
  static constexpr bool unmapped = true;
};

/// True when odm knows how to store T.
template <class T>
concept mappable = !requires { codec<T>::unmapped; };

/// True when a field of type T may be missing from a stored document.
template <class T>
inline constexpr bool may_be_absent = [] {
  if constexpr (requires { codec<T>::may_be_absent; })
    return codec<T>::may_be_absent;
  else
    return false;
}();

namespace detail {

template <class...>
inline constexpr bool dependent_false = false;

/// The name MongoDB's `$type` operator uses for a BSON type, for error messages.
constexpr std::string_view bson_type_name(bson_type_t type) noexcept {
  switch (type) {
    case BSON_TYPE_DOUBLE: return "double";
    case BSON_TYPE_UTF8: return "string";
    case BSON_TYPE_DOCUMENT: return "object";
    case BSON_TYPE_ARRAY: return "array";
    case BSON_TYPE_BINARY: return "binData";
    case BSON_TYPE_UNDEFINED: return "undefined";
    case BSON_TYPE_OID: return "objectId";
    case BSON_TYPE_BOOL: return "bool";
    case BSON_TYPE_DATE_TIME: return "date";
    case BSON_TYPE_NULL: return "null";
    case BSON_TYPE_REGEX: return "regex";
    case BSON_TYPE_DBPOINTER: return "dbPointer";
    case BSON_TYPE_CODE: return "javascript";
    case BSON_TYPE_SYMBOL: return "symbol";
    case BSON_TYPE_CODEWSCOPE: return "javascriptWithScope";
    case BSON_TYPE_INT32: return "int";
    case BSON_TYPE_TIMESTAMP: return "timestamp";
    case BSON_TYPE_INT64: return "long";
    case BSON_TYPE_DECIMAL128: return "decimal";
    case BSON_TYPE_MAXKEY: return "maxKey";
    case BSON_TYPE_MINKEY: return "minKey";
    default: return "unknown BSON type";
  }
}

/// Runs `body` and, if it throws a PathError, adds `key` to the error's path.
template <class Body>
decltype(auto) at_path(std::string_view key, Body&& body) {
  try {
    return body();
  } catch (PathError& e) {
    e.prepend(key);
    throw;
  }
}

/// `"text"`, cut after 64 characters: user data quoted in an error message.
std::string quoted(std::string_view text);

/// A key from the input for an error message: cut after 64 bytes.
std::string shown_key(const char* key, std::size_t length);

/// "expected date, got string"
[[noreturn]] void throw_unexpected_type(const bson_iter_t& it, std::string_view expected);

/// Throws unless the value at `it` has BSON type `type`.
inline void expect_type(const bson_iter_t& it, bson_type_t type, std::string_view expected) {
  if (bson_iter_type(&it) != type) [[unlikely]]
    throw_unexpected_type(it, expected);
}

/// libbson's append functions return false only when the document would pass
/// BSON's 2 GiB format limit (MongoDB's own 16 MiB limit is checked by the server).
inline void check_append(bool appended) {
  if (!appended) [[unlikely]]
    throw EncodeError("document exceeds the maximum BSON size");
}

inline int key_length(std::string_view key) noexcept { return static_cast<int>(key.size()); }

/// The document the element `it` is on holds, as a bson_t over the same bytes: a
/// sub-document, an array, or the scope of code with scope. False for any other value and
/// for bytes that are not a document.
inline bool held_document(const bson_iter_t& it, bson_t& out) noexcept {
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_DOCUMENT: bson_iter_document(&it, &length, &data); break;
    case BSON_TYPE_ARRAY: bson_iter_array(&it, &length, &data); break;
    case BSON_TYPE_CODEWSCOPE: {
      std::uint32_t code_length = 0;
      bson_iter_codewscope(&it, &code_length, &length, &data);
      break;
    }
    default: return false;
  }
  return bson_init_static(&out, data, length);
}

/// The key of the element `it` is on, from the iterator's own offsets: the arithmetic
/// bson_iter_key and bson_iter_key_len do, without two calls into libbson per element.
inline std::string_view key_of(const bson_iter_t& it) noexcept {
  return {reinterpret_cast<const char*>(it.raw + it.key), static_cast<std::size_t>(it.d1 - it.key - 1)};
}

/// A key is valid UTF-8 (array keys are a digit or three: one pass over them).
inline bool is_valid_key(std::string_view key) noexcept {
  unsigned char high = 0;
  for (const char c : key) high |= static_cast<unsigned char>(c);
  return high < 0x80 || is_valid_utf8(key.data(), key.size());
}

/// bson_iter_recurse, also checking that the child's bytes are a whole document: at least
/// 5 bytes and ending with its NUL (libbson's iterator reads a 4-byte "document" as empty
/// and never looks at the last byte).
inline bool recurse_into(const bson_iter_t& it, bson_iter_t& child) noexcept {
  return bson_iter_recurse(&it, &child) && child.len >= 5 && child.raw[child.len - 1] == 0;
}

/// How many documents and arrays below the top level the decoder (and the encoder) on
/// this thread is inside: the top-level document is level 1, so a child entered now is at
/// level `depth + 2`. Checked before each level is entered, so the codec's recursion stops
/// at odm::max_depth levels whatever the input.
inline thread_local std::size_t decode_depth = 0;
inline thread_local std::size_t encode_depth = 0;

/// "nested deeper than 100 levels ..." as a DecodeError (decoding) or EncodeError.
[[noreturn]] void throw_too_deep(bool decoding);

/// The sub-document or array `it` points at, one level deeper for as long as this object
/// lives. Throws odm::DecodeError on malformed bytes or when the level is past max_depth.
class NestedIter {
 public:
  explicit NestedIter(const bson_iter_t& it) {
    if (decode_depth + 2 > max_depth) [[unlikely]]
      throw_too_deep(true);
    if (!recurse_into(it, child_)) [[unlikely]]
      throw DecodeError("malformed BSON: nested document is corrupt");
    ++decode_depth;
  }
  ~NestedIter() { --decode_depth; }
  NestedIter(const NestedIter&) = delete;
  NestedIter& operator=(const NestedIter&) = delete;

  bson_iter_t& get() noexcept { return child_; }

 private:
  bson_iter_t child_;
};

/// For encoders of values that hold no nested model data: throws if a sub-document or
/// array written now would be past max_depth.
inline void check_encode_level() {
  if (encode_depth + 2 > max_depth) [[unlikely]]
    throw_too_deep(false);
}

/// One level deeper in the encoder while it lives (a sub-document or array being written).
class EncodeLevel {
 public:
  EncodeLevel() {
    if (encode_depth + 2 > max_depth) [[unlikely]]
      throw_too_deep(false);
    ++encode_depth;
  }
  ~EncodeLevel() { --encode_depth; }
  EncodeLevel(const EncodeLevel&) = delete;
  EncodeLevel& operator=(const EncodeLevel&) = delete;
};

/// Iterates a sub-document or array the iterator points at, for codecs whose values hold
/// no nested model data (Money's {value, currency}): the level is checked, not entered.
/// Throws on malformed bytes.
inline bson_iter_t recurse(const bson_iter_t& it) {
  if (decode_depth + 2 > max_depth) [[unlikely]]
    throw_too_deep(true);
  bson_iter_t child;
  if (!recurse_into(it, child)) [[unlikely]]
    throw DecodeError("malformed BSON: nested document is corrupt");
  return child;
}

/// Checks the parts of a value that its decoding does not read (a field the model does
/// not declare): UTF-8 of every string-like value and key, the structure and nesting of
/// every document inside. Walks with a loop, so any depth is safe. Throws DecodeError.
void check_unread_value(const bson_iter_t& it, std::size_t depth);

/// check_unread_value, with the common cases inline.
inline void check_unread(const bson_iter_t& it) {
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_UTF8: {
      std::uint32_t length = 0;
      const char* text = bson_iter_utf8(&it, &length);
      if (!is_valid_utf8(text, length)) [[unlikely]]
        throw DecodeError("string is not valid UTF-8");
      return;
    }
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY:
    case BSON_TYPE_CODE:
    case BSON_TYPE_SYMBOL:
    case BSON_TYPE_REGEX:
    case BSON_TYPE_DBPOINTER:
    case BSON_TYPE_CODEWSCOPE: check_unread_value(it, decode_depth); return;
    default: return;  // fixed-size values: bson_iter_next has checked that they fit
  }
}

// The codec's errors, built out of line (codec.cpp): their messages are assembled in one
// place instead of inline in every decoder, keeping each decoder's code to its fast path.
/// "malformed BSON at byte N"
[[noreturn]] void throw_malformed_at(std::uint32_t offset);
/// "value V does not fit a B-bit integer"
[[noreturn]] void throw_integer_out_of_range(std::int64_t value, std::size_t bits);
/// "long value V cannot be held exactly by a double"
[[noreturn]] void throw_inexact_double(std::int64_t value);
/// "date MS ms is out of this time point's range"
[[noreturn]] void throw_date_out_of_range(std::int64_t ms);
/// "date MS ms is not a whole number of the member's time unit (GRID ms); ..."
[[noreturn]] void throw_date_off_grid(std::int64_t ms, std::int64_t grid);
/// "none of the variant's N alternatives fits the stored TYPE (REASONS)"
[[noreturn]] void throw_no_alternative(std::size_t alternatives, const bson_iter_t& it, const std::string& reasons);

/// bson_iter_next, but corrupt bytes are an error rather than a silent end.
[[gnu::always_inline]] inline bool next(bson_iter_t& it) {
  if (bson_iter_next(&it)) return true;
  if (it.err_off != 0) [[unlikely]]
    throw_malformed_at(it.err_off);
  return false;
}

inline void check_utf8(const char* data, std::size_t length, bool decoding) {
  if (!is_valid_utf8(data, length)) [[unlikely]] {
    if (decoding) throw DecodeError("string is not valid UTF-8");
    throw EncodeError("string is not valid UTF-8");
  }
}

/// A set of BSON types, one bit each, for "which types can a value of T be stored as".
using type_mask = std::uint32_t;
constexpr type_mask type_bit(bson_type_t type) noexcept {
  const auto code = static_cast<unsigned>(type);
  if (code <= 0x13) return type_mask{1} << code;
  if (code == 0x7F) return type_mask{1} << 20;  // maxKey
  if (code == 0xFF) return type_mask{1} << 21;  // minKey
  return 0;
}
template <class... Types>
constexpr type_mask type_bits(Types... types) noexcept {
  return (type_bit(types) | ... | type_mask{0});
}
inline constexpr type_mask any_type = ~type_mask{0};

/// "string", "int or long": the types of a mask, for error messages.
std::string type_names(type_mask mask);

/// Whether decoding the value at `it` as a T succeeds; if not, `why` is the reason.
template <class T>
bool fits_by_decoding(const bson_iter_t& it, std::string& why) {
  try {
    T value{};
    codec<T>::decode(it, value);
    return true;
  } catch (const DecodeError& e) {
    why = e.what();
    return false;
  }
}

// What `fits` reads of a stored value, said by each variant_shape as `using reads = ...;`,
// so that the compiler can prove a variant's alternatives apart before anything is stored
// (detail/variant_alternatives.hpp): one of
/// a value it decodes, of one of the BSON types `Types` (a codec of your own: any type);
template <type_mask Types>
struct reads_by_decoding {};
/// a string that is one of the enumerator names of E (an enum stored by name);
template <class E>
struct reads_enumerator_name {};
/// a document's fields, one level deep, as the struct T's members (record.hpp), refusing
/// fields T does not declare if T is strict or AsStrict is true;
template <class T, bool AsStrict = false>
struct reads_record {};
/// an array whose elements are of types Element takes, exactly Count of them (any number
/// when Count is any_count);
inline constexpr std::size_t any_count = ~std::size_t{0};
template <class Element, std::size_t Count>
struct reads_array {};
/// a document whose values are all of types Value takes;
template <class Value>
struct reads_map {};
/// null, or what T reads;
template <class T>
struct reads_nullable {};
/// what any of T... reads.
template <class... T>
struct reads_one_of {};

/// How a std::variant picks alternative T for a stored value without decoding anything
/// nested in it (the README's "Decoding" has the rule):
///   types          the BSON types a value of T can be stored as (any_type: unknown);
///   fits(it, why)  whether T is the alternative for the value at `it`; if not, `why` says why;
///   reads          what `fits` looks at, one of the reads_* descriptions above.
/// This primary template decides by decoding the value, which reads that value alone: right
/// for scalars, odm's value types and codecs of your own. Documents and arrays are looked
/// at one level deep by their own specializations (record.hpp, containers.hpp).
template <class T, class Enable = void>
struct variant_shape {
  static constexpr type_mask types = any_type;
  using reads = reads_by_decoding<any_type>;
  static bool fits(const bson_iter_t& it, std::string& why) { return fits_by_decoding<T>(it, why); }
};

/// A value stored as one of `Types` and picked by decoding it.
template <class T, type_mask Types>
struct decoded_shape {
  static constexpr type_mask types = Types;
  using reads = reads_by_decoding<Types>;
  static bool fits(const bson_iter_t& it, std::string& why) { return fits_by_decoding<T>(it, why); }
};

}  // namespace detail
}  // namespace odm
