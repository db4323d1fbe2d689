#pragma once
// Generators of hostile inputs for the hardening tests: BSON bytes written by hand (values
// libbson would never write: invalid UTF-8 in code, corrupt lengths), documents nested
// tens of thousands of levels deep (built in linear time and without recursion), and a
// thread with a small stack to run a decoder on.

#include <odm/odm.hpp>

#include <pthread.h>

#include <cstddef>
#include <bit>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace odm_hostile {

using Bytes = std::vector<std::uint8_t>;

inline void append_int32(Bytes& out, std::int64_t value) {
  const auto u = static_cast<std::uint32_t>(value);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
}
inline void append_text(Bytes& out, std::string_view text) { out.insert(out.end(), text.begin(), text.end()); }
/// A key or C string: the bytes and a NUL.
inline void append_cstring(Bytes& out, std::string_view text) {
  append_text(out, text);
  out.push_back(0);
}
/// A BSON string value: int32 length (NUL included), the bytes, a NUL.
inline void append_string(Bytes& out, std::string_view text) {
  append_int32(out, static_cast<std::int64_t>(text.size()) + 1);
  append_cstring(out, text);
}

/// A BSON string value (also code's and a symbol's): int32 length, the bytes, a NUL.
inline Bytes string_value(std::string_view text) {
  Bytes out;
  append_string(out, text);
  return out;
}
/// A code-with-scope value: int32 total length, the code as a string, the scope document.
inline Bytes code_with_scope_value(std::string_view code, const Bytes& scope) {
  Bytes body = string_value(code);
  body.insert(body.end(), scope.begin(), scope.end());
  Bytes out;
  append_int32(out, static_cast<std::int64_t>(body.size()) + 4);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

/// A document built element by element from raw bytes; `bytes()` adds the length prefix
/// and the terminator.
class RawDocument {
 public:
  RawDocument& element(std::uint8_t type, std::string_view key, const Bytes& value) {
    body_.push_back(type);
    append_cstring(body_, key);
    body_.insert(body_.end(), value.begin(), value.end());
    return *this;
  }
  RawDocument& string(std::string_view key, std::string_view text, std::uint8_t type = 0x02) {
    Bytes value;
    append_string(value, text);
    return element(type, key, value);
  }
  RawDocument& int32(std::string_view key, std::int32_t n) {
    Bytes value;
    append_int32(value, n);
    return element(0x10, key, value);
  }
  RawDocument& document(std::string_view key, const Bytes& doc, std::uint8_t type = 0x03) {
    return element(type, key, doc);
  }
  Bytes bytes() const {
    Bytes out;
    append_int32(out, static_cast<std::int64_t>(body_.size()) + 5);
    out.insert(out.end(), body_.begin(), body_.end());
    out.push_back(0);
    return out;
  }

 private:
  Bytes body_;
};

/// Raw bytes of a document `levels` levels deep (the top-level document is level 1), in
/// linear time: each level but the innermost holds one field named `key(level)` whose
/// value is the next level, an array when `is_array(level + 1)`, else a document; the
/// innermost level holds the raw elements `innermost`.
inline Bytes nested_bson(std::size_t levels, const std::function<std::string(std::size_t)>& key,
                         const std::function<bool(std::size_t)>& is_array, const Bytes& innermost = {}) {
  // size[l]: bytes of the document at level l (1-based).
  std::vector<std::size_t> size(levels + 2, 0);
  size[levels] = 4 + innermost.size() + 1;
  for (std::size_t level = levels - 1; level >= 1; --level)
    size[level] = 4 + 1 + key(level).size() + 1 + size[level + 1] + 1;
  Bytes out;
  out.reserve(size[1]);
  for (std::size_t level = 1; level < levels; ++level) {
    append_int32(out, static_cast<std::int64_t>(size[level]));
    out.push_back(is_array(level + 1) ? 0x04 : 0x03);
    append_cstring(out, key(level));
  }
  append_int32(out, static_cast<std::int64_t>(size[levels]));
  out.insert(out.end(), innermost.begin(), innermost.end());
  out.insert(out.end(), levels, 0);  // every level's terminator
  return out;
}

/// `{a: {a: ... {a: {}}}}`, `levels` documents deep.
inline Bytes nested_documents(std::size_t levels, const Bytes& innermost = {}) {
  return nested_bson(levels, [](std::size_t) { return std::string("a"); }, [](std::size_t) { return false; },
                     innermost);
}

/// The BSON of `struct Node { std::vector<Node> children; }` as a chain `nodes` deep:
/// {children: [{children: [ ... {children: []} ]}]}, 2 x nodes levels.
inline Bytes node_chain(std::size_t nodes) {
  return nested_bson(2 * nodes, [](std::size_t level) { return level % 2 == 1 ? std::string("children") : std::string("0"); },
                     [](std::size_t level) { return level % 2 == 0; });
}

/// Runs `fn` on a new thread whose whole stack is `stack_bytes`, and rethrows what it threw.
inline void run_with_stack(std::size_t stack_bytes, const std::function<void()>& fn) {
  struct Call {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } call{&fn, nullptr};
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  if (pthread_attr_setstacksize(&attributes, stack_bytes) != 0) throw std::runtime_error("pthread_attr_setstacksize");
  pthread_t thread;
  const int started = pthread_create(
      &thread, &attributes,
      [](void* argument) -> void* {
        auto* c = static_cast<Call*>(argument);
        try {
          (*c->fn)();
        } catch (...) {
          c->error = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attributes);
  if (started != 0) throw std::runtime_error("pthread_create");
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

/// An int64 that fits in 32 bits reads back from relaxed JSON as an int32 (the relaxed
/// format writes both as a plain number, and the reader takes the smallest type): the one
/// change relaxed Extended JSON makes. The same document with that change made.
inline odm::Document narrowed(const bson_t* doc) {
  odm::Document out;
  bson_iter_t it;
  bson_iter_init(&it, doc);
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const int key_length = static_cast<int>(bson_iter_key_len(&it));
    bson_t* target = out.get_mutable();
    bson_t child;
    if (BSON_ITER_HOLDS_INT64(&it) && bson_iter_int64(&it) >= INT32_MIN && bson_iter_int64(&it) <= INT32_MAX) {
      bson_append_int32(target, key, key_length, static_cast<std::int32_t>(bson_iter_int64(&it)));
    } else if (!odm::detail::held_document(it, child)) {
      bson_append_iter(target, key, key_length, &it);
    } else if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_append_document(target, key, key_length, narrowed(&child).get());
    } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_append_array(target, key, key_length, narrowed(&child).get());
    } else {  // code with scope
      std::uint32_t code_length = 0;
      std::uint32_t scope_length = 0;
      const std::uint8_t* scope = nullptr;
      const char* code = bson_iter_codewscope(&it, &code_length, &scope_length, &scope);
      bson_append_code_with_scope(target, key, key_length, code, narrowed(&child).get());
    }
  }
  return out;
}

/// Whether a document inside `doc` starts with "$regex", "$options" or "$type": query
/// operators that to_json prints as they are, and that libbson's reader turns into a
/// regular expression or refuses, so no round trip is promised for them.
inline bool has_query_operator_document(const bson_t* doc, bool top = true) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return false;
  for (bool first = true; bson_iter_next(&it); first = false) {
    const std::string_view key = bson_iter_key(&it);
    if (first && !top && (key == "$regex" || key == "$options" || key == "$type")) return true;
    bson_t child;
    if (odm::detail::held_document(it, child) && has_query_operator_document(&child, false)) return true;
  }
  return false;
}

