// Schema versions (odm/evolution/versions.hpp): the parts that need no template.

#include <odm/evolution/versions.hpp>

#include <odm/bson/writer.hpp>

#include <algorithm>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace odm {

SchemaVersionError::~SchemaVersionError() = default;

namespace detail {

std::string id_json_of(const bson_t* document) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, document, "_id")) return {};
  Document id;
  check_append(bson_append_iter(id.get_mutable(), "_id", 3, &it));
  return id.to_json();
}

Document without_version(const bson_t* document) {
  Document copy;
  bson_copy_to_excluding_noinit(document, copy.get_mutable(), schema_version_field.data(), nullptr);
  return copy;
}

}  // namespace detail
}  // namespace odm

namespace odm::detail {

Document first_of_each_field(Document document) {
  std::vector<std::string_view> keys;
  bson_iter_t it;
  bson_iter_init(&it, document.get());
  while (bson_iter_next(&it)) keys.emplace_back(bson_iter_key(&it), bson_iter_key_len(&it));
  std::vector<std::string_view> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) return document;
  Document unique;
  std::unordered_set<std::string_view> written;
  bson_iter_init(&it, document.get());
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (!written.insert(key).second) continue;
    check_append(bson_append_iter(unique.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
  }
  return unique;
}

}  // namespace odm::detail
