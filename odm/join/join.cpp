#include <odm/join/join.hpp>
#include "special_members.hpp"
#include <odm/join/counts.hpp>
#include <odm/join/subset.hpp>
#include <odm/join/tree.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <random>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace odm::detail {

std::uint64_t hash_id(const ReferenceId& id) noexcept {
  return std::visit([](const auto& typed) { return hash_id(typed); }, id);
}

void SkipReport::require_client_side(const JoinOptions& options, std::string_view who) {
  if (options.side == JoinSide::server)
    throw UsageError(std::string(who) +
                     ": the documents are already read, so the join runs on the client; for a server-side join "
                     "($lookup) start from the query: odm::find_joined(db, filter, options, relations...)");
}

void SkipReport::refuse_server_side(const JoinOptions& options, std::string_view who) {
  if (options.side == JoinSide::server)
    throw UsageError(std::string(who) +
                     ": JoinSide::server is odm::find_joined's; this call's own queries (one per batch of ids, or "
                     "per level of a tree) are all its work and it joins nothing on the client that a $lookup could "
                     "do instead, so it has no server-side form: leave JoinOptions::side as client");
}

namespace {
/// Hands each document of `cursor` to `into`; a document that does not fit throws its
/// DecodeError, located, as Cursor does by default.
void read_all(CursorCore& cursor, const DecodeInto& into) {
  std::vector<SkippedDocument> none;  // never added to: raise
  while (decode_next(cursor, into, BadDocuments::raise, none)) {
  }
}
}  // namespace

std::vector<Document> in_filters(std::string_view field, const IdList& ids, const JoinOptions& options) {
  std::vector<Document> filters;
  const std::size_t max_ids = std::max<std::size_t>(1, options.max_ids_per_query);
  for (std::size_t at = 0; at < ids.count;) {
    Document filter;
    {
      ChildWriter condition(filter.get_mutable(), field);
      ChildWriter list(condition.get(), "$in", ChildWriter::Kind::array);
      for (std::uint32_t count = 0;
           at < ids.count && count < max_ids && (count == 0 || list.get()->len < options.max_query_bytes); ++count)
        ids.append(list.get(), ArrayKey(list.next_index()).view(), ids.ids, at++);
      list.close();
      condition.close();
    }
    filters.push_back(std::move(filter));
  }
  return filters;
}

void find_where_in(const CollectionCore& collection, std::string_view field, const IdList& ids,
                   const JoinOptions& options, const Document& sort, DecodeInto into) {
  std::vector<SkippedDocument>* const skipped = SkipReport::skipping(options);
  FindSpec spec;
  spec.sort = sort;
  for (const Document& filter : in_filters(field, ids, options)) {
    CursorCore cursor = collection.find(nullptr, filter, spec);
    if (skipped != nullptr) {
      while (decode_next(cursor, into, BadDocuments::skip, *skipped)) {
      }
    } else {
      read_all(cursor, into);
    }
  }
}

Document children_pipeline(std::string_view collection, std::string_view field, const std::vector<ReferenceId>& parents,
                           const Document& sort, std::size_t limit) {
  // [{$match: {field: p0}}, {$sort}, {$limit},
  //  {$unionWith: {coll, pipeline: [{$match: {field: p1}}, {$sort}, {$limit}]}}, ...]
  const auto append_branch = [&](ChildWriter& stages, const ReferenceId& parent) {
    {
      ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
      ChildWriter match(stage.get(), "$match");
      encode_reference_id(match.get(), field, parent);
      match.close();
      stage.close();
    }
    if (!sort.empty()) {
      ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
      check_append(bson_append_document(stage.get(), "$sort", 5, sort.get()));
      stage.close();
    }
    ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
    // A std::size_t past INT64_MAX would wrap to a negative $limit, which MongoDB refuses.
    const auto most = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());
    check_append(bson_append_int64(stage.get(), "$limit", 6, static_cast<std::int64_t>(std::min(limit, most))));
    stage.close();
  };

  Document command;
  ChildWriter stages(command.get_mutable(), "pipeline", ChildWriter::Kind::array);
  if (!parents.empty()) append_branch(stages, parents.front());
  for (std::size_t i = 1; i < parents.size(); ++i) {
    ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
    ChildWriter union_with(stage.get(), "$unionWith");
    check_append(bson_append_utf8(union_with.get(), "coll", 4, collection.data(), key_length(collection)));
    ChildWriter branch(union_with.get(), "pipeline", ChildWriter::Kind::array);
    append_branch(branch, parents[i]);
    branch.close();
    union_with.close();
    stage.close();
  }
  stages.close();
  return command;
}


