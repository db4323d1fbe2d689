// The server-side form of joins: the `$lookup` pipeline built from JoinStep data, and the
// reading of what it brings back (include/odm/join/lookup.hpp). All of odm's join-layer
// `$lookup` writing is here.
#include <odm/bson/writer.hpp>
#include <odm/join/lookup.hpp>

#include <charconv>
#include <string>
#include <system_error>

namespace odm::detail {

namespace {

constexpr std::string_view lookup_prefix = "__odm_";

std::string lookup_name(std::size_t step) { return std::string(lookup_prefix) + std::to_string(step); }

/// Refuses, before anything is sent, a step whose path `$lookup` cannot follow.
void check_expressible(const JoinStep& step, const std::string& path) {
  std::size_t arrays = step.kind == Relationship::child_references ? 1 : 0;  // a RefMany is an array of ids
  for (const Through through : step.through) {
    if (through == Through::map)
      throw UsageError("odm::find_joined: " + path +
                       " goes through std::map values, whose keys are data: a $lookup path cannot name them; join "
                       "this relation on the client (JoinSide::client)");
    if (through == Through::array || through == Through::subset) ++arrays;
  }
  if (arrays > 1)
    throw UsageError("odm::find_joined: " + path +
                     " holds arrays directly inside arrays: a $lookup localField does not look into nested arrays; "
                     "join this relation on the client (JoinSide::client)");
}

/// Appends the `$lookup` stages of `step` and its nested steps, in the order the join runs
/// them. `prefix` is the stored path to the documents the step acts on ("" for the result
/// documents, "__odm_0." for a level's targets, "items." inside embedded documents);
/// `embedded` says whether they are embedded ones (whose members have their nested names).
void append_lookups(ChildWriter& stages, const JoinStep& step, const std::string& prefix, bool embedded,
                    std::vector<std::string>& sources) {
  const std::string path = prefix + std::string(embedded ? step.nested_field : step.field);
  check_expressible(step, path);
  if (step.action == JoinStep::Action::look_inside) {
    for (const JoinStep& nested : step.nested) append_lookups(stages, nested, path + ".", true, sources);
    return;
  }
  const std::string as = lookup_name(sources.size());
  sources.push_back("$lookup of collection " + std::string(step.from) + " into " + as);
  {
    ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
    append_lookup_by_id(stage.get(), "$lookup", step.from, path, as);
    stage.close();
  }
  for (const JoinStep& nested : step.nested) append_lookups(stages, nested, as + ".", false, sources);
}

}  // namespace

std::size_t LookupResults::take() {
  if (next >= pools.size())
    throw UsageError("odm::find_joined: the join ran more fetch steps than its $lookup pipeline has (" +
                     std::to_string(pools.size()) + ")");
  return next++;
}

Document lookup_pipeline(const Document& filter, const Document& sort, const std::vector<const JoinStep*>& relations,
                         std::vector<std::string>& sources) {
  Document command;
  {
    ChildWriter stages(command.get_mutable(), "pipeline", ChildWriter::Kind::array);
    {
      ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
      check_append(bson_append_document(stage.get(), "$match", 6, filter.get()));
      stage.close();
    }
    if (!sort.empty()) {
      ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
      check_append(bson_append_document(stage.get(), "$sort", 5, sort.get()));
      stage.close();
    }
    for (const JoinStep* relation : relations) append_lookups(stages, *relation, "", false, sources);
    stages.close();
  }
  return command;
}

bool lookup_field(std::string_view key, std::size_t& step) {
  if (key.size() <= lookup_prefix.size() || key.substr(0, lookup_prefix.size()) != lookup_prefix) return false;
  const std::string_view digits = key.substr(lookup_prefix.size());
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  return error == std::errc() && end == digits.data() + digits.size();
}

void collect_lookups(const bson_t* document, LookupResults& results) {
  bson_iter_t it;
  if (!bson_iter_init(&it, document)) return;
  while (bson_iter_next(&it)) {
    std::size_t step = 0;
    if (!lookup_field(std::string_view(bson_iter_key(&it), bson_iter_key_len(&it)), step) ||
        step >= results.pools.size() || !BSON_ITER_HOLDS_ARRAY(&it))
      continue;
    bson_iter_t element;
    if (!bson_iter_recurse(&it, &element)) continue;
    while (bson_iter_next(&element)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&element)) continue;  // $lookup only writes documents
      RawView view;
      bson_iter_document(&element, &view.length, &view.data);
      results.pools[step].push_back(view);
    }
  }
}

Document without_lookups(const bson_t* document) {
  Document copy;
  bson_iter_t it;
  if (!bson_iter_init(&it, document)) return copy;
  while (bson_iter_next(&it)) {
    std::size_t step = 0;
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (lookup_field(key, step)) continue;
    check_append(bson_append_iter(copy.get_mutable(), key.data(), key_length(key), &it));
  }
  return copy;
}

}  // namespace odm::detail
