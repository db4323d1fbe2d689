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
//   odm::tree::ancestors(categories, node, &CategoryC::children)  {children: id} per level, up to the root
//   odm::tree::descendants(categories, node, &CategoryC::children)
//                                                                 breadth first, {_id: {$in: the level's
//                                                                 children}}, each level in list order
// With child references a node may be listed by several parents; `parent` (and so each
// step of `ancestors`) is then the one with the smallest _id. A cycle in the data never
// makes a walk loop: `ancestors` throws odm::DataError, `descendants` visits each node once.
//
// The walks run on the client (JoinOptions::side == server is refused with UsageError):
// each level needs the ids the level before it found, so a walk is one query per level
// whatever runs it. MongoDB's `$graphLookup` (3.4) could return a whole subtree in one
// round trip, but as one document per start node (under the 16 MiB limit), unordered by
// level, and neither test engine odm runs against has it in full (the odm test server
// refuses it), so odm does not send it.

#include <odm/join/join.hpp>
#include <odm/query/expression.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace odm::detail::trees {

using odm::detail::ReferenceId;

/// The ids a walk through a tree has met, so that it visits each node once and stops on a
/// cycle. The same for every model: compiled once (odm/join/join.cpp).
class IdSet {
 public:
  explicit IdSet(ReferenceId first);
  IdSet(const IdSet&) = delete;
  IdSet& operator=(const IdSet&) = delete;
  ~IdSet();
  /// Whether `id` was not met before (it is now).
  bool insert(const ReferenceId& id);

 private:
  struct Ids;  // a hash set of ids, in join.cpp (not instantiated in every file)
  std::unique_ptr<Ids> ids_;
};

/// For each of `wanted` that is one of `found` (the first such), its position in `found`;
/// the others left out.
std::vector<std::size_t> positions_in(const std::vector<ReferenceId>& wanted, const std::vector<ReferenceId>& found);

/// `{field: id}`, as the typed filters write an equality (the member pointer of a tree
/// relation is a run-time value here, so the path is its stored name).
template <class T>
Filter<T> equals(std::string_view field, const ReferenceId& id) {
  Document value;
  odm::detail::encode_reference_id(value.get_mutable(), field, id);
  return QueryAccess::make<Filter<T>>(condition_node(ConditionOp::eq, std::string(field), std::move(value)));
}

template <class T>
ReferenceId id_of_node(const T& node) {
  return odm::detail::to_reference_id(id_of(node));
}

/// The documents with these ids, in the order of `ids` (missing ones left out): one `$in`
/// query per batch of ids.
template <class T>
std::vector<T> fetch_in_order(const Collection<T>& collection, const std::vector<ReferenceId>& ids,
                              const JoinOptions& options) {
  std::vector<T> found = odm::detail::fetch_where_in(collection, "_id", ids, options);
  std::vector<ReferenceId> found_ids;
  found_ids.reserve(found.size());
  for (const T& node : found) found_ids.push_back(id_of_node(node));
  const std::vector<std::size_t> positions = positions_in(ids, found_ids);
  std::vector<T> ordered;
  ordered.reserve(positions.size());
  for (const std::size_t at : positions) ordered.push_back(found[at]);
  return ordered;
}

/// Nearest first, one `parent_of` call (one query) per level, refusing to loop on a cycle.
template <class T, class ParentOf>
std::vector<T> walk_up(const Collection<T>& collection, const T& node, ParentOf parent_of) {
  std::vector<T> path;
  IdSet visited(id_of_node(node));
  std::optional<T> next = parent_of(node);
  while (next) {
    if (!visited.insert(id_of_node(*next)))
      throw DataError("the tree references of collection " + collection.name() + " form a cycle through _id " +
                      odm::detail::describe_id(id_of_node(*next)));
    path.push_back(std::move(*next));
    next = parent_of(path.back());
  }
  return path;
}

}  // namespace odm::detail::trees

