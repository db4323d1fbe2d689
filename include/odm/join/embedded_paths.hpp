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
// Which members are containers is read from what their codecs store (path_step below):
// a type of the user's whose codec says it is an array, a map, a nullable value or the
// document it dereferences to is looked through as those are.
//
// The walk visits the leaves in one fixed order (document order; a map's by key), so a
// join that gathers ids in one walk and assigns targets in a second one pairs them up.

#include <odm/bson/kind.hpp>
#include <odm/bson/containers.hpp>
#include <odm/fields/embedded.hpp>
#include <odm/fields/subset.hpp>
#include <odm/model/model.hpp>

#include <concepts>
#include <cstddef>
#include <ranges>
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

/// How a join looks through a member of type M, read from what M's codec stores (its
/// `kind`, bson/kind.hpp), so that a type of the user's with a codec is looked through as
/// it is stored: `container` says whether it holds something to look into, `inner` is what
/// it holds, `through` which container it is (none for a `transparent` one, stored as its
/// value: Embedded<T>), and each(value, fn) visits what it holds.
///   kinds::document<R>, R other than M, M dereferencing to R (Embedded<R>): transparent
///   kinds::nullable<K>, M testable and dereferencing (std::optional):       optional
///   kinds::array<K>, M a range (std::vector, std::array, a user's list):    array
///   kinds::array<kinds::subset_item<T>> (a Subset):                         subset
///   kinds::map<K>, M a range of pairs (std::map, a user's map):             map
/// Anything else (a scalar, a document of M's own members, a reference) is a leaf, even a
/// type that could be iterated: a list its codec stores as one string holds nothing a
/// query path, and so a `$lookup`, could reach.
template <class M, class Kind>
struct path_step_of_kind {
  static constexpr bool container = false;
};
template <class M, class Record>
  requires(!std::is_same_v<Record, M>) && requires(M& value) {
    { *value } -> std::same_as<Record&>;
  }
struct path_step_of_kind<M, kinds::document<Record>> {
  static constexpr bool container = true;
  static constexpr bool transparent = true;
  using inner = Record;
  template <class Fn>
  static void each(M& value, Fn& fn) {
    fn(*value);
  }
};
template <class M, class Kind>
  requires requires(M& value) {
    static_cast<bool>(value);
    *value;
  }
struct path_step_of_kind<M, kinds::nullable<Kind>> {
  static constexpr bool container = true;
  static constexpr bool transparent = false;
  static constexpr Through through = Through::optional;
  using inner = std::remove_reference_t<decltype(*std::declval<M&>())>;
  template <class Fn>
  static void each(M& value, Fn& fn) {
    if (value) fn(*value);
  }
};
template <class M, class Kind>
  requires std::ranges::range<M&>
struct path_step_of_kind<M, kinds::array<Kind>> {
  static constexpr bool container = true;
  static constexpr bool transparent = false;
  static constexpr Through through = Through::array;
  using inner = std::remove_reference_t<std::ranges::range_reference_t<M&>>;
  template <class Fn>
  static void each(M& value, Fn& fn) {
    for (inner& element : value) fn(element);
  }
};
template <class T, std::size_t N, auto OrderKey, Direction Order, class Item>
struct path_step_of_kind<Subset<T, N, OrderKey, Order>, kinds::array<kinds::subset_item<Item>>> {
  static constexpr bool container = true;
  static constexpr bool transparent = false;
  static constexpr Through through = Through::subset;
  using inner = T;
  template <class Fn>
  static void each(Subset<T, N, OrderKey, Order>& value, Fn& fn) {
    for (T& item : SubsetItems::of(value)) fn(item);
  }
};
template <class M, class Kind>
  requires std::ranges::range<M&> && requires(std::ranges::range_reference_t<M&> entry) { entry.second; }
struct path_step_of_kind<M, kinds::map<Kind>> {
  static constexpr bool container = true;
  static constexpr bool transparent = false;
  static constexpr Through through = Through::map;
  using inner = std::remove_reference_t<decltype(std::declval<std::ranges::range_reference_t<M&>>().second)>;
  template <class Fn>
  static void each(M& value, Fn& fn) {
    for (auto&& entry : value) fn(entry.second);
  }
};

/// A reference (whose codec's kind is that of its ids) is always a leaf; any other member
/// is looked through as its kind says.
template <class M>
struct path_step : path_step_of_kind<M, kind_of<M>> {};
template <class M>
  requires(relation_of<M>::kind == Relationship::reference || relation_of<M>::kind == Relationship::parent_reference ||
           relation_of<M>::kind == Relationship::child_references)
struct path_step<M> {
  static constexpr bool container = false;
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