/// What goes wrong when `doc` is printed as Extended JSON and read back, or nothing:
/// - the canonical text reads back as a document with the same canonical text (NaN
///   payloads and non-canonical Decimal128 encodings are all it does not keep);
/// - the relaxed text reads back as `narrowed(doc)`, compared the same way.
/// A document to_json refuses is a problem too: callers check refusals separately.
inline std::optional<std::string> json_round_trip_problem(const odm::Document& doc) {
  std::string relaxed;
  std::string canonical;
  try {
    relaxed = doc.to_json();
    canonical = doc.to_canonical_json();
  } catch (const odm::Error& e) {
    return std::string("cannot print: ") + e.what();
  }
  try {
    const odm::Document from_canonical = odm::Document::from_json(canonical);
    if (from_canonical.to_canonical_json() != canonical)
      return "canonical text reads back as " + from_canonical.to_canonical_json() + "\n  not " + canonical;
    const odm::Document from_relaxed = odm::Document::from_json(relaxed);
    const std::string expected = narrowed(doc.get()).to_canonical_json();
    if (from_relaxed.to_canonical_json() != expected)
      return "relaxed text " + relaxed + "\n  reads back as " + from_relaxed.to_canonical_json() + "\n  not " + expected;
  } catch (const odm::Error& e) {
    return relaxed + " does not read back: " + e.what();
  }
  return std::nullopt;
}

