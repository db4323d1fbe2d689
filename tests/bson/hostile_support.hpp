#pragma once
// Generators of hostile inputs for the hardening tests: BSON bytes written by hand (values
// libbson would never write: invalid UTF-8 in code, corrupt lengths), documents nested
// tens of thousands of levels deep (built in linear time and without recursion), and a
// thread with a small stack to run a decoder on.

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
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

}  // namespace odm_hostile
