#include <odm/index/sync.hpp>
#include "special_members.hpp"

#include <odm/bson/writer.hpp>
#include <odm/driver/errors.hpp>
#include <odm/query/previous_names.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace odm {
namespace detail {

IndexModel make_index(std::string collection, const std::vector<std::pair<std::string, std::int32_t>>& keys,
                      std::string reason) {
  IndexModel index;
  index.collection = std::move(collection);
  index.reason = std::move(reason);
  for (const auto& [field, order] : keys) {
    check_append(bson_append_int32(index.keys.get_mutable(), field.data(), key_length(field), order));
    if (!index.name.empty()) index.name += '_';
    index.name += field + "_" + std::to_string(order);  // MongoDB's default: "field_1_other_-1"
  }
  return index;
}

void add_declared_index(std::vector<IndexModel>& plan, std::string_view collection, std::string_view model,
                        std::span<const PlannedKey> keys, const DeclaredOptions& options) {
  std::vector<std::pair<std::string, std::int32_t>> fields;
  fields.reserve(keys.size());
  for (const PlannedKey& key : keys) fields.emplace_back(std::string(key.field), key.order);
  IndexModel index = make_index(std::string(collection), fields, "declared by " + std::string(model));
  index.declared = true;
  if (!options.name.empty()) index.name = std::string(options.name);
  index.unique = options.unique;
  index.sparse = options.sparse;
  if (!options.partial_filter.empty()) index.partial_filter = Document::from_json(options.partial_filter);
  if (options.expire_after_seconds >= 0) index.expire_after_seconds = options.expire_after_seconds;
  plan.push_back(std::move(index));
}

void add_previous_name_indexes(std::vector<IndexModel>& plan, std::string_view collection, const NamePair* pairs,
                               std::size_t count) {
  const std::size_t planned = plan.size();
  for (std::size_t at = 0; at < planned; ++at) {
    if (plan[at].collection != collection) continue;
    // The keys with each renamed member's name replaced by its previous one; the names
    // whose existence a unique index must require.
    std::vector<std::pair<std::string, std::int32_t>> previous_keys;
    std::vector<std::pair<std::string, std::string>> required;  // (name, previous)
    std::vector<std::pair<std::string, std::int32_t>> own_keys;
    bson_iter_t key;
    bson_iter_init(&key, plan[at].keys.get());
    while (bson_iter_next(&key)) {
      const std::string path(bson_iter_key(&key), bson_iter_key_len(&key));
      const std::int32_t order = bson_iter_as_int64(&key) < 0 ? -1 : 1;
      own_keys.emplace_back(path, order);
      std::string_view rest;
      const NamePair* pair = renamed_root(path, pairs, count, rest);
      if (pair == nullptr) {
        previous_keys.emplace_back(path, order);
        continue;
      }
      previous_keys.emplace_back(pair->path(pair->previous) + std::string(rest), order);
      required.emplace_back(pair->path(pair->name), pair->path(pair->previous));
    }
    if (required.empty()) continue;
    IndexModel twin = make_index(plan[at].collection, previous_keys, plan[at].reason + ", under the previous name");
    if (plan[at].name != make_index(plan[at].collection, own_keys, "").name) twin.name = plan[at].name + "_previous";
    twin.declared = plan[at].declared;
    twin.unique = plan[at].unique;
    twin.sparse = plan[at].sparse;
    twin.partial_filter = plan[at].partial_filter;
    twin.expire_after_seconds = plan[at].expire_after_seconds;
    // Unique (and not sparse): only documents holding the name take part, so a document
    // another version wrote under the other name alone is no null key (MongoDB indexes a
    // missing field as null, and two nulls are duplicates).
    if (plan[at].unique && !plan[at].sparse) {
      const auto require = [](std::optional<Document>& filter, const auto& names, bool previous) {
        Document exists;
        for (const auto& [name, old] : names) {
          const std::string& field = previous ? old : name;
          ChildWriter condition(exists.get_mutable(), field);
          check_append(bson_append_bool(condition.get(), "$exists", 7, true));
          condition.close();
        }
        if (filter) {
          Document both;
          ChildWriter all(both.get_mutable(), "$and", ChildWriter::Kind::array);
          check_append(bson_append_document(all.get(), "0", 1, filter->get()));
          check_append(bson_append_document(all.get(), "1", 1, exists.get()));
          all.close();
          exists = std::move(both);
        }
        filter = std::move(exists);
      };
      require(plan[at].partial_filter, required, false);
      require(twin.partial_filter, required, true);
    }
    plan.push_back(std::move(twin));
  }
}

void add_implied_indexes(std::vector<IndexModel>& plan, std::string_view collection, std::string_view model,
                         std::span<const ImpliedIndex> implied) {
  for (const ImpliedIndex& entry : implied) {
    if (entry.kind == ImpliedKind::none) continue;
    std::vector<std::pair<std::string, std::int32_t>> keys;
    for (std::size_t i = 0; i < entry.key_count; ++i) keys.emplace_back(std::string(entry.keys[i].field), entry.keys[i].order);
    const std::string member = std::string(model) + "::" + std::string(entry.member);
    switch (entry.kind) {
      case ImpliedKind::parent_ref:
        add_unless_covered(plan, make_index(std::string(collection), keys, "ParentRef " + member));
        break;
      case ImpliedKind::children:
        add_unless_covered(plan, make_index(std::string(collection), keys,
                                            "child references to the same model, " + member));
        break;
      case ImpliedKind::subset:
        add_unless_covered(plan, make_index(std::string(entry.collection), keys, "Subset " + member));
        break;
      case ImpliedKind::none: break;
    }
  }
}

namespace {
/// Whether `prefix`'s keys are the first keys of `keys`, in order and direction: such an
/// index serves every query the shorter one would (MongoDB uses index prefixes).
bool is_prefix(const bson_t* prefix, const bson_t* keys) {
  bson_iter_t p, k;
  if (!bson_iter_init(&p, prefix) || !bson_iter_init(&k, keys)) return false;
  while (bson_iter_next(&p)) {
    if (!bson_iter_next(&k)) return false;
    if (std::string_view(bson_iter_key(&p)) != bson_iter_key(&k) || bson_iter_as_int64(&p) != bson_iter_as_int64(&k))
      return false;
  }
  return true;
}
}  // namespace

namespace {
/// Whether an index holds an entry for every document of its collection. A partial or
/// sparse one leaves documents out, so MongoDB uses it only for queries it can prove to be
/// within them: it never serves what a full index on the same keys would.
bool indexes_every_document(const IndexModel& index) { return !index.partial_filter && !index.sparse; }

bool same_key_pattern(const IndexModel& a, const IndexModel& b) {
  return is_prefix(a.keys.get(), b.keys.get()) && is_prefix(b.keys.get(), a.keys.get());
}
}  // namespace

void add_unless_covered(std::vector<IndexModel>& plan, IndexModel index) {
  const bool covered = std::any_of(plan.begin(), plan.end(), [&](const IndexModel& planned) {
    return planned.collection == index.collection && indexes_every_document(planned) &&
           is_prefix(index.keys.get(), planned.keys.get());
  });
  if (covered) return;
  // A partial or sparse index already has these exact keys. MongoDB refuses two indexes
  // with one key pattern that differ in such options (before 7.0 it identifies an index by
  // its key pattern), so the full index takes `_id` as its last key: it serves every query
  // the shorter pattern would, and the declared index stays as declared.
  if (std::any_of(plan.begin(), plan.end(), [&](const IndexModel& planned) {
        return planned.collection == index.collection && same_key_pattern(planned, index);
      })) {
    check_append(bson_append_int32(index.keys.get_mutable(), "_id", 3, 1));
    index.name += "__id_1";
    index.reason += " (with _id last: its own keys are taken by a partial or sparse index)";
  }
  // The new index may in turn cover implied, option-less ones planned before it (a
  // declared index is kept whatever covers it: the model asked for it by name).
  if (indexes_every_document(index))
    std::erase_if(plan, [&](const IndexModel& planned) {
      return !planned.declared && planned.collection == index.collection && !planned.unique && !planned.sparse &&
             !planned.partial_filter && !planned.expire_after_seconds && is_prefix(planned.keys.get(), index.keys.get());
    });
  plan.push_back(std::move(index));
}

}  // namespace detail

