#pragma once
// Codecs of the standard containers: std::optional, std::vector, std::map, std::variant.

#include <odm/bson/codec.hpp>
#include <odm/bson/detail/variant_alternatives.hpp>
#include <odm/bson/tagged_variant.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/record.hpp>
#include <odm/bson/scalars.hpp>
#include <odm/bson/writer.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace odm {
namespace detail {

/// The array index `i` as a BSON array key, without allocating.
class ArrayKey {
 public:
  explicit ArrayKey(std::uint32_t index) {
    if (index < 1000) {  // libbson's table of "0" ... "999"
      const char* key = nullptr;
      length_ = bson_uint32_to_string(index, &key, buffer_, sizeof buffer_);
      key_ = key;
      return;
    }
    // bson_uint32_to_string falls back to snprintf from 1000 on (~700 instructions a key).
    const auto end = std::to_chars(buffer_, buffer_ + sizeof buffer_, index).ptr;
    *end = '\0';
    key_ = buffer_;
    length_ = static_cast<std::size_t>(end - buffer_);
  }
  // The key may point into this object's own buffer: never copied.
  ArrayKey(const ArrayKey&) = delete;
  ArrayKey& operator=(const ArrayKey&) = delete;
  std::string_view view() const noexcept { return {key_, length_}; }

 private:
  char buffer_[16];
  const char* key_;
  std::size_t length_;
};

/// Appends `values` as a BSON array, each element by its codec; errors name its index.
template <class Range>
void encode_array(bson_t* parent, std::string_view key, const Range& values) {
  using T = std::ranges::range_value_t<Range>;
  const EncodeLevel level;
  ChildWriter array(parent, key, ChildWriter::Kind::array);
  for (const auto& value : values) {
    const ArrayKey element_key(array.next_index());
    at_path(element_key.view(), [&] { codec<T>::encode(array.get(), element_key.view(), value); });
  }
  array.close();
}

/// Decodes each element of a BSON array; errors name the element's index.
template <class Fn>
void for_each_element(const bson_iter_t& it, Fn&& fn) {
  expect_type(it, BSON_TYPE_ARRAY, "array");
  NestedIter nested(it);
  bson_iter_t& child = nested.get();
  std::uint32_t index = 0;
  while (next(child)) {
    // Elements are read by position, but their keys are checked like every key.
    if (!is_valid_key(key_of(child))) [[unlikely]]
      throw DecodeError("a field name is not valid UTF-8");
    at_path(ArrayKey(index).view(), [&] { fn(child); });
    ++index;
  }
}

}  // namespace detail

// std::optional<T>: nullopt is stored as null, so a tree root's `parent: null` has the
// seeds' shape; a null or a missing field decodes to nullopt.
template <mappable T>
struct codec<std::optional<T>> {
  using kind = kinds::nullable<kind_of<T>>;
  // odm's own codec: a user's specialization for one instance of this container has no
  // such member, so detail::checked_encoding does not trust what it writes.
  static constexpr bool odm_checked_codec = true;
  static constexpr bool may_be_absent = true;
  static void encode(bson_t* parent, std::string_view key, const std::optional<T>& value) {
    static_assert(detail::optional_value_distinct<T>::value);
    if (value)
      codec<T>::encode(parent, key, *value);
    else
      detail::check_append(bson_append_null(parent, key.data(), detail::key_length(key)));
  }
  static void decode(const bson_iter_t& it, std::optional<T>& out) {
    static_assert(detail::optional_value_distinct<T>::value);
    if (bson_iter_type(&it) == BSON_TYPE_NULL) {
      out.reset();
      return;
    }
    codec<T>::decode(it, out.emplace());
  }
};

// std::vector<T>: BSON array.
template <mappable T, class Allocator>
struct codec<std::vector<T, Allocator>> {
  using kind = kinds::array<kind_of<T>>;
  // odm's own codec: a user's specialization for one instance of this container has no
  // such member, so detail::checked_encoding does not trust what it writes.
  static constexpr bool odm_checked_codec = true;
  static void encode(bson_t* parent, std::string_view key, const std::vector<T, Allocator>& values) {
    detail::encode_array(parent, key, values);
  }
  static void decode(const bson_iter_t& it, std::vector<T, Allocator>& out) {
    out.clear();
    detail::for_each_element(it, [&](const bson_iter_t& element) {
      if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> hands out proxies, not bool&
        bool value = false;
        codec<bool>::decode(element, value);
        out.push_back(value);
      } else {
        codec<T>::decode(element, out.emplace_back());
      }
    });
  }
};

