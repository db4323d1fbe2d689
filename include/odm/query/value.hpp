#pragma once
// The typing rules of odm's query builders: which C++ values a field accepts, what an
// array field's elements are, which struct a path step enters, and how a value is
// appended as BSON. Every user value goes through odm::codec<M>::encode of the field's
// own type M, so a string is always a BSON string and can never become an operator.

#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/members.hpp>
#include <odm/bson/record.hpp>
#include <odm/bson/scalars.hpp>
#include <odm/bson/writer.hpp>
#include <odm/fields/embedded.hpp>
#include <odm/model/direction.hpp>
#include <odm/model/model.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace odm {

class Decimal;

/// Whether `$inc`/`$mul` apply to a field of type T: the integer and floating-point types
/// (not bool, not characters) and odm::Decimal. Specialize for a numeric type of your own.
template <class T>
inline constexpr bool is_numeric =
    std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
    !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> &&
    !std::is_same_v<T, char32_t>;
template <>
inline constexpr bool is_numeric<Decimal> = true;

/// The longest dotted path a typed query can name (`a.b.c...`, 8 fields).
inline constexpr std::size_t max_path_depth = 8;

template <class Scope, class Value, bool ThroughArray, bool Positional>
class Path;

/// The scope of a condition on one element of an array whose elements are E, as in
/// `$elemMatch` and `$pull` (query/path.hpp).
template <class E>
class Element;

