#pragma once
// Model metadata: how a struct is stored. Declared either inside the struct,
//
//   struct Book {
//     std::int64_t id;                      // stored as _id
//     std::string title;
//     struct odm_model {
//       static constexpr auto fields = odm::fields(odm::rename(&Book::title, "book_title"));
//       static constexpr bool strict = true; // unknown fields are a DecodeError
//     };
//   };
//
// or, for a type the user cannot edit, outside it:
//
//   template <> struct odm::model<vendor::Point> {
//     static constexpr auto fields = odm::fields(odm::rename(&vendor::Point::x, "lon"));
//   };
//
// Every entry is optional; a struct without any metadata is stored under its member
// names, with `id` stored as `_id`.

#include <odm/error.hpp>
#include <odm/model/utf8_sequence.hpp>
#include <odm/reflect/members.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace odm {

/// Specialize for a type you cannot edit (the primary template means "no metadata").
template <class T>
struct model {
  using odm_no_model = void;
};

/// Stores member `member` under the field name `stored_name`.
template <class T, class M>
struct Rename {
  M T::*member;
  std::string_view stored_name;
};

template <class T, class M>
constexpr Rename<T, M> rename(M T::*member, std::string_view stored_name) {
  return {member, stored_name};
}

/// A per-member option of a model: any value whose `member` is a pointer to the member it
/// is about. The vocabulary is open: odm reads the facts it knows from an option that
/// states them (`stored_name`: odm::rename; `when_absent`: what a missing field becomes),
/// and the member table (odm/bson/members.hpp) carries every option of a member, so a
/// layer that defines an option of its own finds it there.
template <class O>
concept member_option = std::is_member_object_pointer_v<decltype(O::member)>;

/// The per-member options of a model.
template <class... Options>
struct FieldOptions {
  std::tuple<Options...> options;
};

template <member_option... Options>
constexpr FieldOptions<Options...> fields(Options... options) {
  return {{options...}};
}

namespace detail {

template <class T>
concept has_inner_model = requires { typename T::odm_model; };
template <class T>
concept has_outer_model = !requires { typename model<T>::odm_no_model; };

struct no_metadata {};

template <class T>
constexpr auto metadata_of() {
  static_assert(!(has_inner_model<T> && has_outer_model<T>),
                "odm: this type declares its model twice, as a nested `odm_model` and as an odm::model<T> "
                "specialization; keep one");
  if constexpr (has_outer_model<T>)
    return model<T>{};
  else if constexpr (has_inner_model<T>)
    return typename T::odm_model{};
  else
    return no_metadata{};
}

/// The metadata type of T: odm::model<T>, T::odm_model, or nothing.
template <class T>
using metadata_t = decltype(metadata_of<T>());

}  // namespace detail

/// Whether documents of T may carry fields T does not declare (the default: yes, and
/// they are ignored). A model opts into strict decoding with `strict = true`.
template <class T>
inline constexpr bool is_strict = [] {
  if constexpr (requires { detail::metadata_t<T>::strict; })
    return static_cast<bool>(detail::metadata_t<T>::strict);
  else
    return false;
}();

/// The field a model with schema versions (odm/evolution/versions.hpp) stores the version
/// of each document in, as an int32 after the model's members.
inline constexpr std::string_view schema_version_field = "schema_version";

/// Whether T declares schema versions: `static constexpr auto schema = odm::schema_versions<N>(...);`
/// in its model (odm/evolution/versions.hpp). Only whole documents carry a version.
template <class T>
concept has_schema_versions = requires { detail::metadata_t<T>::schema.current; };

namespace detail {

constexpr bool is_valid_field_name(std::string_view name) {
  return !name.empty() && name.front() != '$' && name.find('.') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos && is_utf8(name);
}

inline constexpr std::tuple<> no_options{};

/// The options of T's model (an empty tuple when it declares none).
template <class T>
constexpr const auto& model_options() {
  if constexpr (requires { metadata_t<T>::fields.options; })
    return metadata_t<T>::fields.options;
  else
    return no_options;
}

template <class T>
inline constexpr std::size_t option_count = std::tuple_size_v<std::remove_cvref_t<decltype(model_options<T>())>>;

/// Calls fn(option) for each option of T's model about member `index`, in declaration order.
template <class T, class Fn>
constexpr void for_each_option_of(std::size_t index, Fn&& fn) {
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (
        [&] {
          constexpr const auto& option = std::get<K>(model_options<T>());
          if (member_index(option.member) == index) fn(option);
        }(),
        ...);
  }(std::make_index_sequence<option_count<T>>{});
}