// std::array<T, N>: a BSON array of exactly N elements.
template <mappable T, std::size_t N>
struct codec<std::array<T, N>> {
  using kind = kinds::array<kind_of<T>>;
  // odm's own codec: a user's specialization for one instance of this container has no
  // such member, so detail::checked_encoding does not trust what it writes.
  static constexpr bool odm_checked_codec = true;
  static void encode(bson_t* parent, std::string_view key, const std::array<T, N>& values) {
    detail::encode_array(parent, key, values);
  }
  static void decode(const bson_iter_t& it, std::array<T, N>& out) {
    std::size_t count = 0;
    detail::for_each_element(it, [&](const bson_iter_t& element) {
      if (count == N) throw DecodeError("more than the " + std::to_string(N) + " elements the array holds");
      codec<T>::decode(element, out[count++]);
    });
    if (count != N)
      throw DecodeError("expected " + std::to_string(N) + " elements, got " + std::to_string(count));
  }
};

// std::map<std::string, T>: a sub-document whose field names are the keys. Keys that
// MongoDB would read as an operator or a path ($-prefixed, containing '.') or that BSON
// cannot hold (NUL) are refused when encoding.
template <mappable T, class Compare, class Allocator>
struct codec<std::map<std::string, T, Compare, Allocator>> {
  using map_type = std::map<std::string, T, Compare, Allocator>;
  using kind = kinds::map<kind_of<T>>;
  // odm's own codec: a user's specialization for one instance of this container has no
  // such member, so detail::checked_encoding does not trust what it writes.
  static constexpr bool odm_checked_codec = true;
  static void encode(bson_t* parent, std::string_view key, const map_type& values) {
    const detail::EncodeLevel level;
    detail::ChildWriter document(parent, key);
    for (const auto& entry : values) {
      const std::string& name = entry.first;
      const T& value = entry.second;
      check_key(name);
      detail::at_path(name, [&] { codec<T>::encode(document.get(), name, value); });
    }
    document.close();
  }
  static void decode(const bson_iter_t& it, map_type& out) {
    detail::expect_type(it, BSON_TYPE_DOCUMENT, "object");
    out.clear();
    detail::NestedIter nested(it);
    bson_iter_t& child = nested.get();
    while (detail::next(child)) {
      std::string name(bson_iter_key(&child), bson_iter_key_len(&child));
      detail::at_path(name, [&] {
        detail::check_utf8(name.data(), name.size(), true);
        T value{};
        codec<T>::decode(child, value);
        if (!out.emplace(name, std::move(value)).second) throw DecodeError("duplicate key");
      });
    }
  }
  static void check_key(const std::string& name) {
    const char* problem = nullptr;
    if (name.empty())
      problem = "is empty, which libmongoc refuses in a stored document";
    else if (name.front() == '$')
      problem = "starts with '$', so MongoDB would read it as an operator";
    else if (name.find('.') != std::string::npos)
      problem = "contains '.', so MongoDB would read it as a path";
    else if (name.find('\0') != std::string::npos)
      problem = "contains a NUL character, which a BSON field name cannot hold";
    else if (!detail::is_valid_utf8(name.data(), name.size()))
      problem = "is not valid UTF-8";
    if (problem != nullptr) [[unlikely]] {
      std::string shown;
      for (char c : name.substr(0, 64)) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
      throw EncodeError("map key \"" + shown + "\" " + problem);
    }
  }
};

// std::variant<A, B, ...>: the active alternative, stored as itself (the seeds' book
// `author` is a string in one document and an array of strings in another). Decoding picks
// one alternative from a shallow look at the stored value (detail::variant_shape: its BSON
// type, for a document its own field names and their types, for an array its elements'
// types) and decodes only that one; an error inside it is the variant's error. Nothing is
// decoded twice, so decoding stays linear in the input however variants nest. Reading back
// what was written gives the same alternative: a variant whose alternatives odm cannot tell
// apart by the stored value does not compile (detail/variant_alternatives.hpp). A variant
// whose alternatives all declare a kind tag is read by its tag instead (tagged_variant.hpp).
template <mappable... T>
struct codec<std::variant<T...>> {
  using kind = kinds::one_of<kind_of<T>...>;
  static constexpr bool by_tag = detail::tagged_alternatives<T...>::value;
  static void encode(bson_t* parent, std::string_view key, const std::variant<T...>& value) {
    check();
    std::visit([&](const auto& alternative) {
      using A = std::remove_cvref_t<decltype(alternative)>;
      if constexpr (by_tag && std::is_same_v<A, UnknownKind>)
        detail::write_unknown_kind<T...>(parent, key, alternative);
      else
        codec<A>::encode(parent, key, alternative);
    }, value);
  }
  static void decode(const bson_iter_t& it, std::variant<T...>& out) {
    check();
    if constexpr (by_tag) {
      detail::decode_tagged(it, out);
    } else {
      std::string reasons;
      const bool decoded = (decode_if_fits<T>(it, out, reasons) || ...);
      if (!decoded) [[unlikely]]
        detail::throw_no_alternative(sizeof...(T), it, reasons);
    }
  }

