// Batch migrations (odm/evolution/migrate.hpp): which documents a run selects, where it
// resumes, and the guard of one document's update.

#include <odm/evolution/migrate.hpp>

#include <odm/bson/writer.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace odm::detail {

namespace {

// MongoDB's sort order of BSON types, bracket by bracket (the manual's "Comparison/Sort
// Order"; numbers compare with each other, as do strings and symbols). `$gt` compares only
// within its operand's bracket; the brackets after it are selected by `$type`. A type that
// cannot be an `_id` (undefined, an array, a regex) or is deprecated (symbol, DBPointer,
// JavaScript code) has no alias here: some engines refuse those names in `$type`, and no
// id of those types is ever selected after a position of another bracket.
struct Bracket {
  std::array<bson_type_t, 4> types;
  std::array<const char*, 4> aliases;
};
constexpr bson_type_t none = BSON_TYPE_EOD;
constexpr std::array<Bracket, 16> brackets{{
    {{BSON_TYPE_MINKEY, none, none, none}, {"minKey", nullptr, nullptr, nullptr}},
    {{BSON_TYPE_UNDEFINED, none, none, none}, {nullptr, nullptr, nullptr, nullptr}},
    {{BSON_TYPE_NULL, none, none, none}, {"null", nullptr, nullptr, nullptr}},
    {{BSON_TYPE_INT32, BSON_TYPE_INT64, BSON_TYPE_DOUBLE, BSON_TYPE_DECIMAL128}, {"int", "long", "double", "decimal"}},
    {{BSON_TYPE_UTF8, BSON_TYPE_SYMBOL, none, none}, {"string", nullptr, nullptr, nullptr}},
    {{BSON_TYPE_DOCUMENT, none, none, none}, {"object", nullptr, nullptr, nullptr}},
    {{BSON_TYPE_ARRAY, none, none, none}, {nullptr, nullptr, nullptr, nullptr}},
    {{BSON_TYPE_BINARY, none, none, none}, {"binData", nullptr, nullptr, nullptr}},
    {{BSON_TYPE_OID, none, none, none}, {"objectId", nullptr, nullptr, nullptr}},
    {{BSON_TYPE_BOOL, none, none, none}, {"bool", nullptr, nullptr, nullptr}},
    {{BSON_TYPE_DATE_TIME, none, none, none}, {"date", nullptr, nullptr, nullptr}},
    {{BSON_TYPE_TIMESTAMP, none, none, none}, {"timestamp", nullptr, nullptr, nullptr}},
    {{BSON_TYPE_REGEX, none, none, none}, {nullptr, nullptr, nullptr, nullptr}},
    {{BSON_TYPE_DBPOINTER, none, none, none}, {nullptr, nullptr, nullptr, nullptr}},
    {{BSON_TYPE_CODE, BSON_TYPE_CODEWSCOPE, none, none}, {nullptr, nullptr, nullptr, nullptr}},
    {{BSON_TYPE_MAXKEY, none, none, none}, {"maxKey", nullptr, nullptr, nullptr}},
}};

std::size_t bracket_of(bson_type_t type) {
  for (std::size_t i = 0; i < brackets.size(); ++i)
    if (std::find(brackets[i].types.begin(), brackets[i].types.end(), type) != brackets[i].types.end()) return i;
  return brackets.size() - 1;  // unknown to this table: nothing sorts after it but MaxKey
}

}  // namespace

/// The checkpoints are raw documents; the model only names the collection's handle.
struct MigrationCheckpoint {
  std::string id;
};

struct MigrationCheckpoints::Handle {
  Collection<MigrationCheckpoint> collection;
};

namespace {

Filter<MigrationCheckpoint> checkpoint_of(const std::string& key) {
  Document filter;
  check_append(bson_append_utf8(filter.get_mutable(), "_id", 3, key.data(), static_cast<int>(key.size())));
  return Filter<MigrationCheckpoint>::raw(std::move(filter));
}

}  // namespace

MigrationCheckpoints::MigrationCheckpoints(const Database& db, std::string name)
    : handle_(std::make_shared<Handle>(Handle{db.collection<MigrationCheckpoint>(std::move(name))})) {}

std::optional<Document> MigrationCheckpoints::last_id(const std::string& key) const {
  const std::optional<Document> saved = handle_->collection.find_one<Document>(checkpoint_of(key));
  bson_iter_t it;
  if (!saved || !bson_iter_init_find(&it, saved->get(), "last_id")) return std::nullopt;
  Document id;
  check_append(bson_append_iter(id.get_mutable(), "_id", 3, &it));
  return id;
}

void MigrationCheckpoints::save(const std::string& key, const Document& last_id, std::int64_t done) {
  Document update;
  {
    ChildWriter set(update.get_mutable(), "$set");
    bson_iter_t id;
    bson_iter_init_find(&id, last_id.get(), "_id");
    check_append(bson_append_iter(set.get(), "last_id", 7, &id));
    check_append(bson_append_int64(set.get(), "done_in_last_run", 16, done));
    set.close();
  }
  handle_->collection.update_one(checkpoint_of(key), Update<MigrationCheckpoint>::raw(std::move(update)),
                                 UpdateOptions<MigrationCheckpoint>().upsert());
}

void MigrationCheckpoints::remove(const std::string& key) { handle_->collection.delete_one(checkpoint_of(key)); }

void append_after(bson_t* filter, const bson_t* last) {
  bson_iter_t id;
  if (!bson_iter_init_find(&id, last, "_id")) throw UsageError("odm::Migration: a position without _id");
  const bson_type_t type = bson_iter_type(&id);
  const std::size_t bracket = bracket_of(type);
  ChildWriter any(filter, "$or", ChildWriter::Kind::array);
  {
    ChildWriter within(any.get(), "0");
    ChildWriter compare(within.get(), "_id");
    if (type == BSON_TYPE_DOUBLE && std::isnan(bson_iter_double(&id))) {
      // NaN sorts before every other number, and `$gt: NaN` matches nothing.
      check_append(bson_append_double(compare.get(), "$gte", 4, -HUGE_VAL));
    } else {
      check_append(bson_append_iter(compare.get(), "$gt", 3, &id));
    }
    compare.close();
    within.close();
  }
  const bool any_later = std::any_of(brackets.begin() + static_cast<std::ptrdiff_t>(bracket) + 1, brackets.end(),
                                     [](const Bracket& b) { return b.aliases[0] != nullptr; });
  if (any_later) {
    ChildWriter later(any.get(), "1");
    ChildWriter of_type(later.get(), "_id");
    ChildWriter aliases(of_type.get(), "$type", ChildWriter::Kind::array);
    int index = 0;
    for (std::size_t b = bracket + 1; b < brackets.size(); ++b)
      for (const char* alias : brackets[b].aliases)
        if (alias != nullptr) {
          const std::string key = std::to_string(index++);
          check_append(bson_append_utf8(aliases.get(), key.c_str(), static_cast<int>(key.size()), alias, -1));
        }
    aliases.close();
    of_type.close();
    later.close();
  }
  any.close();
}

}  // namespace odm::detail