namespace detail {

template <class T>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;

template <class T>
inline constexpr bool is_embedded = false;
template <class T>
inline constexpr bool is_embedded<Embedded<T>> = true;

template <class T>
struct strip_optional {
  using type = T;
};
template <class T>
struct strip_optional<std::optional<T>> {
  using type = T;
};
template <class T>
using strip_optional_t = typename strip_optional<T>::type;

/// Whether a value of kind Kind is a BSON array (or null or an array).
template <class Kind>
inline constexpr bool is_array_kind = false;
template <class Element>
inline constexpr bool is_array_kind<kinds::array<Element>> = true;
template <class Kind>
inline constexpr bool is_array_kind<kinds::nullable<Kind>> = is_array_kind<Kind>;

/// The element type of an array whose codec does not say it and that is no range: the
/// array takes conditions on itself ($size, $exists) but no element values.
struct unknown_element {};

/// The C++ type of the elements of M, stored as an array: the codec's `element_type`
/// when it states one (a user codec of an array kind may), else M's range value type
/// (std::vector, std::array, odm::Subset).
template <class M>
consteval auto element_type_of() {
  if constexpr (requires { typename codec<M>::element_type; })
    return std::type_identity<typename codec<M>::element_type>{};
  else if constexpr (std::ranges::range<M>)
    return std::type_identity<std::ranges::range_value_t<M>>{};
  else
    return std::type_identity<unknown_element>{};
}

/// What a query sees of a member of type M: the value it stores, so references are
/// queried, set and pushed as the ids they hold (the member table's `value_type`).
template <class M>
using query_view_t = typename stored_value<M>::type;

/// A field its codec stores as a BSON array (its kind, odm/bson/kind.hpp, says so):
/// std::vector, std::array, odm::Subset, a user type of an array kind, or an optional one.
template <class M>
inline constexpr bool is_array_field = is_array_kind<kind_of<M>>;
/// The element type E of an array field.
template <class M>
using element_t = typename decltype(element_type_of<strip_optional_t<M>>())::type;

/// Whether odm writes element values of the array field M itself ($push, $all, $in, an
/// element compared): not for an odm::Subset, whose items are written by the
/// odm::subset operations (join/subset.hpp) that keep their own collection in step and
/// store them without their ParentRefs.
template <class M>
inline constexpr bool writes_element_values = relation_of<strip_optional_t<M>>::kind != Relationship::subset;

/// Whether M holds exactly a fixed number of elements (std::array): an update that adds
/// or removes elements would leave an array of another length, which does not decode.
template <class M>
inline constexpr bool is_fixed_size_array = false;
template <class E, std::size_t N>
inline constexpr bool is_fixed_size_array<std::array<E, N>> = true;
template <class M>
inline constexpr bool is_fixed_size_array<std::optional<M>> = is_fixed_size_array<M>;

/// The type the element lists of array operators ($each, $pullAll) are written in; a
/// placeholder for fields that are not arrays (those operators refuse them).
struct not_an_array {};
template <class M>
using list_element_t = std::conditional_t<is_array_field<M>, element_t<M>, not_an_array>;

/// What `$in`, `$nin` and `$all` list: an array's elements, or the (non-null) value.
template <class M>
using query_value_t = std::conditional_t<is_array_field<M>, element_t<M>, strip_optional_t<M>>;

/// The struct whose members a document of kind Kind holds, through null and arrays
/// (void when it holds none).
template <class Kind>
struct record_of_kind {
  using type = void;
};
template <class Record>
struct record_of_kind<kinds::document<Record>> {
  using type = Record;
};
template <class Kind>
struct record_of_kind<kinds::nullable<Kind>> : record_of_kind<Kind> {};
template <class Kind>
struct record_of_kind<kinds::array<Kind>> : record_of_kind<Kind> {};
template <class Record>
struct record_of_kind<kinds::subset_item<Record>> {
  using type = Record;
};

/// The struct a `/` step after a field of type M enters, as M's codec stores it: an
/// embedded struct, an optional one, or an array of them.
template <class M>
using document_of_t = typename record_of_kind<kind_of<M>>::type;

/// A type stored as a sub-document of a struct's members (or an array of them).
template <class M>
inline constexpr bool is_document = !std::is_void_v<document_of_t<M>>;

template <class T>
inline constexpr bool is_element_scope = false;
template <class E>
inline constexpr bool is_element_scope<Element<E>> = true;

template <class T>
inline constexpr bool is_character = std::is_same_v<T, char> || std::is_same_v<T, wchar_t> ||
                                     std::is_same_v<T, char8_t> || std::is_same_v<T, char16_t> ||
                                     std::is_same_v<T, char32_t>;

/// Whether a value of (decayed) type D may stand for a field of type M: M itself, or a
/// value that converts to it without surprises. Numbers: no narrowing (an int literal
/// for an int64 field, an integer for a double field, never a double for an integer
/// field or a number for a bool); enums and bool: only themselves; strings: anything
/// that is a string_view; optional fields: their value or std::nullopt.
template <class M, class D>
consteval bool accepts_value() {
  if constexpr (std::is_same_v<D, M>) {
    return true;
  } else if constexpr (std::is_same_v<D, std::nullptr_t>) {
    return false;
  } else if constexpr (is_optional<M>) {
    return std::is_same_v<D, std::nullopt_t> || accepts_value<typename M::value_type, D>();
  } else if constexpr (is_embedded<M>) {
    return accepts_value<typename M::value_type, D>();
  } else if constexpr (std::is_same_v<M, bool> || std::is_enum_v<M> || is_character<M>) {
    return false;
  } else if constexpr (std::is_arithmetic_v<M>) {
    if constexpr (!std::is_arithmetic_v<D> || std::is_same_v<D, bool> || is_character<D>)
      return false;
    else if constexpr (std::is_floating_point_v<M> && std::is_integral_v<D>)
      return true;
    else
      return requires(D d) { M{d}; };
  } else if constexpr (std::is_same_v<M, std::string>) {
    return std::is_convertible_v<const D&, std::string_view>;
  } else {
    return std::is_convertible_v<const D&, M>;
  }
}

template <class M, class X>
inline constexpr bool accepts = accepts_value<M, std::decay_t<X>>();

/// An array field compared with one element (`{topics: "voyage"}` matches any element).
template <class M, class X>
inline constexpr bool accepts_element = [] {
  if constexpr (is_array_field<M> && writes_element_values<M>)
    return accepts<element_t<M>, X>;
  else
    return false;
}();

/// What a comparison with a field of type M takes: an element (for arrays) or a value.
template <class M, class X>
inline constexpr bool comparable = accepts_element<M, X> || accepts<M, X>;

/// Appends `value` under `key` as the field type M stores it.
template <class M, class X>
void append_value(bson_t* parent, std::string_view key, const X& value) {
  using D = std::decay_t<X>;
  if constexpr (std::is_same_v<D, M>) {
    codec<M>::encode(parent, key, value);
  } else if constexpr (is_optional<M>) {
    if constexpr (std::is_same_v<D, std::nullopt_t>)
      check_append(bson_append_null(parent, key.data(), key_length(key)));
    else
      append_value<typename M::value_type>(parent, key, value);
  } else if constexpr (is_embedded<M>) {
    append_value<typename M::value_type>(parent, key, value);
  } else {
    const M converted(value);
    codec<M>::encode(parent, key, converted);
  }
}

/// Appends a value compared with a field of type M: as an element when it is one.
template <class M, class X>
void append_comparable(bson_t* parent, std::string_view key, const X& value) {
  if constexpr (accepts_element<M, X>)
    append_value<element_t<M>>(parent, key, value);
  else
    append_value<M>(parent, key, value);
}

/// Appends a BSON array `key` of the values of `range`, each stored as an M.
template <class M, class Range>
void append_array(bson_t* parent, std::string_view key, const Range& range) {
  ChildWriter array(parent, key, ChildWriter::Kind::array);
  for (const auto& value : range) {
    const ArrayKey element_key(array.next_index());
    append_value<M>(array.get(), element_key.view(), value);
  }
  array.close();
}

/// The stored names of a path, kept as views of the compile-time name tables. The
/// first field is also kept under its embedded-document name (`id` rather than `_id`),
/// for specifications that apply inside array elements ($push's $sort).
struct PathNames {
  std::array<std::string_view, max_path_depth> names{};
  std::string_view first_nested{};
  std::size_t depth = 0;
  /// Whether the member table says the field's document decodes without it (an optional,
  /// a ParentRef, odm::defaulted; not odm::required): what `$unset` may remove.
  bool may_be_unset = false;
  /// What a value assigned to the field ($set, $setOnInsert, $min, $max) must be, beyond
  /// its type: a part of odm's own sub-documents (odm/query/parts.hpp) is never null, and a
  /// Money's currency is an ISO 4217 code, or the Money would no longer decode.
  enum class Assigned : unsigned char { any, not_null, currency_code };
  Assigned assigned = Assigned::any;
  /// The previous name odm still writes for the first field (odm::renamed_from), "" for
  /// none: an aggregation reads `{$ifNull: ["$previous...", "$name..."]}` (aggregation.cpp).
  std::string_view previous_root{};
  /// Whether a step of the path before the last is an optional sub-document: a document
  /// without it has no value here, whatever the last member's type (an aggregation
  /// expression reads null: odm/aggregation/expression.hpp).
  bool through_optional = false;

