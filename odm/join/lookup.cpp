// The server-side form of joins: the `$lookup` pipeline built from JoinStep data, and the
// reading of what it brings back (include/odm/join/lookup.hpp). All of odm's join-layer
// `$lookup` writing is here.
#include <odm/bson/writer.hpp>
#include <odm/join/lookup.hpp>

#include <charconv>
#include <cstring>
#include <set>
#include <string>
#include <system_error>

namespace odm::detail {

namespace {

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

/// Deeper than MongoDB nests a document (BSON depth 200): the server refuses such a filter
/// on both sides, so the search stops there rather than recurse without bound.
constexpr int max_filter_depth = 200;

/// Whether a field's value is an operator document (`{$near: ...}`), not a value to match.
bool holds_operators(const bson_iter_t& it, bson_t& operators) {
  bson_iter_t first;
  return BSON_ITER_HOLDS_DOCUMENT(&it) && held_document(it, operators) && bson_iter_init(&first, &operators) &&
         bson_iter_next(&first) && bson_iter_key(&first)[0] == '$';
}

/// The first operator of the query `filter` that MongoDB does not run inside an
/// aggregation's `$match` (manual, $match restrictions: `$where`, `$near` and
/// `$nearSphere`), or "". Follows the query grammar: `$and`/`$or`/`$nor` hold filters, a
/// field holds a value or an operator document, `$not` and `$elemMatch` hold either kind
/// (read alike, in one pass: each part of the filter is visited once).
std::string_view refused_in_match(const bson_t* filter, int depth = 0) {
  bson_iter_t it;
  if (depth > max_filter_depth || !bson_iter_init(&it, filter)) return {};
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key == "$where") return "$where";
    if (key == "$near") return "$near";
    if (key == "$nearSphere") return "$nearSphere";
    bson_t inner;
    if (key == "$and" || key == "$or" || key == "$nor") {
      bson_iter_t clause;
      if (!BSON_ITER_HOLDS_ARRAY(&it) || !bson_iter_recurse(&it, &clause)) continue;
      while (bson_iter_next(&clause))
        if (BSON_ITER_HOLDS_DOCUMENT(&clause) && held_document(clause, inner))
          if (const std::string_view found = refused_in_match(&inner, depth + 2); !found.empty()) return found;
    } else if (key == "$not" || key == "$elemMatch" || key.empty() || key.front() != '$') {
      if (holds_operators(it, inner) || (key == "$elemMatch" && BSON_ITER_HOLDS_DOCUMENT(&it) && held_document(it, inner)))
        if (const std::string_view found = refused_in_match(&inner, depth + 1); !found.empty()) return found;
    }
  }
  return {};
}

/// Appends `{<op>: <document>}` as the next stage.
void append_stage(ChildWriter& stages, std::string_view op, const bson_t* document) {
  ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
  check_append(bson_append_document(stage.get(), op.data(), key_length(op), document));
  stage.close();
}

/// Appends `{<op>: <count>}` as the next stage.
void append_count_stage(ChildWriter& stages, std::string_view op, std::int64_t count) {
  ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
  check_append(bson_append_int64(stage.get(), op.data(), key_length(op), count));
  stage.close();
}

/// Appends the `$lookup` stages of `step` and its nested steps, in the order the join runs
/// them. `prefix` is the stored path to the documents the step acts on ("" for the result
/// documents, "__odm_0." for a level's targets, "items." inside embedded documents);
/// `embedded` says whether they are embedded ones (whose members have their nested names).
void append_lookups(ChildWriter& stages, const JoinStep& step, const std::string& prefix, bool embedded,
                    LookupResults& results) {
  const std::string path = prefix + std::string(embedded ? step.nested_field : step.field);
  check_expressible(step, path);
  if (step.action == JoinStep::Action::look_inside) {
    for (const JoinStep& nested : step.nested) append_lookups(stages, nested, path + ".", true, results);
    return;
  }
  const std::string as = results.output_field(results.sources.size());
  results.sources.push_back("$lookup of collection " + std::string(step.from) + " into " + as);
  {
    ChildWriter stage(stages.get(), ArrayKey(stages.next_index()).view());
    append_lookup_by_id(stage.get(), "$lookup", step.from, path, as);
    stage.close();
  }
  for (const JoinStep& nested : step.nested) append_lookups(stages, nested, as + ".", false, results);
}

/// A prefix that no field the pipeline reads starts with: "__odm_", longer if a
/// relation's own field starts with it. Every other path the stages read starts with a
/// relation's field or with one of the names this prefix makes.
std::string output_prefix(const std::vector<const JoinStep*>& relations) {
  std::string prefix = "__odm_";
  for (bool clash = true; clash;) {
    clash = false;
    for (const JoinStep* relation : relations)
      if (relation->field.substr(0, prefix.size()) == prefix) clash = true;
    if (clash) prefix += '_';
  }
  return prefix;
}

}  // namespace

