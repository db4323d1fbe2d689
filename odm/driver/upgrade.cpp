// Rewriting one stored document under a guard (odm/driver/upgrade.hpp).

#include <odm/bson/writer.hpp>
#include <odm/driver/upgrade.hpp>
#include <odm/model/model.hpp>

#include <cstddef>
#include <cstring>
#include <string_view>

namespace odm::detail {

// `d1` is the offset of a value's first byte and `next_off` that of the next field
// (libbson's documented iterator fields): two values compare by their bytes, no copies.
bool same_value(const bson_iter_t& a, const bson_iter_t& b) {
  if (bson_iter_type(&a) != bson_iter_type(&b)) return false;
  const std::size_t length_a = a.next_off - a.d1;
  const std::size_t length_b = b.next_off - b.d1;
  return length_a == length_b && std::memcmp(a.raw + a.d1, b.raw + b.d1, length_a) == 0;
}

namespace {

bool has_field(const bson_t* document, std::string_view key, bson_iter_t& at) {
  return bson_iter_init_find_w_len(&at, document, key.data(), static_cast<int>(key.size()));
}

/// Whether the field `key` differs between `before` and `after`.
bool changed(const bson_t* before, const bson_t* after, std::string_view key) {
  bson_iter_t a;
  bson_iter_t b;
  const bool in_before = has_field(before, key, a);
  const bool in_after = has_field(after, key, b);
  return in_before != in_after || (in_before && !same_value(a, b));
}

void guard_field(bson_t* guard, std::string_view key, const bson_iter_t* stored) {
  ChildWriter condition(guard, key);
  if (stored)
    check_append(bson_append_iter(condition.get(), "$eq", 3, stored));
  else
    check_append(bson_append_bool(condition.get(), "$exists", 7, false));
  condition.close();
}

}  // namespace

Document overlay_changes(const bson_t* onto, const bson_t* before, const bson_t* after) {
  Document out;
  bson_iter_t it;
  bson_iter_t edited;
  bson_iter_init(&it, onto);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (!changed(before, after, key))
      check_append(bson_append_iter(out.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
    else if (has_field(after, key, edited))
      check_append(bson_append_iter(out.get_mutable(), key.data(), static_cast<int>(key.size()), &edited));
  }
  bson_iter_init(&it, after);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (!has_field(onto, key, edited) && changed(before, after, key))
      check_append(bson_append_iter(out.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
  }
  return out;
}

bool guarded_rewrite(const bson_t* stored, const bson_t* target, Document& guard, Document& update) {
  Document set;
  Document unset;
  guard = Document();
  bson_iter_t it;
  if (bson_iter_init_find(&it, stored, "_id")) check_append(bson_append_iter(guard.get_mutable(), "_id", 3, &it));
  bson_iter_init(&it, target);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key == "_id") continue;
    bson_iter_t old;
    const bool had = bson_iter_init_find_w_len(&old, stored, key.data(), static_cast<int>(key.size()));
    if (had && same_value(old, it)) continue;
    check_append(bson_append_iter(set.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
    guard_field(guard.get_mutable(), key, had ? &old : nullptr);
  }
  bson_iter_init(&it, stored);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    bson_iter_t now;
    if (key == "_id" || bson_iter_init_find_w_len(&now, target, key.data(), static_cast<int>(key.size()))) continue;
    check_append(bson_append_int32(unset.get_mutable(), key.data(), static_cast<int>(key.size()), 1));
    guard_field(guard.get_mutable(), key, &it);
  }
  update = Document();
  if (!set.empty()) check_append(bson_append_document(update.get_mutable(), "$set", 4, set.get()));
  if (!unset.empty()) check_append(bson_append_document(update.get_mutable(), "$unset", 6, unset.get()));
  return !update.empty();
}

Document older_versions_within(const bson_t* filter, std::int32_t current) {
  Document selection;
  bson_iter_t it;
  if (bson_iter_init_find(&it, filter, "_id")) check_append(bson_append_iter(selection.get_mutable(), "_id", 3, &it));
  ChildWriter version(selection.get_mutable(), schema_version_field);
  ChildWriter newer(version.get(), "$not");
  check_append(bson_append_int32(newer.get(), "$gte", 4, current));
  newer.close();
  version.close();
  return selection;
}

}  // namespace odm::detail
