#pragma once
// The newest N children of each parent (odm::children_of with a limit), in the form the
// server can run. Used by odm/join/join.hpp; user code calls odm::children_of.
//
// MongoDB 4.4+ (wire version 9): one aggregate per `parents_per_query` parents, a
// `$unionWith` branch per parent, each reading only its parent's first N children through
// the index on the parent field:
//   [{$match: {host: h0}}, {$sort}, {$limit: N},
//    {$unionWith: {coll: "logmsg", pipeline: [{$match: {host: h1}}, {$sort}, {$limit: N}]}}, ...]
// Older servers have no `$unionWith`: one find per parent, `{host: h} sort limit N` with a
// batch of N, so that each parent still costs one round trip and reads only N documents.
// Both forms read the same documents in the same order. The server's wire version is read
// once per client (odm::detail::max_wire_version).
//
// Why not one `$in` find sorted by parent and key, cut to N per parent on the client: it
// sends every child of every parent over the wire (all 5,000,000 messages of a busy host
// to keep its newest 5,000), which is what a limit per parent is for. A `$group` with
// `$push`/`$slice` would be one round trip, but the server reads and holds every child
// in memory (and $group's 100 MB limit stops it on a popular parent).

#include <odm/bson/document.hpp>
#include <odm/driver/client.hpp>
#include <odm/driver/collection.hpp>
#include <odm/driver/cursor.hpp>
#include <odm/fields/ref.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

namespace odm::detail {

/// The wire version of MongoDB 4.4, the first with the `$unionWith` stage.
inline constexpr std::int32_t union_with_wire_version = 9;

/// The aggregate pipeline for the newest `limit` children of each of `parents`
/// (`$unionWith`, MongoDB 4.4+).
Document children_pipeline(std::string_view collection, std::string_view field,
                           const std::vector<ReferenceId>& parents, const Document& sort, std::size_t limit);

/// The first `limit` children of each parent in `parents` (distinct ids), in the order of
/// `sort`, parent after parent, each handed to `into` (odm/join/join.cpp: compiled once).
void find_newest_children(const Database& db, const CollectionCore& collection, std::string_view field,
                          const std::vector<ReferenceId>& parents, const Document& sort, std::size_t limit,
                          std::size_t parents_per_query, DecodeInto into);

/// Calls place(child) for the first `limit` children of each parent in `parents` (distinct
/// ids), in the order of `sort`, parent after parent.
template <class Child, class Id, class Place>
void fetch_newest_children(const Database& db, const Collection<Child>& collection, std::string_view field,
                           const std::vector<Id>& parents, const Document& sort, std::size_t limit,
                           std::size_t parents_per_query, Place&& place) {
  if (parents.empty()) return;
  std::vector<Child> children;
  find_newest_children(db, Access::core(collection), field, std::vector<ReferenceId>(parents.begin(), parents.end()),
                       sort, limit, parents_per_query, decode_into(children));
  for (Child& child : children) place(std::move(child));
}

}  // namespace odm::detail