void read_pool(const LookupResults& results, std::size_t step, const PoolReader& reader, const ReportBad& report,
               std::vector<char>& seen) {
  seen.assign(reader.ids, 0);
  if (reader.ids == 0) return;
  std::set<std::string> bad_ids;  // targets whose _id itself does not decode, reported once each
  // Called in the handler of `error`: rethrows it, with its type, when there is no report.
  const auto bad = [&](DecodeError& error, const bson_t* document) {
    if (!report) {
      locate_decode_error(error, document, results.sources[step]);
      throw;
    }
    report(SkippedDocument{id_field(document), located_decode_error(error, document, results.sources[step])});
  };
  for (const RawView& view : results.pools[step]) {
    bson_t document;
    if (!bson_init_static(&document, view.data, view.length)) continue;
    bson_iter_t it;  // _id comes first in stored documents: read it without a search
    if (!bson_iter_init(&it, &document) || !bson_iter_next(&it)) continue;
    if (std::strcmp(bson_iter_key(&it), "_id") != 0 && !bson_iter_init_find(&it, &document, "_id"))
      continue;  // no id: no reference points at it
    std::uint32_t slot;
    try {
      slot = reader.slot_of(reader.gathered, it);
    } catch (const DecodeError&) {
      // Matched by the server, yet its _id is not the model's id type: the whole document
      // does not fit, as decoding it says.
      const Document id_only = id_field(&document);
      if (!bad_ids.insert(std::string(reinterpret_cast<const char*>(id_only.data()), id_only.size())).second) continue;
      try {
        reader.refuse(&document);
      } catch (DecodeError& error) {
        bad(error, &document);
      }
      continue;
    }
    if (slot >= reader.ids || seen[slot]) continue;  // none, or already answered
    seen[slot] = 1;
    try {
      reader.into.take(reader.into.out, &document);
    } catch (DecodeError& error) {
      bad(error, &document);
    }
  }
}

std::size_t LookupResults::take() {
  if (next >= pools.size())
    throw UsageError("odm::find_joined: the join ran more fetch steps than its $lookup pipeline has (" +
                     std::to_string(pools.size()) + ")");
  return next++;
}

std::string LookupResults::document_field() const { return prefix + "doc"; }
std::string LookupResults::output_field(std::size_t step) const { return prefix + std::to_string(step); }

Document lookup_pipeline(const LookupQuery& query, const std::vector<const JoinStep*>& relations,
                         LookupResults& results) {
  if (const std::string_view op = refused_in_match(query.filter.get()); !op.empty())
    throw UsageError("odm::find_joined: the filter uses " + std::string(op) +
                     ", which MongoDB does not run in an aggregation's $match (the server-side join's first "
                     "stage); join on the client (JoinSide::client)" +
                     (op == "$where" ? std::string() : ", or filter with $geoWithin, which $match runs"));
  results.prefix = output_prefix(relations);
  results.sources.clear();
  const std::string document = results.document_field();
  Document command;
  {
    ChildWriter stages(command.get_mutable(), "pipeline", ChildWriter::Kind::array);
    // The roots, as find would return them.
    append_stage(stages, "$match", query.filter.get());
    if (!query.sort.empty()) append_stage(stages, "$sort", query.sort.get());
    if (query.skip > 0) append_count_stage(stages, "$skip", query.skip);
    if (query.limit != 0) append_count_stage(stages, "$limit", query.limit < 0 ? one_batch_limit(query.limit) : query.limit);
    if (!query.projection.empty()) append_stage(stages, "$project", query.projection.get());
    {
      // A copy of each root taken before any stage writes a field: the stored document
      // comes back exactly as stored, whatever its field names ($$ROOT, MongoDB 3.4).
      Document copy;
      check_append(bson_append_utf8(copy.get_mutable(), document.data(), key_length(document), "$$ROOT", 6));
      append_stage(stages, "$addFields", copy.get());
    }
    for (const JoinStep* relation : relations) append_lookups(stages, *relation, "", false, results);
    Document keep;  // only the copy and the matches travel back
    check_append(bson_append_int32(keep.get_mutable(), "_id", 3, 0));
    check_append(bson_append_int32(keep.get_mutable(), document.data(), key_length(document), 1));
    for (std::size_t step = 0; step < results.sources.size(); ++step) {
      const std::string as = results.output_field(step);
      check_append(bson_append_int32(keep.get_mutable(), as.data(), key_length(as), 1));
    }
    append_stage(stages, "$project", keep.get());
    stages.close();
  }
  results.pools.assign(results.sources.size(), {});
  results.next = 0;
  return command;
}

bool joined_document(const bson_t* row, const LookupResults& results, bson_t& document) {
  const std::string field = results.document_field();
  bson_iter_t it;
  if (!bson_iter_init_find(&it, row, field.c_str()) || !BSON_ITER_HOLDS_DOCUMENT(&it)) return false;
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&it, &length, &data);
  return bson_init_static(&document, data, length);
}

void collect_lookups(const bson_t* row, LookupResults& results) {
  bson_iter_t it;
  if (!bson_iter_init(&it, row)) return;
  const std::string_view prefix = results.prefix;
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key.size() <= prefix.size() || key.substr(0, prefix.size()) != prefix || !BSON_ITER_HOLDS_ARRAY(&it)) continue;
    const std::string_view digits = key.substr(prefix.size());
    std::size_t step = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
    if (error != std::errc() || end != digits.data() + digits.size() || step >= results.pools.size()) continue;
    bson_iter_t element;
    if (!bson_iter_recurse(&it, &element)) continue;
    while (bson_iter_next(&element)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&element)) continue;  // $lookup only writes documents
      RawView view;
      bson_iter_document(&element, &view.length, &view.data);
      // $lookup matches a null or missing localField (a tree root's `parent: null`, an absent
      // optional Ref) with a target whose _id is null or missing. No reference holds such an
      // id, and the client form never asks for one: leave it out, so both forms agree.
      bson_t target;
      bson_iter_t id;
      if (!bson_init_static(&target, view.data, view.length) || !bson_iter_init_find(&id, &target, "_id") ||
          BSON_ITER_HOLDS_NULL(&id))
        continue;
      results.pools[step].push_back(view);
    }
  }
}

}  // namespace odm::detail
