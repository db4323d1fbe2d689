#include <odm/join/join.hpp>
#include <odm/join/counts.hpp>
#include <odm/join/subset.hpp>

#include <algorithm>
#include <functional>
#include <random>
#include <thread>

namespace odm::detail {

void SkipReport::require_client_side(const JoinOptions& options, std::string_view who) {
  if (options.side == JoinSide::server)
    throw UsageError(std::string(who) +
                     ": the documents are already read, so the join runs on the client; for a server-side join "
                     "($lookup) start from the query: odm::find_joined(db, filter, options, relations...)");
}

Document children_pipeline(std::string_view collection, std::string_view field, const std::vector<ReferenceId>& parents,
                           const Document& sort, std::size_t limit) {
  // [{$match: {field: p0}}, {$sort}, {$limit},
  //  {$unionWith: {coll, pipeline: [{$match: {field: p1}}, {$sort}, {$limit}]}}, ...]
  const auto open_stage = [](bson_t* stages, std::uint32_t& index, bson_t* stage) {
    const ArrayKey key(index++);
    check_append(bson_append_document_begin(stages, key.view().data(), key_length(key.view()), stage));
  };
  const auto append_branch = [&](bson_t* stages, std::uint32_t& index, const ReferenceId& parent) {
    bson_t stage;
    bson_t match;
    open_stage(stages, index, &stage);
    check_append(bson_append_document_begin(&stage, "$match", 6, &match));
    encode_reference_id(&match, field, parent);
    check_append(bson_append_document_end(&stage, &match));
    check_append(bson_append_document_end(stages, &stage));
    if (!sort.empty()) {
      open_stage(stages, index, &stage);
      check_append(bson_append_document(&stage, "$sort", 5, sort.get()));
      check_append(bson_append_document_end(stages, &stage));
    }
    open_stage(stages, index, &stage);
    check_append(bson_append_int64(&stage, "$limit", 6, static_cast<std::int64_t>(limit)));
    check_append(bson_append_document_end(stages, &stage));
  };

  Document command;
  bson_t stages;
  check_append(bson_append_array_begin(command.get_mutable(), "pipeline", 8, &stages));
  std::uint32_t index = 0;
  if (!parents.empty()) append_branch(&stages, index, parents.front());
  for (std::size_t i = 1; i < parents.size(); ++i) {
    bson_t stage;
    bson_t union_with;
    bson_t branch;
    open_stage(&stages, index, &stage);
    check_append(bson_append_document_begin(&stage, "$unionWith", 10, &union_with));
    check_append(bson_append_utf8(&union_with, "coll", 4, collection.data(), key_length(collection)));
    check_append(bson_append_array_begin(&union_with, "pipeline", 8, &branch));
    std::uint32_t branch_index = 0;
    append_branch(&branch, branch_index, parents[i]);
    check_append(bson_append_array_end(&union_with, &branch));
    check_append(bson_append_document_end(&stage, &union_with));
    check_append(bson_append_document_end(&stages, &stage));
  }
  check_append(bson_append_array_end(command.get_mutable(), &stages));
  return command;
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
  bson_t stages;
  bson_t stage;
  bson_t group;
  bson_t sum;
  check_append(bson_append_array_begin(command.get_mutable(), "pipeline", 8, &stages));
  check_append(bson_append_document_begin(&stages, "0", 1, &stage));
  check_append(bson_append_document(&stage, "$match", 6, in_filter.get()));
  check_append(bson_append_document_end(&stages, &stage));
  check_append(bson_append_document_begin(&stages, "1", 1, &stage));
  check_append(bson_append_document_begin(&stage, "$group", 6, &group));
  const std::string path = "$" + std::string(field);
  check_append(bson_append_utf8(&group, "_id", 3, path.data(), key_length(path)));
  check_append(bson_append_document_begin(&group, "n", 1, &sum));
  check_append(bson_append_int32(&sum, "$sum", 4, 1));
  check_append(bson_append_document_end(&group, &sum));
  check_append(bson_append_document_end(&stage, &group));
  check_append(bson_append_document_end(&stages, &stage));
  check_append(bson_append_array_end(command.get_mutable(), &stages));
  return command;
}

std::int64_t group_count(const bson_t* row, std::string_view source) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, row, "n")) throw DecodeError("n: missing from a $group row (" + std::string(source) + ")");
  std::int64_t n = -1;
  if (BSON_ITER_HOLDS_INT32(&it)) n = bson_iter_int32(&it);
  if (BSON_ITER_HOLDS_INT64(&it)) n = bson_iter_int64(&it);
  if (n < 0) {
    DecodeError error("expected a count (a non-negative int or long) in a $group row (" + std::string(source) + ")");
    error.prepend("n");
    throw error;
  }
  return n;
}

}  // namespace odm::detail