 private:
  static constexpr void check() {
    static_assert(!detail::tagged_alternatives<T...>::misplaced_unknown,
                  "odm::UnknownKind keeps the documents of kinds a tagged std::variant does not know: it goes last, "
                  "after alternatives that all declare an odm::tag");
    if constexpr (by_tag)
      static_assert(sizeof(detail::tag_table<T...>) > 0);  // instantiates its checks: one field, distinct values
    else
      static_assert(detail::variant_alternatives_checked<T...>::value);
  }
  template <class A>
  static bool decode_if_fits(const bson_iter_t& it, std::variant<T...>& out, std::string& reasons) {
    std::string why;
    if (!detail::variant_shape<A>::fits(it, why)) {
      if (!reasons.empty()) reasons += "; ";
      reasons += why;
      return false;
    }
    codec<A>::decode(it, out.template emplace<A>());
    return true;
  }
};

namespace detail {

/// Whether every element of the array or value of the document at `it` has a BSON type in
/// `types` (one level: what is inside them is not looked at).
bool children_fit(const bson_iter_t& it, type_mask types, std::string& why);

/// A container is picked by its own BSON type and its children's types.
bool container_fits(const bson_iter_t& it, bson_type_t type, type_mask child_types, std::string& why);

template <class T>
struct variant_shape<std::optional<T>> {
  static constexpr type_mask types = type_bit(BSON_TYPE_NULL) | variant_shape<T>::types;
  using reads = reads_nullable<T>;
  static bool fits(const bson_iter_t& it, std::string& why) {
    return bson_iter_type(&it) == BSON_TYPE_NULL || variant_shape<T>::fits(it, why);
  }
};

template <class T, class Allocator>
struct variant_shape<std::vector<T, Allocator>> {
  static constexpr type_mask types = type_bit(BSON_TYPE_ARRAY);
  using reads = reads_array<T, any_count>;
  static bool fits(const bson_iter_t& it, std::string& why) {
    return container_fits(it, BSON_TYPE_ARRAY, variant_shape<T>::types, why);
  }
};

template <class T, std::size_t N>
struct variant_shape<std::array<T, N>> {
  static constexpr type_mask types = type_bit(BSON_TYPE_ARRAY);
  using reads = reads_array<T, N>;
  static bool fits(const bson_iter_t& it, std::string& why) {
    if (!container_fits(it, BSON_TYPE_ARRAY, variant_shape<T>::types, why)) return false;
    std::size_t count = 0;
    for (bson_iter_t child = recurse(it); next(child);) ++count;
    if (count == N) return true;
    why = "expected " + std::to_string(N) + " elements, got " + std::to_string(count);
    return false;
  }
};

template <class T, class Compare, class Allocator>
struct variant_shape<std::map<std::string, T, Compare, Allocator>> {
  static constexpr type_mask types = type_bit(BSON_TYPE_DOCUMENT);
  using reads = reads_map<T>;
  static bool fits(const bson_iter_t& it, std::string& why) {
    return container_fits(it, BSON_TYPE_DOCUMENT, variant_shape<T>::types, why);
  }
};

template <class... T>
struct variant_shape<std::variant<T...>> {
  static constexpr type_mask types = (variant_shape<T>::types | ...);
  using reads = reads_one_of<T...>;
  static bool fits(const bson_iter_t& it, std::string& why) {
    std::string reasons;
    const auto one = [&]<class A>(std::type_identity<A>) {
      std::string reason;
      if (variant_shape<A>::fits(it, reason)) return true;
      if (!reasons.empty()) reasons += "; ";
      reasons += reason;
      return false;
    };
    if ((one(std::type_identity<T>{}) || ...)) return true;
    why = reasons;
    return false;
  }
};

}  // namespace detail

}  // namespace odm
