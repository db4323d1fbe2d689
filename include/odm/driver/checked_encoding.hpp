#pragma once
// Whether odm's encoder of a model already guarantees everything libmongoc's insert
// validation checks, so that insert_one may send it with `validate: false` instead of
// walking the document a second time (issue 12: that walk was about 40% of an insert's
// client CPU). libmongoc 1.23's default insert validation walks the whole document and
// refuses empty keys; other versions also check UTF-8 and '$'/'.' keys. odm's own codecs
// guarantee all of these.
//
// Yes only for documents made of odm's own codecs that check it while encoding:
//   - field names: a model's stored names are checked at compile time (model.hpp);
//   - strings: codec<std::string> refuses invalid UTF-8 before appending (a NUL inside a
//     value is valid BSON, and libmongoc accepts it too);
//   - map keys: codec<std::map<std::string, T>> refuses empty, '$'-prefixed, dotted, NUL
//     and invalid UTF-8 keys;
//   - numbers, bool, dates, Decimal, Money (a 3-letter code), ObjectId: no text at all;
//   - optional, vector, array, map of such values, and plain structs of such members.
// Anything else (a user's codec, odm::Extra's kept fields, references, variants, Binary,
// enums, Subset, raw documents) keeps libmongoc's validation: the answer is "no" unless
// every member says yes.

#include <odm/bson/record.hpp>
#include <odm/fields/object_id.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace odm {
class Decimal;  // odm/fields/decimal.hpp and money.hpp: named here, not included (compile time)
class Money;
}  // namespace odm

namespace odm::detail {

// Whether codec<T> is odm's own partial specialization rather than a user's specialization
// of one instance of a standard template (a codec for std::vector<Point>, or for a time point
// of some duration): only odm's own is known to check what it writes.
template <class T>
concept odm_checked_codec = requires { requires codec<T>::odm_checked_codec; };

template <class T>
struct checked_leaf : std::false_type {};
template <>
struct checked_leaf<bool> : std::true_type {};
template <>
struct checked_leaf<double> : std::true_type {};
template <>
struct checked_leaf<std::int32_t> : std::true_type {};
template <>
struct checked_leaf<std::int64_t> : std::true_type {};
template <>
struct checked_leaf<std::string> : std::true_type {};
template <class Duration>
struct checked_leaf<std::chrono::time_point<std::chrono::system_clock, Duration>>
    : std::bool_constant<odm_checked_codec<std::chrono::time_point<std::chrono::system_clock, Duration>>> {};
template <>
struct checked_leaf<Decimal> : std::true_type {};
template <>
struct checked_leaf<Money> : std::true_type {};
template <>
struct checked_leaf<ObjectId> : std::true_type {};

template <class T>
consteval bool checked_encoding_of();

template <class T, std::size_t... I>
consteval bool checked_members(std::index_sequence<I...>) {
  return (checked_encoding_of<typename member<T, I>::type>() && ...);
}

template <class T>
struct checked_container : std::false_type {};
template <class T>
struct checked_container<std::optional<T>>
    : std::bool_constant<odm_checked_codec<std::optional<T>> && checked_encoding_of<T>()> {};
template <class T, class Allocator>
struct checked_container<std::vector<T, Allocator>>
    : std::bool_constant<odm_checked_codec<std::vector<T, Allocator>> && checked_encoding_of<T>()> {};
template <class T, std::size_t N>
struct checked_container<std::array<T, N>>
    : std::bool_constant<odm_checked_codec<std::array<T, N>> && checked_encoding_of<T>()> {};
template <class T, class Compare, class Allocator>
struct checked_container<std::map<std::string, T, Compare, Allocator>>
    : std::bool_constant<odm_checked_codec<std::map<std::string, T, Compare, Allocator>> && checked_encoding_of<T>()> {};

template <class T>
consteval bool checked_encoding_of() {
  if constexpr (checked_leaf<T>::value || checked_container<T>::value) {
    return true;
  } else if constexpr (reflectable<T> && is_record<T>) {
    // Stored as a sub-document by the record codec (is_record: not a codec of its own, as
    // odm::Binary has), with no member keeping fields odm did not write.
    if constexpr (keeps_unknown_fields<T>)
      return false;
    else
      return checked_members<T>(std::make_index_sequence<members<T>::size>{});
  } else {
    return false;
  }
}

/// True when to_bson(value) of a model T always passes libmongoc's insert validation, so
/// validating again would only cost time.
template <class T>
inline constexpr bool checked_encoding = checked_encoding_of<T>();

}  // namespace odm::detail