namespace odm::tree {

/// The parent of `node`, or nothing for a root (or a parent that no longer exists).
template <class T, Dangling P>
std::optional<T> parent(const Collection<T>& collection, const T& node, ParentRef<T, P> T::*member) {
  const auto& ref = node.*member;
  if (!ref.has_parent()) return std::nullopt;
  return collection.find_one(detail::trees::equals<T>("_id", detail::Access::raw_id(ref)));
}

/// The direct children of `node`: `{parent: node._id}`.
template <class T, Dangling P>
std::vector<T> children(const Collection<T>& collection, const T& node, ParentRef<T, P> T::*member) {
  const std::string_view field = runtime_field_name(member);
  return collection.find(detail::trees::equals<T>(field, detail::trees::id_of_node(node))).to_vector();
}

/// The parent, grandparent, ... up to the root: one query per level. Stops at a missing
/// parent, and refuses to loop forever on a cycle in the data.
template <class T, Dangling P>
std::vector<T> ancestors(const Collection<T>& collection, const T& node, ParentRef<T, P> T::*member) {
  return detail::trees::walk_up(collection, node, [&](const T& at) { return parent(collection, at, member); });
}

/// Every node below `node`, breadth first: one `{parent: {$in: [...]}}` query per level.
template <class T, Dangling P>
std::vector<T> descendants(const Collection<T>& collection, const T& node, ParentRef<T, P> T::*member,
                           const JoinOptions& options = {}) {
  odm::detail::SkipReport::refuse_server_side(options, "odm::tree::descendants");
  const std::string_view field = runtime_field_name(member);
  std::vector<T> all;
  detail::trees::IdSet visited(detail::trees::id_of_node(node));
  std::vector<detail::trees::ReferenceId> level{detail::trees::id_of_node(node)};
  while (!level.empty()) {
    std::vector<T> found = odm::detail::fetch_where_in(collection, field, level, options);
    level.clear();
    for (T& child : found) {
      detail::trees::ReferenceId id = detail::trees::id_of_node(child);
      if (!visited.insert(id)) continue;  // a cycle in the data: each node once
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
  odm::detail::SkipReport::refuse_server_side(options, "odm::tree::children");
  return detail::trees::fetch_in_order(collection, detail::Access::raw_ids(node.*member), options);
}

/// The node whose child list contains `node`: `{children: node._id}` (a multikey match);
/// the one with the smallest _id when several list it.
template <class T, Dangling P>
std::optional<T> parent(const Collection<T>& collection, const T& node, RefMany<T, P> T::*member) {
  const std::string_view field = runtime_field_name(member);
  const auto by_id = detail::QueryAccess::make<Sort<T>>(detail::SortExpr{{{"_id", Direction::ascending}}, std::nullopt});
  return collection.find_one(detail::trees::equals<T>(field, detail::trees::id_of_node(node)),
                             FindOptions<T>{}.sort(by_id));
}

/// The parent, grandparent, ... up to the root, through the child lists: one
/// `{children: id}` query per level. Refuses to loop forever on a cycle in the data.
template <class T, Dangling P>
std::vector<T> ancestors(const Collection<T>& collection, const T& node, RefMany<T, P> T::*member) {
  return detail::trees::walk_up(collection, node, [&](const T& at) { return parent(collection, at, member); });
}

/// Every node below `node`, breadth first, each level in the order its parents list it:
/// one `{_id: {$in: [...]}}` query per level (none after the last). Child ids that name no
/// document are skipped; a node listed twice (or on a cycle) is visited once.
template <class T, Dangling P>
std::vector<T> descendants(const Collection<T>& collection, const T& node, RefMany<T, P> T::*member,
                           const JoinOptions& options = {}) {
  odm::detail::SkipReport::refuse_server_side(options, "odm::tree::descendants");
  std::vector<T> all;
  detail::trees::IdSet visited(detail::trees::id_of_node(node));
  std::vector<detail::trees::ReferenceId> level;
  const auto enqueue_children = [&](const T& parent_node) {
    for (const auto& id : detail::Access::raw_ids(parent_node.*member))
      if (visited.insert(id)) level.push_back(id);
  };
  enqueue_children(node);
  while (!level.empty()) {
    std::vector<T> found = detail::trees::fetch_in_order(collection, level, options);
    level.clear();
    for (T& child : found) {
      enqueue_children(child);
      all.push_back(std::move(child));
    }
  }
  return all;
}

}  // namespace odm::tree
