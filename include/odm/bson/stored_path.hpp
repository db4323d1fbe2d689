#pragma once
// Whether a dotted path ("addresses.city") names a field documents of a model can have,
// decided at compile time from the model's stored names, so that a misspelled path in an
// index declaration does not compile instead of building an index nothing ever uses (and,
// at run time, whether a name an upgrade step retired is one the model stores again).
//
// A path goes through sub-documents (plain structs, odm::Embedded, and types whose codec
// describes its document, like odm::Money's {value, currency}), optionals, arrays
// (`addresses.city` reaches into every element, `addresses.0.city` into one) and maps (any
// key). It reads only the kinds the codecs state (odm/bson/kind.hpp): scalars, ids and
// references accept no sub-path, a document only its codec knows accepts any.

#include <odm/bson/kind.hpp>
#include <odm/bson/members.hpp>
#include <odm/reflect/members.hpp>

#include <cstddef>
#include <string_view>
#include <utility>

namespace odm::detail {

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

/// Whether a path continues below a value of kind Kind: KindPath<Kind>::has(rest), `rest`
/// non-empty.
template <class Kind>
struct KindPath {  // kinds::any_document, and any kind odm does not know: any sub-path
  static constexpr bool has(std::string_view) { return true; }
};

/// Whether `path` (non-empty) names a field of the record T (`Root`: T is a collection's
/// model, where `id` is stored as `_id`). `Embedded` items of a Subset lack their ParentRefs.
template <class T, bool Root, bool WithoutParents = false>
constexpr bool record_has_path(std::string_view path) {
  const auto parts = split_path(path);
  const std::string_view step = parts.first, rest = parts.second;
  return members<T>::any([&](auto member) {
    using Member = decltype(member);
    if constexpr (WithoutParents && is_parent_reference<Member>)
      return false;
    else
      return Member::stored_name_at(Root) == step &&
             (rest.empty() || KindPath<resolved_kind_t<typename Member::kind>>::has(rest));
  });
}

template <bson_type_t Type>
struct KindPath<kinds::scalar<Type>> {
  static constexpr bool has(std::string_view) { return false; }
};
template <class E>
struct KindPath<kinds::enumeration<E>> : KindPath<kinds::scalar<BSON_TYPE_UTF8>> {};
template <class Record>
struct KindPath<kinds::document<Record>> {
  static constexpr bool has(std::string_view rest) { return record_has_path<Record, false>(rest); }
};
template <class Item>
struct KindPath<kinds::subset_item<Item>> {
  static constexpr bool has(std::string_view rest) { return record_has_path<Item, false, true>(rest); }
};
template <class Value>
struct KindPath<kinds::nullable<Value>> : KindPath<resolved_kind_t<Value>> {};
template <class Id>
struct KindPath<kinds::id_of<Id>> : KindPath<resolved_kind_t<kinds::id_of<Id>>> {};
template <class... Kinds>
struct KindPath<kinds::one_of<Kinds...>> {
  static constexpr bool has(std::string_view rest) { return (KindPath<resolved_kind_t<Kinds>>::has(rest) || ...); }
};
/// An array: a path continues into every element, or into one by its position.
template <class Element>
struct KindPath<kinds::array<Element>> {
  static constexpr bool has(std::string_view rest) {
    using E = KindPath<resolved_kind_t<Element>>;
    const auto parts = split_path(rest);
    const std::string_view step = parts.first, after = parts.second;
    if (is_array_position(step) && (after.empty() || E::has(after))) return true;
    return E::has(rest);
  }
};
template <class Value>
struct KindPath<kinds::map<Value>> {
  static constexpr bool has(std::string_view rest) {
    const auto parts = split_path(rest);
    const std::string_view key = parts.first, after = parts.second;
    return !key.empty() && (after.empty() || KindPath<resolved_kind_t<Value>>::has(after));
  }
};

/// Whether `path` names a field that documents of the model T can have.
template <reflectable T>
constexpr bool has_stored_path(std::string_view path) {
  const bool empty_step = path.empty() || path.front() == '.' || path.back() == '.' ||
                          path.find("..") != std::string_view::npos;
  return !empty_step && record_has_path<T, true>(path);
}

}  // namespace odm::detail