ODM_DEFINE_SPECIAL_MEMBERS(IndexModel);
ODM_DEFINE_SPECIAL_MEMBERS(IndexSyncReport);

Document IndexModel::specification() const {
  Document spec;
  bson_t* out = spec.get_mutable();
  detail::check_append(bson_append_document(out, "key", 3, keys.get()));
  detail::check_append(bson_append_utf8(out, "name", 4, name.data(), static_cast<int>(name.size())));
  if (unique) detail::check_append(bson_append_bool(out, "unique", 6, true));
  if (sparse) detail::check_append(bson_append_bool(out, "sparse", 6, true));
  if (partial_filter) detail::check_append(bson_append_document(out, "partialFilterExpression", 23, partial_filter->get()));
  if (expire_after_seconds) detail::check_append(bson_append_int64(out, "expireAfterSeconds", 18, *expire_after_seconds));
  return spec;
}

std::string IndexModel::describe() const {
  std::string line = collection + ": " + keys.to_json() + " name=" + name;
  if (unique) line += " unique";
  if (sparse) line += " sparse";
  if (partial_filter) line += " partial=" + partial_filter->to_json();
  if (expire_after_seconds) line += " expireAfterSeconds=" + std::to_string(*expire_after_seconds);
  return line + "  (" + reason + ")";
}