template <class T, bool Root>
consteval auto compute_stored_names() {
  std::array<std::string_view, member_count<T>> names = member_names<T>;
  if constexpr (Root) {
    for (auto& name : names)
      if (name == "id") name = "_id";
  }
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (
        [&] {
          constexpr const auto& option = std::get<K>(model_options<T>());
          if constexpr (requires { option.stored_name; }) names[member_index(option.member)] = option.stored_name;
        }(),
        ...);
  }(std::make_index_sequence<option_count<T>>{});
  return names;
}

/// The struct a member pointer belongs to.
template <class Pointer>
struct member_pointer_class;
template <class C, class M>
struct member_pointer_class<M C::*> {
  using type = C;
};

/// Whether every option of T's model names a member of T itself: `member_index` of a
/// pointer into another struct is a position in that struct, which would silently apply
/// the option to whichever member of T sits there.
template <class T>
consteval bool options_name_own_members() {
  return []<std::size_t... K>(std::index_sequence<K...>) {
    return (std::is_same_v<typename member_pointer_class<std::remove_cvref_t<
                               decltype(std::get<K>(model_options<T>()).member)>>::type,
                           std::remove_cv_t<T>> &&
            ...);
  }(std::make_index_sequence<option_count<T>>{});
}

/// Whether no member has two options stating the same fact (two stored names, two rules
/// for a missing field, two previous names): the later one would silently win.
template <class T>
consteval bool options_state_each_fact_once() {
  if constexpr (!options_name_own_members<T>()) return true;  // reported on its own
  std::array<int, member_count<T>> names{}, absent{}, previous{};
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (
        [&] {
          constexpr const auto& option = std::get<K>(model_options<T>());
          if constexpr (requires { option.stored_name; }) ++names[member_index(option.member)];
          if constexpr (requires { option.when_absent; }) ++absent[member_index(option.member)];
          if constexpr (requires { option.previous_name; }) ++previous[member_index(option.member)];
        }(),
        ...);
  }(std::make_index_sequence<option_count<T>>{});
  for (std::size_t i = 0; i < member_count<T>; ++i)
    if (names[i] > 1 || absent[i] > 1 || previous[i] > 1) return false;
  return true;
}

template <class T, bool Root>
consteval bool stored_names_are_unique() {
  auto names = compute_stored_names<T, Root>();
  std::sort(names.begin(), names.end());
  return std::adjacent_find(names.begin(), names.end()) == names.end();
}

template <class T, bool Root>
consteval bool stored_names_are_valid() {
  for (auto name : compute_stored_names<T, Root>())
    if (!is_valid_field_name(name)) return false;
  return true;
}

}  // namespace detail

/// The field names T's members are stored under, in declaration order. A member named
/// `id` is stored as `_id` at the top level of a document (`Root`), where MongoDB gives
/// `_id` its meaning, and as `id` inside an embedded document (the seeds' `imdb.id`).
/// odm::rename applies in both places.
template <reflectable T, bool Root = true>
inline constexpr auto stored_names = [] {
  static_assert(detail::options_name_own_members<T>(),
                "odm: an option in this model's odm::fields(...) names a member of another struct; name the "
                "members of the model itself (&Model::member)");
  static_assert(detail::options_state_each_fact_once<T>(),
                "odm: a member has two options saying the same thing (two odm::rename, two odm::renamed_from, or two of odm::defaulted "
                "and odm::required); keep one");
  static_assert(detail::stored_names_are_unique<T, Root>(),
                "odm: two members of this struct are stored under the same field name; rename one with "
                "odm::rename(&T::member, \"name\")");
  static_assert(detail::stored_names_are_valid<T, Root>(),
                "odm: a stored field name is empty, starts with '$', contains '.' or NUL, or is not valid UTF-8; "
                "MongoDB would read it as an operator or a path, or refuse it");
  return detail::compute_stored_names<T, Root>();
}();

/// The field name the member `pointer` is stored under: odm::field_name(&Book::title).
template <class T, class M>
consteval std::string_view field_name(M T::*pointer) {
  return stored_names<T>[detail::member_index(pointer)];
}

/// The same, for a member pointer that is only known at run time (a function parameter).
/// It finds the member by its address in one value-initialized T, kept for the program's
/// lifetime; T must be default-constructible, as every decodable model is.
template <reflectable T, class M>
std::string_view runtime_field_name(M T::*pointer) {
  static const T probe{};
  const void* target = &(probe.*pointer);
  std::size_t found = detail::member_count<T>;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (void)((std::is_same_v<boost::pfr::tuple_element_t<I, T>, M> &&
                    static_cast<const void*>(&boost::pfr::get<I>(probe)) == target
                ? (found = I, true)
                : false) ||
           ...);
  }(std::make_index_sequence<detail::member_count<T>>{});
  if (found == detail::member_count<T>) throw UsageError("runtime_field_name: the member pointer is not a member of its model");
  return stored_names<T>[found];
}

}  // namespace odm
