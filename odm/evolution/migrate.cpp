// Batch migrations (odm/evolution/migrate.hpp): the guard of one document's update.

#include <odm/evolution/migrate.hpp>

#include <odm/bson/writer.hpp>

#include <string_view>

namespace odm::detail {

Document guard_of(const bson_t* document) {
  Document filter;
  bson_t* out = filter.get_mutable();
  bool has_version = false;
  bson_iter_t it;
  bson_iter_init(&it, document);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key == "_id") {
      check_append(bson_append_iter(out, "_id", 3, &it));
      continue;
    }
    if (key == schema_version_field) has_version = true;
    // A name a filter cannot hold (another program's "a.b" or "$x") is not guarded; the
    // update cannot name it either (changes_between refuses to change it).
    if (key.empty() || key.front() == '$' || key.find('.') != std::string_view::npos) continue;
    ChildWriter equal(out, key);
    check_append(bson_append_iter(equal.get(), "$eq", 3, &it));
    equal.close();
  }
  if (!has_version) {
    ChildWriter missing(out, schema_version_field);
    check_append(bson_append_bool(missing.get(), "$exists", 7, false));
    missing.close();
  }
  return filter;
}

}  // namespace odm::detail
