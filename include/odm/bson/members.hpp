#pragma once
// The member table of a model: everything odm knows about each member, stated once and
// read by every layer (the codec, typed queries, joins, index plans, path checks, and the
// $jsonSchema generator to come).
//
//   odm::member<Book, I>            the I-th member of Book:
//     ::type                        its C++ type
//     ::name                        its C++ name ("title")
//     ::stored_name / nested_name   its field name at the top level of a document ("_id" for
//                                   `id`) and inside an embedded document ("id")
//     ::kind                        what its codec stores (odm/bson/kind.hpp)
//     ::relation                    odm::reference_to<...>, odm::subset_of<...> or odm::no_relation
//     ::when_absent                 what a document without the field decodes to
//     ::previous_name               another field name its value is read from ("" for none;
//                                   odm::renamed_from), and ::writes_previous_name whether
//                                   it is written there too
//     ::value_type                  the C++ type of the stored value (a Ref<T>'s is T's id)
//     ::options                     the member's options from the model (odm::fields(...))
//   odm::members<Book>              the table: size, for_each(fn), index_of(&Book::title)
//   odm::member_of<&Book::title>    the entry of a member named by its pointer
//
// Where the facts come from: names and options from the model (odm/model/model.hpp), kind,
// relation and whether the field may be absent from the member type's codec. A new field
// kind therefore states its facts in its codec; a new per-member option is a struct with a
// `member` pointer, found here in `options`.

#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>
#include <odm/model/id.hpp>
#include <odm/model/model.hpp>
#include <odm/reflect/members.hpp>

#include <boost/pfr/core.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace odm {

/// What a document that lacks a member's field decodes to.
enum class Absent {
  /// Refused: "missing required field" (the default for a member whose type has no
  /// empty state).
  refused,
  /// The member keeps the value the model's value-initialization gives it: its default
  /// member initializer, or its type's empty state (std::optional's nullopt, a ParentRef
  /// without parent). The default for types whose codec says `may_be_absent`; asked for
  /// any member by odm::defaulted(&T::member) (or another option with `when_absent`), or
  /// for every member by the model's `static constexpr auto when_absent = odm::Absent::initial_value;`.
  initial_value,
};

/// Option: what a document without this member's field decodes to (odm::defaulted,
/// odm::required).
template <class T, class M, Absent A>
struct WhenAbsent {
  M T::*member;
  static constexpr Absent when_absent = A;
};

/// A document without this member's field reads it as the member's default member
/// initializer (`std::int32_t retries = 3;` reads 3), so a field added to a model in use
/// reads the documents written before it. odm::fields(odm::defaulted(&Order::retries)).
template <class T, class M>
constexpr WhenAbsent<T, M, Absent::initial_value> defaulted(M T::*member) {
  return {member};
}

/// A document without this member's field is refused ("missing required field"), also in
/// a model whose `when_absent` says otherwise, and also for a std::optional (which then
/// tells a stored null, nullopt, from a missing field, an error).
template <class T, class M>
constexpr WhenAbsent<T, M, Absent::refused> required(M T::*member) {
  return {member};
}

namespace detail {

/// What a missing field of a member without an empty state becomes in T: the model's
/// `when_absent` (`static constexpr auto when_absent = odm::Absent::initial_value;` makes
/// every member default to its initializer), else refused.
template <class T>
consteval Absent model_when_absent() {
  if constexpr (requires { metadata_t<T>::when_absent; }) {
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(metadata_t<T>::when_absent)>, Absent>,
                  "odm: a model's `when_absent` is an odm::Absent (odm::Absent::initial_value or "
                  "odm::Absent::refused)");
    return metadata_t<T>::when_absent;
  } else {
    return Absent::refused;
  }
}

/// The C++ type of what a member of type M stores: a reference's id(s), else M itself.
template <class M, class Relation = relation_of<M>>
struct stored_value {
  using type = M;
};
template <class M, class Target, Dangling P>
struct stored_value<M, reference_to<Target, Relationship::reference, P>> {
  using type = id_type_t<Target>;
};
template <class M, class Target, Dangling P>
struct stored_value<M, reference_to<Target, Relationship::parent_reference, P>> {
  using type = std::optional<id_type_t<Target>>;
};
template <class M, class Target, Dangling P>
struct stored_value<M, reference_to<Target, Relationship::child_references, P>> {
  using type = std::vector<id_type_t<Target>>;
};

template <class T, std::size_t I>
consteval Absent compute_when_absent() {
  using M = boost::pfr::tuple_element_t<I, T>;
  // The member's own option wins over its type's empty state, which wins over the model's.
  Absent absent = may_be_absent<M> ? Absent::initial_value : model_when_absent<T>();
  for_each_option_of<T>(I, [&](const auto& option) {
    if constexpr (requires { option.when_absent; }) absent = option.when_absent;
  });
  return absent;
}