namespace {

bool has(const bson_t* document, const char* key) { return bson_has_field(document, key); }

bool truthy(const bson_t* document, const char* key) {
  bson_iter_t it;
  return bson_iter_init_find(&it, document, key) && bson_iter_as_bool(&it);
}

/// Key patterns are equal when they name the same fields in the same order with the same
/// direction or type, whatever numeric type the server stored (1, 1.0, NumberLong(1)).
bool same_keys(const bson_t* a, const bson_t* b) {
  bson_iter_t x, y;
  if (!bson_iter_init(&x, a) || !bson_iter_init(&y, b)) return false;
  while (true) {
    const bool more_x = bson_iter_next(&x);
    const bool more_y = bson_iter_next(&y);
    if (more_x != more_y) return false;
    if (!more_x) return true;
    if (std::string_view(bson_iter_key(&x)) != bson_iter_key(&y)) return false;
    const bool numeric_x = BSON_ITER_HOLDS_NUMBER(&x), numeric_y = BSON_ITER_HOLDS_NUMBER(&y);
    if (numeric_x != numeric_y) return false;
    if (numeric_x) {
      if (std::signbit(bson_iter_as_double(&x)) != std::signbit(bson_iter_as_double(&y))) return false;
    } else if (BSON_ITER_HOLDS_UTF8(&x) && BSON_ITER_HOLDS_UTF8(&y)) {
      if (std::string_view(bson_iter_utf8(&x, nullptr)) != bson_iter_utf8(&y, nullptr)) return false;
    } else {
      return false;
    }
  }
}

Document sub_document(const bson_t* parent, const char* key) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, parent, key) && (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)))
    return detail::copy_held_document(it);
  return Document();
}

std::string string_field(const bson_t* document, const char* key) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, document, key) && BSON_ITER_HOLDS_UTF8(&it)) return bson_iter_utf8(&it, nullptr);
  return {};
}

