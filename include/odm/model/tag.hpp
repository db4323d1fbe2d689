#pragma once
// Kind tags: a struct that is one kind of several stored in the same place (one alternative
// of a std::variant: a card, a bank transfer and a voucher in `payments`) declares the name
// of its kind, which odm writes as the first field of every document of that struct:
//
//   struct Card {
//     std::string number;
//     struct odm_model {
//       static constexpr auto tag = odm::tag("card");                 // {"_type": "card", ...}
//     };
//   };
//   struct Voucher {
//     std::string code;
//     struct odm_model {
//       static constexpr auto tag = odm::tag("voucher").renamed_from("gift");  // reads "gift" too
//     };
//   };
//
// A std::variant whose alternatives all declare tags is decoded by its tag: the alternative
// it names is decoded, and only that one (odm/bson/tagged_variant.hpp).
//
// The field is `_type` unless the tag says otherwise (`.stored_in("__t")` reads and writes
// Mongoose's convention, `"_class"` Spring Data's, `"_t"` the C# driver's): a leading
// underscore, as in `_id`, marks a field the mapper owns, so it does not collide with a
// member's name, and `_type` is the name Mongoid gives the same field, so other programs'
// readers recognize it. The value is a name you choose and keep, never a compiler-generated
// type name, so renaming the struct or its namespace changes nothing stored; a kind renamed
// later keeps its old names with `renamed_from` (up to four), which are read and never written.

#include <odm/model/model.hpp>

#include <array>
#include <cstddef>
#include <string_view>

namespace odm {

/// A struct's kind tag: the value `value` in the field `field`, and older values read as it.
struct Tag {
  static constexpr std::size_t max_previous = 4;
  std::string_view value;
  std::string_view field = "_type";
  std::array<std::string_view, max_previous> previous{};
  std::size_t previous_count = 0;

  /// Another value documents of this kind may carry: read as this kind, never written.
  constexpr Tag renamed_from(std::string_view old_value) const {
    Tag copy = *this;
    if (copy.previous_count == max_previous) throw "odm::tag: at most four renamed_from values";
    copy.previous[copy.previous_count++] = old_value;
    return copy;
  }
  /// The field the tag is stored in (`_type` by default).
  constexpr Tag stored_in(std::string_view field_name) const {
    Tag copy = *this;
    copy.field = field_name;
    return copy;
  }
  /// Whether a stored value names this kind (its value, or one it was renamed from).
  constexpr bool names(std::string_view stored) const noexcept {
    if (stored == value) return true;
    for (std::size_t i = 0; i < previous_count; ++i)
      if (previous[i] == stored) return true;
    return false;
  }
};

/// The kind tag `value`, stored in `_type`.
constexpr Tag tag(std::string_view value) { return Tag{value}; }

/// Whether T's model declares a kind tag (`static constexpr auto tag = odm::tag(...)`).
template <class T>
concept tagged = requires {
  { detail::metadata_t<T>::tag } -> std::convertible_to<Tag>;
};

namespace detail {
/// A value a tag field may hold: a non-empty UTF-8 string without NUL characters.
constexpr bool valid_tag_value(std::string_view value) {
  return !value.empty() && is_utf8(value) && value.find('\0') == std::string_view::npos;
}
constexpr bool previous_values_valid(const Tag& tag) {
  for (std::size_t i = 0; i < tag.previous_count; ++i)
    if (!valid_tag_value(tag.previous[i]) || tag.previous[i] == tag.value) return false;
  return true;
}
}  // namespace detail

/// T's kind tag.
template <tagged T>
inline constexpr Tag tag_of = [] {
  constexpr Tag tag = detail::metadata_t<T>::tag;
  static_assert(detail::valid_tag_value(tag.value), "odm::tag: a kind's tag is a non-empty UTF-8 string without NUL characters");
  static_assert(detail::is_valid_field_name(tag.field) && tag.field != "_id",
                "odm::tag: stored_in needs a field name that is not `_id`, does not start with '$' and holds no '.'");
  static_assert(detail::previous_values_valid(tag),
                "odm::tag: a renamed_from value is the tag's own value, or is not a non-empty UTF-8 string without NUL "
                "characters");
  if constexpr (has_schema_versions<T>)
    static_assert(tag.field != schema_version_field,
                  "odm::tag: this model's schema versions are stored in `schema_version`, so its kind's tag cannot "
                  "be; store the tag in another field");
  return tag;
}();

}  // namespace odm
