#pragma once
// The collection a model is stored in. Declared in the model's metadata,
//
//   struct Book {
//     ...
//     struct odm_model { static constexpr std::string_view collection = "books"; };
//   };
//
// (or in an odm::model<T> specialization), and otherwise derived from the type's
// unqualified name in snake_case: BookReview -> "book_review", HTTPLog -> "http_log",
// shop::Movie -> "movie". The type name is read at compile time from
// __PRETTY_FUNCTION__ (odm/reflect/pretty_name.hpp).

#include <odm/model/model.hpp>
#include <odm/reflect/pretty_name.hpp>

#include <array>
#include <cstddef>
#include <string_view>

namespace odm {
namespace detail {

constexpr bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool is_lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

template <std::size_t N>
struct fixed_name {
  std::array<char, N> text{};
  std::size_t size = 0;
  constexpr std::string_view view() const { return {text.data(), size}; }
};

/// snake_case of T's unqualified name, stored in a constant so a string_view can point at it.
template <class T>
inline constexpr auto snake_case_type_name = [] {
  constexpr std::string_view name = unqualified_type_name<T>();
  fixed_name<name.size() * 2 + 1> out{};
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (is_upper(c)) {
      const bool after_word = i > 0 && is_lower_or_digit(name[i - 1]);
      const bool acronym_end = i > 0 && is_upper(name[i - 1]) && i + 1 < name.size() && is_lower_or_digit(name[i + 1]) &&
                               !(name[i + 1] >= '0' && name[i + 1] <= '9');
      if ((after_word || acronym_end) && out.size > 0 && out.text[out.size - 1] != '_') out.text[out.size++] = '_';
      out.text[out.size++] = static_cast<char>(c - 'A' + 'a');
    } else {
      out.text[out.size++] = c;
    }
  }
  return out;
}();

constexpr bool is_valid_collection_name(std::string_view name) {
  return !name.empty() && name.find('$') == std::string_view::npos && name.find('\0') == std::string_view::npos &&
         !name.starts_with("system.");
}

}  // namespace detail

/// The default collection name of T: its unqualified type name in snake_case.
template <class T>
inline constexpr std::string_view default_collection_name = detail::snake_case_type_name<T>.view();

/// The collection T is stored in: the metadata's `collection` entry, else the default.
template <class T>
inline constexpr std::string_view collection_name = [] {
  constexpr std::string_view name = [] {
    if constexpr (requires { detail::metadata_t<T>::collection; })
      return std::string_view(detail::metadata_t<T>::collection);
    else
      return default_collection_name<T>;
  }();
  static_assert(detail::is_valid_collection_name(name),
                "odm: the collection name of this model is empty, contains '$' or starts with \"system.\"; set "
                "`static constexpr std::string_view collection = \"...\";` in its metadata");
  return name;
}();

}  // namespace odm