/// Whether the collection exists: listCollections, which (unlike listIndexes) does not
/// fail on a collection that does not, so that a first sync sends no failing command.
bool collection_exists(const Database& db, const std::string& collection) {
  Document command;
  bson_t* out = command.get_mutable();
  detail::check_append(bson_append_int32(out, "listCollections", 15, 1));
  {
    detail::ChildWriter filter(out, "filter");
    detail::check_append(bson_append_utf8(filter.get(), "name", 4, collection.data(), static_cast<int>(collection.size())));
    filter.close();
  }
  detail::check_append(bson_append_bool(out, "nameOnly", 8, true));
  const Document reply = db.run_command(command);
  const Document batch = sub_document(sub_document(reply.get(), "cursor").get(), "firstBatch");
  // Compared by name, not by the batch being empty: mongo-java-server ignores the filter.
  bson_iter_t it;
  bson_iter_t name;
  if (bson_iter_init(&it, batch.get()))
    while (bson_iter_next(&it))
      if (BSON_ITER_HOLDS_DOCUMENT(&it) && bson_iter_recurse(&it, &name) && bson_iter_find(&name, "name") &&
          BSON_ITER_HOLDS_UTF8(&name) && collection == bson_iter_utf8(&name, nullptr))
        return true;
  return false;
}

/// The indexes of a collection (none when it does not exist yet).
std::vector<Document> list_indexes(const Database& db, const std::string& collection) {
  if (!collection_exists(db, collection)) return {};
  Document command;
  detail::check_append(
      bson_append_utf8(command.get_mutable(), "listIndexes", 11, collection.data(), static_cast<int>(collection.size())));
  Document reply;
  try {
    reply = db.run_command(command);
  } catch (const ServerError& error) {
    // Dropped between the two commands.
    if (detail::namespace_not_found(error.code(), error.message())) return {};
    throw;
  }
  const Document cursor = sub_document(reply.get(), "cursor");
  bson_iter_t id;
  if (bson_iter_init_find(&id, cursor.get(), "id") && bson_iter_as_int64(&id) != 0)
    throw ProtocolError("listIndexes on " + collection + ": the reply's cursor is not exhausted, yet a collection has "
                        "at most 64 indexes and one batch holds them all",
                        reply);
  const Document batch = sub_document(cursor.get(), "firstBatch");
  std::vector<Document> indexes;
  bson_iter_t it;
  if (bson_iter_init(&it, batch.get()))
    while (bson_iter_next(&it))
      if (BSON_ITER_HOLDS_DOCUMENT(&it)) indexes.push_back(detail::copy_held_document(it));
  return indexes;
}

/// What differs between a planned index and an existing one with the same keys or name.
std::string differences(const IndexModel& planned, const bson_t* existing) {
  std::vector<std::string> found;
  const Document existing_keys = sub_document(existing, "key");
  if (!same_keys(planned.keys.get(), existing_keys.get()))
    found.push_back("keys: planned " + planned.keys.to_json() + ", existing " + existing_keys.to_json());
  if (planned.name != string_field(existing, "name"))
    found.push_back("name: planned " + planned.name + ", existing " + string_field(existing, "name"));
  if (planned.unique != truthy(existing, "unique"))
    found.push_back(std::string("unique: planned ") + (planned.unique ? "true" : "false"));
  if (planned.sparse != truthy(existing, "sparse"))
    found.push_back(std::string("sparse: planned ") + (planned.sparse ? "true" : "false"));
  const bool existing_partial = has(existing, "partialFilterExpression");
  if (planned.partial_filter.has_value() != existing_partial ||
      (existing_partial && planned.partial_filter->to_canonical_json() !=
                               sub_document(existing, "partialFilterExpression").to_canonical_json()))
    found.push_back("partialFilterExpression differs");
  bson_iter_t ttl;
  const bool existing_ttl = bson_iter_init_find(&ttl, existing, "expireAfterSeconds");
  if (planned.expire_after_seconds.has_value() != existing_ttl ||
      (existing_ttl && *planned.expire_after_seconds != bson_iter_as_int64(&ttl)))
    found.push_back("expireAfterSeconds differs");
  std::string joined;
  for (const auto& item : found) joined += (joined.empty() ? "" : "; ") + item;
  return joined;
}

}  // namespace

