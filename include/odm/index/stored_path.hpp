#pragma once
// Whether a dotted path ("addresses.city") names a field documents of a model can have,
// decided at compile time from the model's stored names, so that a misspelled path in an
// index declaration does not compile instead of building an index nothing ever uses.
//
// A path goes through sub-documents (plain structs, odm::Embedded), optionals, arrays
// (`addresses.city` reaches into every element, `addresses.0.city` into one) and maps
// (any key). Types whose codec writes a document odm cannot see into (odm::Money, or a
// user's own codec) accept any sub-path; scalars, ids and references accept none.

#include <odm/fields/binary.hpp>
#include <odm/fields/decimal.hpp>
#include <odm/fields/embedded.hpp>
#include <odm/fields/money.hpp>
#include <odm/fields/object_id.hpp>
#include <odm/fields/ref.hpp>
#include <odm/fields/subset.hpp>
#include <odm/model/model.hpp>
#include <odm/reflect/members.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace odm::detail {

template <class M>
struct path_step {  // a scalar, an id, a reference, or a type with its own codec
  static constexpr bool is_scalar = std::is_arithmetic_v<M> || std::is_enum_v<M> || std::is_same_v<M, std::string> ||
                                    std::is_same_v<M, ObjectId> || std::is_same_v<M, Decimal> ||
                                    std::is_same_v<M, Binary> || std::is_same_v<M, std::monostate>;
};
template <class Clock, class Duration>
struct path_step<std::chrono::time_point<Clock, Duration>> {
  static constexpr bool is_scalar = true;
};
template <class T, Dangling P>
struct path_step<Ref<T, P>> {
  static constexpr bool is_scalar = true;
};
template <class T, Dangling P>
struct path_step<ParentRef<T, P>> {
  static constexpr bool is_scalar = true;
};
template <std::int64_t F>
struct path_step<ScaledAmount<F>> {
  static constexpr bool is_scalar = true;
};
template <std::int64_t F>
struct path_step<DecimalFromLegacy<F>> {
  static constexpr bool is_scalar = true;
};

/// Splits "a.b.c" into "a" and "b.c" ("" after the last step). (Callers name the halves
/// one by one: clang 14 cannot capture structured bindings in a lambda.)
constexpr std::pair<std::string_view, std::string_view> split_path(std::string_view path) {
  const std::size_t dot = path.find('.');
  if (dot == std::string_view::npos) return {path, {}};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

constexpr bool is_array_position(std::string_view step) {
  if (step.empty()) return false;
  for (char c : step)
    if (c < '0' || c > '9') return false;
  return true;
}

/// Whether a path continues into a member of type M: SubPath<M>::has(rest), `rest`
/// non-empty. Specialized below for the types that hold other values.
template <class M>
struct SubPath;

/// Whether `path` (non-empty) names a field of the record T (`Root`: T is a collection's
/// model, where `id` is stored as `_id`).
template <reflectable T, bool Root>
constexpr bool record_has_path(std::string_view path) {
  const auto parts = split_path(path);
  const std::string_view step = parts.first, rest = parts.second;
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ((stored_names<T, Root>[I] == step &&
             (rest.empty() || SubPath<boost::pfr::tuple_element_t<I, T>>::has(rest))) ||
            ...);
  }(std::make_index_sequence<member_count<T>>{});
}

template <class M>
struct SubPath {
  static constexpr bool has(std::string_view rest) {
    if constexpr (path_step<M>::is_scalar)
      return false;
    else if constexpr (reflectable<M> && !requires { M::odm_not_a_record; })
      return record_has_path<M, false>(rest);
    else
      return true;  // a document only its own codec knows
  }
};

/// An array of E: a path continues into every element, or into one by its position.
template <class E>
struct ArraySubPath {
  static constexpr bool has(std::string_view rest) {
    const auto parts = split_path(rest);
    const std::string_view step = parts.first, after = parts.second;
    if (is_array_position(step) && (after.empty() || SubPath<E>::has(after))) return true;
    return SubPath<E>::has(rest);
  }
};

template <class T, class A>
struct SubPath<std::vector<T, A>> : ArraySubPath<T> {};
template <class T, std::size_t N>
struct SubPath<std::array<T, N>> : ArraySubPath<T> {};
template <class T, std::size_t N, auto K, Keep W>
struct SubPath<Subset<T, N, K, W>> : ArraySubPath<T> {};
template <class T, Dangling P>
struct SubPath<RefMany<T, P>> : ArraySubPath<id_type_t<T>> {};  // an array of ids

template <class T>
struct SubPath<std::optional<T>> : SubPath<T> {};
template <class T>
struct SubPath<Embedded<T>> : SubPath<T> {};

template <class V, class C, class A>
struct SubPath<std::map<std::string, V, C, A>> {
  static constexpr bool has(std::string_view rest) {
    const auto parts = split_path(rest);
    const std::string_view key = parts.first, after = parts.second;
    return !key.empty() && (after.empty() || SubPath<V>::has(after));
  }
};

template <class... T>
struct SubPath<std::variant<T...>> {
  static constexpr bool has(std::string_view rest) { return (SubPath<T>::has(rest) || ...); }
};

/// Whether `path` names a field that documents of the model T can have.
template <reflectable T>
constexpr bool has_stored_path(std::string_view path) {
  const bool empty_step = path.empty() || path.front() == '.' || path.back() == '.' ||
                          path.find("..") != std::string_view::npos;
  return !empty_step && record_has_path<T, true>(path);
}

}  // namespace odm::detail