/// The name an option of member I states as `previous_name` ("" when none does).
template <class T, std::size_t I>
consteval std::string_view compute_previous_name() {
  std::string_view name;
  for_each_option_of<T>(I, [&](const auto& option) {
    if constexpr (requires { option.previous_name; }) name = option.previous_name;
  });
  return name;
}
template <class T, std::size_t I>
consteval bool compute_writes_previous_name() {
  bool writes = false;
  for_each_option_of<T>(I, [&](const auto& option) {
    if constexpr (requires { option.writes_previous_name; }) writes = option.writes_previous_name;
  });
  return writes;
}

/// The options of T's model about member I, as a tuple.
template <class T, std::size_t I>
consteval auto compute_member_options() {
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple_cat([&] {
      constexpr const auto& option = std::get<K>(model_options<T>());
      if constexpr (member_index(option.member) == I)
        return std::tuple<std::remove_cvref_t<decltype(option)>>(option);
      else
        return std::tuple<>();
    }()...);
  }(std::make_index_sequence<option_count<T>>{});
}

}  // namespace detail

/// The I-th member of the model T (see the top of this file).
template <reflectable T, std::size_t I>
struct member {
  using model_type = T;
  using type = boost::pfr::tuple_element_t<I, T>;
  static constexpr std::size_t index = I;
  static constexpr std::string_view name = detail::member_names<T>[I];
  static constexpr std::string_view stored_name = stored_names<T, true>[I];
  static constexpr std::string_view nested_name = stored_names<T, false>[I];
  using kind = kind_of<type>;
  using relation = relation_of<type>;
  using value_type = typename detail::stored_value<type>::type;
  static constexpr Absent when_absent = detail::compute_when_absent<T, I>();
  static constexpr auto options = detail::compute_member_options<T, I>();
  static constexpr std::string_view previous_name = detail::compute_previous_name<T, I>();
  static constexpr bool writes_previous_name = !previous_name.empty() && detail::compute_writes_previous_name<T, I>();

  /// The field name at the top level of a document (`Root`) or inside an embedded one.
  static constexpr std::string_view stored_name_at(bool root) noexcept { return root ? stored_name : nested_name; }
  static constexpr type& of(T& value) noexcept { return boost::pfr::get<I>(value); }
  static constexpr const type& of(const T& value) noexcept { return boost::pfr::get<I>(value); }
};

/// The member table of the model T.
template <reflectable T>
struct members {
  static constexpr std::size_t size = detail::member_count<T>;

  template <std::size_t I>
  using at = member<T, I>;

  /// Calls fn(odm::member<T, I>{}) for every member, in declaration order.
  template <class Fn>
  static constexpr void for_each(Fn&& fn) {
    [&]<std::size_t... I>(std::index_sequence<I...>) { (fn(member<T, I>{}), ...); }(std::make_index_sequence<size>{});
  }

  /// Whether fn(odm::member<T, I>{}) is true for some member.
  template <class Fn>
  static constexpr bool any(Fn&& fn) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (static_cast<bool>(fn(member<T, I>{})) || ...);
    }(std::make_index_sequence<size>{});
  }

  /// The position of the first member for which fn(odm::member<T, I>{}) is true, or `size`.
  template <class Fn>
  static constexpr std::size_t find_if(Fn&& fn) {
    std::size_t found = size;
    for_each([&](auto member) {
      if (found == size && fn(member)) found = decltype(member)::index;
    });
    return found;
  }

  /// The position of the member `pointer` designates.
  template <class M>
  static consteval std::size_t index_of(M T::*pointer) {
    return detail::member_index(pointer);
  }
};

namespace detail {

/// Whether a table entry is a ParentRef.
template <class Member>
inline constexpr bool is_parent_reference = Member::relation::kind == Relationship::parent_reference;

/// The position of Item's ParentRef to Owner: how the items of an Owner's Subset point
/// back to it in their own collection.
template <class Item, class Owner>
consteval std::size_t subset_parent_index() {
  constexpr std::size_t found = members<Item>::find_if([](auto member) {
    using Relation = typename decltype(member)::relation;
    if constexpr (Relation::kind == Relationship::parent_reference)
      return std::is_same_v<typename Relation::target, Owner>;
    else
      return false;
  });
  static_assert(found < members<Item>::size,
                "odm::Subset: the item type needs an odm::ParentRef<Owner> member pointing back to its owner");
  return found;
}

/// The member that identifies an item of a Subset: the model's `key`, else its id; `size`
/// when it has neither.
template <class T>
consteval std::size_t subset_key_index() {
  if constexpr (requires { metadata_t<T>::key; })
    return member_index(metadata_t<T>::key);
  else
    return members<T>::find_if([](auto member) { return decltype(member)::stored_name == "_id"; });
}

template <class Pointer>
struct pointer_parts;
template <class T, class M>
struct pointer_parts<M T::*> {
  using model = T;
  using type = M;
};
}  // namespace detail

/// The table entry of the member `Pointer` designates: odm::member_of<&Book::title>.
template <auto Pointer>
using member_of = member<typename detail::pointer_parts<decltype(Pointer)>::model, detail::member_index(Pointer)>;

}  // namespace odm
