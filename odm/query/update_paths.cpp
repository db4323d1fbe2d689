#include "query/update_paths.hpp"

#include <odm/bson/codec.hpp>
#include <odm/bson/writer.hpp>

namespace odm::detail {

namespace {
void append_copy(bson_t* out, const bson_iter_t& it) {
  const std::string_view key = key_of(it);
  check_append(bson_append_iter(out, key.data(), static_cast<int>(key.size()), &it));
}
}  // namespace

bool paths_overlap(std::string_view a, std::string_view b) {
  const std::string_view shorter = a.size() <= b.size() ? a : b;
  const std::string_view longer = a.size() <= b.size() ? b : a;
  return longer.compare(0, shorter.size(), shorter) == 0 &&
         (longer.size() == shorter.size() || longer[shorter.size()] == '.');
}

bool writes_overlapping(const bson_t* update, std::string_view path) { return !operator_writing(update, path).empty(); }

std::string_view operator_writing(const bson_t* update, std::string_view path) {
  bson_iter_t op;
  bson_iter_init(&op, update);
  while (bson_iter_next(&op)) {
    bson_iter_t written;
    if (!BSON_ITER_HOLDS_DOCUMENT(&op) || !bson_iter_recurse(&op, &written)) continue;
    const bool rename = key_of(op) == "$rename";
    while (bson_iter_next(&written)) {
      if (paths_overlap(key_of(written), path)) return key_of(op);
      std::uint32_t length = 0;
      const char* target = rename && BSON_ITER_HOLDS_UTF8(&written) ? bson_iter_utf8(&written, &length) : nullptr;
      if (target != nullptr && paths_overlap(std::string_view(target, length), path)) return key_of(op);
    }
  }
  return {};
}

Document with_fields_added_to(const bson_t* update, std::string_view op, const bson_t* fields) {
  const auto append_fields = [fields](bson_t* into) {
    bson_iter_t field;
    bson_iter_init(&field, fields);
    while (bson_iter_next(&field)) append_copy(into, field);
  };
  Document out;
  bool merged = false;
  bson_iter_t it;
  bson_iter_init(&it, update);
  while (bson_iter_next(&it)) {
    bson_iter_t existing;
    if (key_of(it) != op || !BSON_ITER_HOLDS_DOCUMENT(&it) || !bson_iter_recurse(&it, &existing)) {
      append_copy(out.get_mutable(), it);
      continue;
    }
    ChildWriter merged_op(out.get_mutable(), op);
    while (bson_iter_next(&existing)) append_copy(merged_op.get(), existing);
    append_fields(merged_op.get());
    merged_op.close();
    merged = true;
  }
  if (!merged) {
    ChildWriter new_op(out.get_mutable(), op);
    append_fields(new_op.get());
    new_op.close();
  }
  return out;
}

}  // namespace odm::detail
