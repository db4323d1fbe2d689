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

/// Calls place(child) for the first `limit` children of each parent in `parents` (distinct
/// ids), in the order of `sort`, parent after parent.
template <class Child, class Id, class Place>
void fetch_newest_children(const Database& db, const Collection<Child>& collection, std::string_view field,
                           const std::vector<Id>& parents, const Document& sort, std::size_t limit,
                           std::size_t parents_per_query, Place&& place) {
  if (parents.empty()) return;
  // Each reply may carry all it is asked for (up to 16 MiB): no getMore after the first batch.
  const auto most = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
  if (max_wire_version(db) >= union_with_wire_version) {
    const std::size_t step = std::max<std::size_t>(1, parents_per_query);
    for (std::size_t begin = 0; begin < parents.size(); begin += step) {
      const std::size_t end = std::min(parents.size(), begin + step);
      const std::vector<ReferenceId> batch(parents.begin() + static_cast<std::ptrdiff_t>(begin),
                                           parents.begin() + static_cast<std::ptrdiff_t>(end));
      const std::size_t at_most = limit > most / batch.size() ? most : limit * batch.size();
      auto cursor = collection.template aggregate_raw<Child>(
          children_pipeline(collection.name(), field, batch, sort, limit),
          AggregateOptions<Child>{}.batch_size(static_cast<std::int32_t>(at_most)));
      for (Child& child : cursor) place(std::move(child));
    }
    return;
  }
  for (const Id& parent : parents) {
    Document filter;
    encode_reference_id(filter.get_mutable(), field, ReferenceId(parent));
    FindOptions<Child> options;
    if (!sort.empty()) options.sort(Sort<Child>::raw(sort));
    options.limit(static_cast<std::int64_t>(std::min(limit, most)))
        .batch_size(static_cast<std::int32_t>(std::min(limit, most)));
    for (Child& child : collection.find(Filter<Child>::raw(std::move(filter)), std::move(options)))
      place(std::move(child));
  }
}

}  // namespace odm::detail