IndexSyncReport sync_indexes(const Database& db, const std::vector<IndexModel>& plan, const IndexSyncOptions& options) {
  IndexSyncReport report;
  report.dry_run = options.dry_run;

  std::vector<std::string> collections;
  for (const auto& index : plan)
    if (std::find(collections.begin(), collections.end(), index.collection) == collections.end())
      collections.push_back(index.collection);

  for (const std::string& collection : collections) {
    const std::vector<Document> existing = list_indexes(db, collection);
    std::vector<bool> matched(existing.size(), false);
    std::vector<const IndexModel*> missing;
    for (const IndexModel& planned : plan) {
      if (planned.collection != collection) continue;
      bool found = false;
      for (std::size_t i = 0; i < existing.size() && !found; ++i) {
        const Document keys = sub_document(existing[i].get(), "key");
        if (!same_keys(planned.keys.get(), keys.get()) && string_field(existing[i].get(), "name") != planned.name)
          continue;
        found = true;
        matched[i] = true;
        const std::string what = differences(planned, existing[i].get());
        if (what.empty())
          report.unchanged.push_back(planned);
        else
          report.differing.push_back({planned, existing[i], what});
      }
      if (!found) missing.push_back(&planned);
    }

    if (!missing.empty()) {
      if (!options.dry_run) {
        // createIndexes: {createIndexes: coll, indexes: [spec, ...]}
        Document command;
        bson_t* out = command.get_mutable();
        detail::check_append(
            bson_append_utf8(out, "createIndexes", 13, collection.data(), static_cast<int>(collection.size())));
        detail::ChildWriter list(out, "indexes", detail::ChildWriter::Kind::array);
        for (const IndexModel* index : missing) {
          const detail::ArrayKey key(list.next_index());
          detail::check_append(bson_append_document(list.get(), key.view().data(), detail::key_length(key.view()),
                                                    index->specification().get()));
        }
        list.close();
        db.run_command(command);
      }
      for (const IndexModel* index : missing) report.created.push_back(*index);
    }

    for (std::size_t i = 0; i < existing.size(); ++i) {
      const std::string name = string_field(existing[i].get(), "name");
      if (matched[i] || name == "_id_") continue;
      report.unplanned.push_back(collection + "." + name);
      if (options.drop_unplanned) {
        if (!options.dry_run) {
          Document command;
          detail::check_append(bson_append_utf8(command.get_mutable(), "dropIndexes", 11, collection.data(),
                                                static_cast<int>(collection.size())));
          detail::check_append(
              bson_append_utf8(command.get_mutable(), "index", 5, name.data(), static_cast<int>(name.size())));
          db.run_command(command);
        }
        report.dropped.push_back(collection + "." + name);
      }
    }
  }
  return report;
}

std::string IndexSyncReport::to_string() const {
  std::ostringstream out;
  const char* create = dry_run ? "would create " : "created      ";
  for (const auto& index : created) out << create << index.describe() << "\n";
  for (const auto& index : unchanged) out << "unchanged    " << index.describe() << "\n";
  for (const auto& difference : differing)
    out << "DIFFERS      " << difference.planned.describe() << "\n             existing "
        << difference.existing.to_json() << ": " << difference.what << " (left as it is)\n";
  for (const auto& name : unplanned)
    if (std::find(dropped.begin(), dropped.end(), name) == dropped.end()) out << "not planned  " << name << " (kept)\n";
  for (const auto& name : dropped) out << (dry_run ? "would drop   " : "dropped      ") << name << "\n";
  return out.str();
}

}  // namespace odm
