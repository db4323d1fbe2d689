#pragma once
// Compile-time member names of plain aggregates.
//
// Boost.PFR 1.81 (Debian bookworm) gives the count, types and positional access of an
// aggregate's members, but not their names (boost::pfr::get_name arrived in 1.84).
// odm recovers the names itself: it instantiates a function template on a pointer to
// the I-th member of an object that is declared but never defined, and reads the
// member's name back out of that function's __PRETTY_FUNCTION__ text
// (reflect/pretty_name.hpp), which g++ and clang spell "{(&object.value.T::member_name)}"
// and "{&object.value.member_name}".
// The object is the never-active member of a constexpr union, so no T is ever
// constructed (T needs no default constructor) and only addresses are taken, in constant
// expressions. Being defined, it also works for types in anonymous namespaces, which an
// extern declaration would not (clang refuses to "use" such a variable undefined).

#include <odm/reflect/pretty_name.hpp>

#include <boost/pfr/core.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm {

/// A struct odm can reflect: a plain aggregate with no base classes, as Boost.PFR needs.
template <class T>
concept reflectable = std::is_class_v<T> && std::is_aggregate_v<T> && !std::is_union_v<T>;

namespace detail {

template <class T>
union ReflectionHolder {
  T value;  // never constructed: only the addresses of its members are taken
  char inactive;
  constexpr ReflectionHolder() : inactive() {}
  ~ReflectionHolder() {}  // not constexpr: clang 14 would demand T's destructor be constexpr
};

// Not constexpr for the same reason; constant-initialized all the same (the constructor
// is constexpr), and constant expressions only take the addresses of its members.
template <class T>
inline const ReflectionHolder<T> reflection_holder{};

/// Wraps the member's address so that clang 14, which does not accept pointers to
/// subobjects as template arguments directly, accepts it inside a class-type argument.
template <class M>
struct member_address {
  const M* address;
};

/// The I-th member of the reflection object (a reference, usable in constant expressions).
template <class T, std::size_t I>
consteval const auto& reflected_member() {
  return boost::pfr::get<I>(reflection_holder<T>.value);
}

template <class T, std::size_t I>
consteval std::string_view member_name() {
  constexpr const auto& member = reflected_member<T, I>();
  using M = std::remove_cvref_t<decltype(member)>;
  return last_identifier(template_argument_text(pretty_function_of_value<member_address<M>{&member}>()));
}

template <class T>
inline constexpr std::size_t member_count = boost::pfr::tuple_size_v<T>;

/// Names of T's members in declaration order, e.g. {"id", "title", "author"}.
template <class T>
inline constexpr auto member_names = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<std::string_view, sizeof...(I)>{member_name<T, I>()...};
}(std::make_index_sequence<member_count<T>>{});

/// The position of the member `pointer` designates, found by comparing addresses
/// inside the reflection object at compile time.
template <class T, class M>
consteval std::size_t member_index(M T::*pointer) {
  std::size_t found = member_count<T>;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          using Candidate = std::remove_cvref_t<decltype(reflected_member<T, I>())>;
          if constexpr (std::is_same_v<Candidate, M>) {
            if (&reflected_member<T, I>() == &(reflection_holder<T>.value.*pointer)) found = I;
          }
        }(),
        ...);
  }(std::make_index_sequence<member_count<T>>{});
  return found;
}

namespace pretty_name_check {
struct KnownStruct {
  int first;
  double known_member;
};
}  // namespace pretty_name_check
static_assert(member_name<pretty_name_check::KnownStruct, 1>() == "known_member",
              "odm: this compiler prints __PRETTY_FUNCTION__ in a form odm cannot read member names from (odm "
              "supports g++ >= 12 and clang >= 14)");

}  // namespace detail
}  // namespace odm