  constexpr void push(std::string_view name) {
    if (depth == max_path_depth) throw "odm: a typed path is at most odm::max_path_depth (8) fields deep";
    names[depth++] = name;
  }

  /// "addresses.city", with the top-level name of the first field (`_id`) unless `nested`.
  std::string dotted(bool nested = false) const;  // query.cpp
};

/// A value a field refuses (PathNames::assigned): odm::ValueError naming the path (query.cpp).
[[noreturn]] void throw_assigned_null(const PathNames& names);
void check_assigned_currency(const PathNames& names, std::string_view code);

/// Checks `value`, about to be assigned to the field `names`, against PathNames::assigned.
template <class X>
void check_assigned(const PathNames& names, const X& value) {
  if constexpr (std::is_same_v<X, std::nullopt_t>) {
    throw_assigned_null(names);
  } else if constexpr (is_optional<X>) {
    if (!value) throw_assigned_null(names);
    check_assigned(names, *value);
  } else if constexpr (std::is_convertible_v<const X&, std::string_view>) {
    if (names.assigned == PathNames::Assigned::currency_code) check_assigned_currency(names, std::string_view(value));
  }
}

/// Per member of T, whether a document of T without the member's field decodes (its
/// `when_absent` in the member table).
template <class T>
inline constexpr auto absent_decodes = [] {
  std::array<bool, members<T>::size> decodes{};
  members<T>::for_each(
      [&](auto member) { decodes[decltype(member)::index] = decltype(member)::when_absent == Absent::initial_value; });
  return decodes;
}();

/// Per member of T, the previous name odm still writes for it ("" for none).
template <class T>
inline constexpr auto written_previous_root = [] {
  std::array<std::string_view, members<T>::size> previous{};
  members<T>::for_each([&](auto member) {
    using M = decltype(member);
    if constexpr (M::writes_previous_name) previous[M::index] = M::previous_name;
  });
  return previous;
}();

template <class T>
consteval PathNames root_names_at(std::size_t index) {
  PathNames names;
  names.push(stored_names<T, true>[index]);
  names.first_nested = stored_names<T, false>[index];
  names.may_be_unset = absent_decodes<T>[index];
  names.previous_root = written_previous_root<T>[index];
  return names;
}

/// The names of a path to a model's member. (No local variable holds the index: clang 14
/// refuses a consteval call with a parameter in a variable's initializer here.)
template <class T, class M>
consteval PathNames root_names(M T::*member) {
  return root_names_at<T>(member_index(member));
}

}  // namespace detail

/// One key of a sort over documents of T: a path and a direction (query/sort.hpp).
template <class T>
struct SortKey {
  detail::PathNames path;
  Direction direction = Direction::ascending;
};

}  // namespace odm