void find_newest_children(const Database& db, const CollectionCore& collection, std::string_view field,
                          const std::vector<ReferenceId>& parents, const Document& sort, std::size_t limit,
                          std::size_t parents_per_query, DecodeInto into) {
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
      AggregateSpec spec;
      spec.batch_size = static_cast<std::int32_t>(at_most);
      const Document pipeline = children_pipeline(collection.name(), field, batch, sort, limit);
      CursorCore cursor = collection.aggregate(nullptr, pipeline.get(), spec);
      read_all(cursor, into);
    }
    return;
  }
  for (const ReferenceId& parent : parents) {
    Document filter;
    encode_reference_id(filter.get_mutable(), field, parent);
    FindSpec spec;
    spec.sort = sort;
    spec.limit = static_cast<std::int64_t>(std::min(limit, most));
    spec.batch_size = static_cast<std::int32_t>(std::min(limit, most));
    CursorCore cursor = collection.find(nullptr, filter, spec);
    read_all(cursor, into);
  }
}

}  // namespace odm::detail

namespace odm::detail::subsets {

void back_off(std::size_t attempt, std::chrono::milliseconds longest) {
  thread_local std::minstd_rand random(static_cast<unsigned>(std::hash<std::thread::id>{}(std::this_thread::get_id())));
  const auto ceiling = std::min<std::int64_t>(longest.count(), std::int64_t{1} << std::min<std::size_t>(attempt, 20));
  if (ceiling <= 0) return;
  std::this_thread::sleep_for(std::chrono::microseconds(random() % static_cast<std::uint64_t>(ceiling * 1000 + 1)));
}

}  // namespace odm::detail::subsets

namespace odm::detail {

Document count_pipeline(std::string_view field, const Document& in_filter) {
  // {pipeline: [{$match: <in_filter>}, {$group: {_id: "$<field>", n: {$sum: 1}}}]}
  Document command;
  ChildWriter stages(command.get_mutable(), "pipeline", ChildWriter::Kind::array);
  {
    ChildWriter stage(stages.get(), "0");
    check_append(bson_append_document(stage.get(), "$match", 6, in_filter.get()));
    stage.close();
  }
  ChildWriter stage(stages.get(), "1");
  ChildWriter group(stage.get(), "$group");
  const std::string path = "$" + std::string(field);
  check_append(bson_append_utf8(group.get(), "_id", 3, path.data(), key_length(path)));
  ChildWriter sum(group.get(), "n");
  check_append(bson_append_int32(sum.get(), "$sum", 4, 1));
  sum.close();
  group.close();
  stage.close();
  stages.close();
  return command;
}

std::int64_t group_count(const bson_t* row, std::string_view source) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, row, "n")) throw DecodeError("n: missing from a $group row (" + std::string(source) + ")");
  std::int64_t n = -1;
  if (BSON_ITER_HOLDS_INT32(&it)) n = bson_iter_int32(&it);
  if (BSON_ITER_HOLDS_INT64(&it)) n = bson_iter_int64(&it);
  if (n < 0)
    at_path("n", [&] {
      throw DecodeError("expected a count (a non-negative int or long) in a $group row (" + std::string(source) + ")");
    });
  return n;
}

}  // namespace odm::detail

namespace odm::detail::trees {

struct IdSet::Ids {
  std::unordered_set<ReferenceId, ReferenceIdHash> set;
};

IdSet::IdSet(ReferenceId first) : ids_(std::make_unique<Ids>()) { ids_->set.insert(std::move(first)); }
IdSet::~IdSet() = default;
bool IdSet::insert(const ReferenceId& id) { return ids_->set.insert(id).second; }

std::vector<std::size_t> positions_in(const std::vector<ReferenceId>& wanted, const std::vector<ReferenceId>& found) {
  std::unordered_map<ReferenceId, std::size_t, ReferenceIdHash> at;
  for (std::size_t i = 0; i < found.size(); ++i) at.emplace(found[i], i);
  std::vector<std::size_t> positions;
  positions.reserve(wanted.size());
  for (const auto& id : wanted)
    if (const auto it = at.find(id); it != at.end()) positions.push_back(it->second);
  return positions;
}

}  // namespace odm::detail::trees

namespace odm {
ODM_DEFINE_SPECIAL_MEMBERS(JoinStep);
}  // namespace odm
