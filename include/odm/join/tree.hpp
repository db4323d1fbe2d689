#pragma once
// Trees stored in one collection (the guides' categories), in their two shapes:
//
//   parent references:  struct Category  { std::string id; odm::ParentRef<Category> parent; };
//                       {_id: "MongoDB", parent: "Databases"}, the root has parent: null
//   child references:   struct CategoryC { std::string id; odm::RefMany<CategoryC> children; };
//                       {_id: "Databases", children: ["MongoDB", "dbm"]}
//
// Each walk costs one query per level of the tree, never one per node:
//   odm::tree::parent(categories, node, &Category::parent)
//   odm::tree::children(categories, node, &Category::parent)      {parent: node._id}
//   odm::tree::ancestors(categories, node, &Category::parent)     nearest first, up to the root
//   odm::tree::descendants(categories, node, &Category::parent)   breadth first, {parent: {$in: level}}
//   odm::tree::children(categories, node, &CategoryC::children)   {_id: {$in: node.children}}, in that order
//   odm::tree::parent(categories, node, &CategoryC::children)     {children: node._id}, through the
//                                                                 multikey index odm plans on `children`

#include <odm/join/join.hpp>

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace odm::tree {
namespace detail_tree {

template <class T>
Filter<T> equals(std::string_view field, const odm::detail::ReferenceId& id) {
  Document filter;
  odm::detail::encode_reference_id(filter.get_mutable(), field, id);
  return Filter<T>::raw(std::move(filter));
}

}  // namespace detail_tree

/// The parent of `node`, or nothing for a root (or a parent that no longer exists).
template <class T, Dangling P>
std::optional<T> parent(const Collection<T>& collection, const T& node, ParentRef<T, P> T::*member) {
  const auto& ref = node.*member;
  if (!ref.has_parent()) return std::nullopt;
  return collection.find_one(detail_tree::equals<T>("_id", ref.raw_id()));
}

/// The direct children of `node`: `{parent: node._id}`.
template <class T, Dangling P>
std::vector<T> children(const Collection<T>& collection, const T& node, ParentRef<T, P> T::*member) {
  const std::string_view field = runtime_field_name(member);
  return collection.find(detail_tree::equals<T>(field, odm::detail::ReferenceId(id_of(node)))).to_vector();
}

/// The parent, grandparent, ... up to the root: one query per level. Stops at a missing
/// parent, and refuses to loop forever on a cycle in the data.
template <class T, Dangling P>
std::vector<T> ancestors(const Collection<T>& collection, const T& node, ParentRef<T, P> T::*member) {
  std::vector<T> path;
  std::unordered_set<odm::detail::ReferenceId, odm::detail::ReferenceIdHash> visited{odm::detail::ReferenceId(id_of(node))};
  std::optional<T> next = parent(collection, node, member);
  while (next) {
    if (!visited.insert(odm::detail::ReferenceId(id_of(*next))).second)
      throw ValueError("the parent references of collection " + collection.name() + " form a cycle");
    path.push_back(std::move(*next));
    next = parent(collection, path.back(), member);
  }
  return path;
}

/// Every node below `node`, breadth first: one `{parent: {$in: [...]}}` query per level.
template <class T, Dangling P>
std::vector<T> descendants(const Collection<T>& collection, const T& node, ParentRef<T, P> T::*member,
                           const JoinOptions& options = {}) {
  const std::string_view field = runtime_field_name(member);
  std::vector<T> all;
  std::unordered_set<odm::detail::ReferenceId, odm::detail::ReferenceIdHash> visited{odm::detail::ReferenceId(id_of(node))};
  std::vector<odm::detail::ReferenceId> level{odm::detail::ReferenceId(id_of(node))};
  while (!level.empty()) {
    std::vector<T> found = odm::detail::fetch_where_in(collection, field, level, options);
    level.clear();
    for (T& child : found) {
      odm::detail::ReferenceId id(id_of(child));
      if (!visited.insert(id).second) continue;  // a cycle in the data: each node once
      level.push_back(std::move(id));
      all.push_back(std::move(child));
    }
  }
  return all;
}

/// The children `node` lists, in its order (missing ones left out): one `$in` query.
template <class T, Dangling P>
std::vector<T> children(const Collection<T>& collection, const T& node, RefMany<T, P> T::*member,
                        const JoinOptions& options = {}) {
  const auto& ids = (node.*member).raw_ids();
  std::vector<T> found = odm::detail::fetch_where_in(collection, "_id", ids, options);
  std::unordered_map<odm::detail::ReferenceId, std::size_t, odm::detail::ReferenceIdHash> at;
  for (std::size_t i = 0; i < found.size(); ++i) at.emplace(odm::detail::ReferenceId(id_of(found[i])), i);
  std::vector<T> ordered;
  ordered.reserve(ids.size());
  for (const auto& id : ids)
    if (const auto it = at.find(id); it != at.end()) ordered.push_back(found[it->second]);
  return ordered;
}

/// The node whose child list contains `node`: `{children: node._id}` (a multikey match).
template <class T, Dangling P>
std::optional<T> parent(const Collection<T>& collection, const T& node, RefMany<T, P> T::*member) {
  const std::string_view field = runtime_field_name(member);
  return collection.find_one(detail_tree::equals<T>(field, odm::detail::ReferenceId(id_of(node))));
}

}  // namespace odm::tree