/// Random documents with every BSON type and tricky values (NaN payloads, -0.0, far dates,
/// non-canonical decimals, NUL in strings and symbols, the extremes of every integer).
class RandomDocuments {
 public:
  explicit RandomDocuments(std::uint64_t seed) : random_(seed) {}

  /// (JavaScript code inside a scope is one of the things to_json refuses: never made here.)
  odm::Document next(int depth = 0, bool in_scope = false, bool in_array = false) {
    odm::Document doc;
    const std::size_t fields = random_() % 6;
    for (std::size_t i = 0; i < fields; ++i) append(doc.get_mutable(), key(), depth, in_scope, in_array);
    return doc;
  }

 private:
  std::string text(bool allow_nul) {
    static constexpr std::string_view pieces[] = {"a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x7f",
                                                  "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "$", ".", "{", "0",
                                                  "1.5", "\0"};
    std::string out;
    for (std::size_t n = random_() % 8; n > 0; --n) {
      const std::string_view piece = pieces[random_() % std::size(pieces)];
      if (!allow_nul && piece == std::string_view("\0", 1)) continue;
      out += piece;
    }
    return out;
  }
  std::string key() {
    std::string k = text(false);
    if (!k.empty() && k.front() == '$') k.insert(k.begin(), 'k');  // never a wrapper's name
    return k;
  }
  std::int64_t integer() {
    static constexpr std::int64_t edges[] = {0, 1, -1, INT32_MAX, INT32_MIN, std::int64_t{INT32_MAX} + 1,
                                             std::int64_t{INT32_MIN} - 1, INT64_MAX, INT64_MIN};
    return random_() % 2 == 0 ? edges[random_() % std::size(edges)] : static_cast<std::int64_t>(random_());
  }
  double number() {
    static constexpr double edges[] = {0.0, -0.0, 1.0, 7.3, 1e300, -5e-324, 0.1, 123456789.0};
    switch (random_() % 3) {
      case 0: return edges[random_() % std::size(edges)];
      case 1: return std::bit_cast<double>(random_());  // NaN payloads and infinities included
      default: return static_cast<double>(static_cast<std::int64_t>(random_() % 2000000) - 1000000) / 8;
    }
  }

  void append(bson_t* doc, const std::string& k, int depth, bool in_scope, bool in_array) {
    const char* key = k.c_str();
    const int length = static_cast<int>(k.size());
    std::uint64_t type = random_() % (depth < 4 ? 21 : 18);
    if ((in_scope || in_array) && (type == 10 || type == 20)) type = 1;
    switch (type) {
      case 0: bson_append_double(doc, key, length, number()); break;
      case 1: {
        const std::string s = text(true);
        bson_append_utf8(doc, key, length, s.data(), static_cast<int>(s.size()));
        break;
      }
      case 2: {
        std::vector<std::uint8_t> bytes(random_() % 20);
        for (auto& b : bytes) b = static_cast<std::uint8_t>(random_());
        static constexpr bson_subtype_t subtypes[] = {BSON_SUBTYPE_BINARY, BSON_SUBTYPE_UUID, BSON_SUBTYPE_MD5,
                                                      BSON_SUBTYPE_USER, BSON_SUBTYPE_BINARY_DEPRECATED,
                                                      static_cast<bson_subtype_t>(0x07)};
        bson_append_binary(doc, key, length, subtypes[random_() % std::size(subtypes)], bytes.data(),
                           static_cast<std::uint32_t>(bytes.size()));
        break;
      }
      case 3: bson_append_undefined(doc, key, length); break;
      case 4: {
        bson_oid_t oid;
        for (auto& b : oid.bytes) b = static_cast<std::uint8_t>(random_());
        bson_append_oid(doc, key, length, &oid);
        break;
      }
      case 5: bson_append_bool(doc, key, length, random_() % 2 == 0); break;
      case 6: bson_append_date_time(doc, key, length, integer()); break;
      case 7: bson_append_null(doc, key, length); break;
      case 8: {
        std::string pattern = text(false);
        static constexpr const char* options[] = {"", "i", "im", "ilmsux", "msx", "u"};
        bson_append_regex(doc, key, length, pattern.c_str(), options[random_() % std::size(options)]);
        break;
      }
      case 9: {  // (never in an array: to_json refuses that)
        if (in_array) {
          bson_append_null(doc, key, length);
          break;
        }
        bson_oid_t oid;
        for (auto& b : oid.bytes) b = static_cast<std::uint8_t>(random_());
        bson_append_dbpointer(doc, key, length, text(false).c_str(), &oid);
        break;
      }
      case 10: bson_append_code(doc, key, length, text(false).c_str()); break;
      case 11: {
        const std::string s = text(true);
        bson_append_symbol(doc, key, length, s.data(), static_cast<int>(s.size()));
        break;
      }
      case 12: bson_append_int32(doc, key, length, static_cast<std::int32_t>(integer())); break;
      case 13: bson_append_timestamp(doc, key, length, static_cast<std::uint32_t>(random_()), static_cast<std::uint32_t>(random_())); break;
      case 14: bson_append_int64(doc, key, length, integer()); break;
      case 15: {
        bson_decimal128_t value{random_(), random_()};
        if (random_() % 2 == 0) value.high &= 0x0000FFFFFFFFFFFFull | (random_() % 2 == 0 ? 0x3040000000000000ull : 0xB040000000000000ull);
        // (Never a coefficient of 35 digits, which to_json refuses: below 2^112.)
        if (((value.high >> 61) & 3) != 3) value.high &= ~(std::uint64_t{1} << 48);
        bson_append_decimal128(doc, key, length, &value);
        break;
      }
      case 16: bson_append_minkey(doc, key, length); break;
      case 17: bson_append_maxkey(doc, key, length); break;
      case 18: bson_append_document(doc, key, length, next(depth + 1, in_scope).get()); break;
      case 19: {
        const odm::Document fields = next(depth + 1, in_scope, true);
        odm::Document array;  // the same values under the keys an array has
        bson_iter_t it;
        bson_iter_init(&it, fields.get());
        for (int i = 0; bson_iter_next(&it); ++i)
          bson_append_iter(array.get_mutable(), std::to_string(i).c_str(), -1, &it);
        bson_append_array(doc, key, length, array.get());
        break;
      }
      default: bson_append_code_with_scope(doc, key, length, text(false).c_str(), next(depth + 1, true).get()); break;
    }
  }

  std::mt19937_64 random_;
};

}  // namespace odm_hostile
