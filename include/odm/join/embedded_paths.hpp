#pragma once
// Where a join finds what it resolves inside a document: through the containers a member
// may hold (Embedded<T>, std::optional, std::vector, std::array, std::map values, Subset
// items, at any depth) down to a leaf, which is either a reference (Ref, ParentRef,
// RefMany) or an embedded document (a struct whose members hold further relations).
//
//   std::vector<odm::Embedded<LineItem>> items;        leaf: LineItem (a document)
//   std::optional<odm::Embedded<Address>> billing;     leaf: Address
//   std::map<std::string, odm::Ref<Product>> by_sku;    leaf: Ref<Product> (a reference)
//   odm::Subset<Review, 10, &Review::date> reviews;    leaf: Review
//
// The walk visits the leaves in one fixed order (document order; a map's by key), so a
// join that gathers ids in one walk and assigns targets in a second one pairs them up.

#include <odm/bson/kind.hpp>
#include <odm/fields/embedded.hpp>
#include <odm/fields/subset.hpp>
#include <odm/model/model.hpp>

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace odm {

/// A container a relation's path goes through between a member and what it resolves:
/// data a `$lookup` builder can read (an array is unwound, a map's keys are data).
enum class Through { optional, array, map, subset };

namespace detail {

/// Mutable access to a Subset's items for joins, which resolve references inside them.
struct SubsetItems {
  template <class T, std::size_t N, auto OrderKey, Direction Order>
  static std::vector<T>& of(Subset<T, N, OrderKey, Order>& subset) noexcept {
    return subset.items_;
  }
};

/// How a join looks through one kind of container: `inner` is what it holds, `through`
/// says which container it is (none for Embedded, which stores as its value), and
/// each(value, fn) visits what it holds.
template <class M>
struct path_step {
  static constexpr bool container = false;
};
template <class T>
struct path_step<Embedded<T>> {
  static constexpr bool container = true;
  static constexpr bool transparent = true;
  using inner = T;
  template <class Fn>
  static void each(Embedded<T>& value, Fn& fn) {
    fn(*value);
  }
};
template <class T>
struct path_step<std::optional<T>> {
  static constexpr bool container = true;
  static constexpr bool transparent = false;
  static constexpr Through through = Through::optional;
  using inner = T;
  template <class Fn>
  static void each(std::optional<T>& value, Fn& fn) {
    if (value) fn(*value);
  }
};
template <class T, class Allocator>
struct path_step<std::vector<T, Allocator>> {
  static constexpr bool container = true;
  static constexpr bool transparent = false;
  static constexpr Through through = Through::array;
  using inner = T;
  template <class Fn>
  static void each(std::vector<T, Allocator>& value, Fn& fn) {
    for (T& element : value) fn(element);
  }
};
template <class T, std::size_t N>
struct path_step<std::array<T, N>> {
  static constexpr bool container = true;
  static constexpr bool transparent = false;
  static constexpr Through through = Through::array;
  using inner = T;
  template <class Fn>
  static void each(std::array<T, N>& value, Fn& fn) {
    for (T& element : value) fn(element);
  }
};
template <class T, class Compare, class Allocator>
struct path_step<std::map<std::string, T, Compare, Allocator>> {
  static constexpr bool container = true;
  static constexpr bool transparent = false;
  static constexpr Through through = Through::map;
  using inner = T;
  template <class Fn>
  static void each(std::map<std::string, T, Compare, Allocator>& value, Fn& fn) {
    for (auto& entry : value) fn(entry.second);
  }
};
template <class T, std::size_t N, auto OrderKey, Direction Order>
struct path_step<Subset<T, N, OrderKey, Order>> {
  static constexpr bool container = true;
  static constexpr bool transparent = false;
  static constexpr Through through = Through::subset;
  using inner = T;
  template <class Fn>
  static void each(Subset<T, N, OrderKey, Order>& value, Fn& fn) {
    for (T& item : SubsetItems::of(value)) fn(item);
  }
};

/// What a member of type M holds once every container is looked through.
template <class M>
struct path_leaf {
  using type = M;
};
template <class M>
  requires path_step<M>::container
struct path_leaf<M> {
  using type = typename path_leaf<typename path_step<M>::inner>::type;
};
template <class M>
using path_leaf_t = typename path_leaf<M>::type;

/// Whether a member of type M is (or holds) a reference: Ref, ParentRef or RefMany.
template <class Leaf>
inline constexpr bool is_reference_leaf = relation_of<Leaf>::kind == Relationship::reference ||
                                          relation_of<Leaf>::kind == Relationship::parent_reference ||
                                          relation_of<Leaf>::kind == Relationship::child_references;

/// Whether the leaf is a document of its own members that a join can look into.
template <class Leaf>
inline constexpr bool is_document_leaf = [] {
  if constexpr (is_reference_leaf<Leaf> || !std::is_class_v<Leaf>)
    return false;
  else if constexpr (!mappable<Leaf>)
    return false;
  else
    return is_record<Leaf>;
}();

/// Calls fn(leaf) for every leaf `value` holds, in document order.
template <class M, class Fn>
void for_each_leaf(M& value, Fn& fn) {
  if constexpr (path_step<M>::container) {
    auto inner = [&fn](typename path_step<M>::inner& held) { for_each_leaf(held, fn); };
    path_step<M>::each(value, inner);
  } else {
    fn(value);
  }
}

/// The containers a member of type M goes through to its leaves, outermost first.
template <class M>
std::vector<Through> path_through() {
  std::vector<Through> through;
  if constexpr (path_step<M>::container) {
    if constexpr (!path_step<M>::transparent) through.push_back(path_step<M>::through);
    for (Through inner : path_through<typename path_step<M>::inner>()) through.push_back(inner);
  }
  return through;
}

/// The position of a member's field among T's stored names at the top level: how a member
/// known only at run time finds its name inside an embedded document too.
template <class T>
std::size_t stored_position(std::string_view top_level_name) {
  for (std::size_t i = 0; i < stored_names<T, true>.size(); ++i)
    if (stored_names<T, true>[i] == top_level_name) return i;
  return stored_names<T, true>.size();
}

}  // namespace detail
}  // namespace odm
