#pragma once
// odm::codec<T>: the one customization point for how a C++ type is stored in BSON.
//
// A specialization says which BSON type a C++ type becomes and reads it back:
//
//   template <> struct odm::codec<Celsius> {
//     // double: temperatures are measurements, not exact amounts.
//     static void encode(bson_t* parent, std::string_view key, const Celsius& c) {
//       odm::codec<double>::encode(parent, key, c.value);
//     }
//     static void decode(const bson_iter_t& it, Celsius& out) {
//       odm::codec<double>::decode(it, out.value);
//     }
//   };
//
// Contract:
//   encode(parent, key, value)  appends one field `key` to `parent`. Throws odm::EncodeError.
//   decode(iter, out)           reads the value `iter` points at into `out`. Throws
//                               odm::DecodeError with a message that names no path: the
//                               codec of the enclosing document or array adds it.
//   may_be_absent (optional)    `static constexpr bool may_be_absent = true;` lets a field of
//                               this type be missing from a document (std::optional does).
//
// The codec works on libbson's own `bson_t`/`bson_iter_t` rather than a wrapper of
// odm's: a user writing a codec is writing BSON anyway, libbson's API is documented and
// stable, and it keeps the encoder as fast as hand-written libbson code.

#include <bson/bson.h>

#include <odm/bson/utf8.hpp>
#include <odm/error.hpp>

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
inline std::string quoted(std::string_view text) {
  constexpr std::size_t limit = 64;
  std::string out = "\"";
  out.append(text.substr(0, limit));
  if (text.size() > limit) out += "...";
  out += '"';
  return out;
}

/// "expected date, got string"
[[noreturn]] inline void throw_unexpected_type(const bson_iter_t& it, std::string_view expected) {
  std::string message = "expected ";
  message += expected;
  message += ", got ";
  message += bson_type_name(bson_iter_type(&it));
  throw DecodeError(std::move(message));
}

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

/// Iterates a sub-document or array the iterator points at. Throws on malformed bytes.
inline bson_iter_t recurse(const bson_iter_t& it) {
  bson_iter_t child;
  if (!bson_iter_recurse(&it, &child)) [[unlikely]]
    throw DecodeError("malformed BSON: nested document is corrupt");
  return child;
}

/// bson_iter_next, but corrupt bytes are an error rather than a silent end.
inline bool next(bson_iter_t& it) {
  if (bson_iter_next(&it)) return true;
  if (it.err_off != 0) [[unlikely]]
    throw DecodeError("malformed BSON at byte " + std::to_string(it.err_off));
  return false;
}

inline void check_utf8(const char* data, std::size_t length, bool decoding) {
  if (!is_valid_utf8(data, length)) [[unlikely]] {
    if (decoding) throw DecodeError("string is not valid UTF-8");
    throw EncodeError("string is not valid UTF-8");
  }
}

}  // namespace detail
}  // namespace odm
