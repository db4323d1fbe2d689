// The contract step of a rename (odm/evolution/rename.hpp).

#include <odm/bson/writer.hpp>
#include <odm/evolution/rename.hpp>

namespace odm {

Document RenameField::operator()(const Document& document) const {
  bson_iter_t old;
  if (!bson_iter_init_find_w_len(&old, document.get(), from.data(), static_cast<int>(from.size()))) return document;
  bson_iter_t renamed;
  const bool has_new = bson_iter_init_find_w_len(&renamed, document.get(), to.data(), static_cast<int>(to.size()));
  // The old name's value, where the new name is (or where the old one was, when the
  // document has only the old one); the old name gone.
  Document next;
  bson_iter_t it;
  bson_iter_init(&it, document.get());
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key == to || (key == from && !has_new))
      detail::check_append(bson_append_iter(next.get_mutable(), to.data(), static_cast<int>(to.size()), &old));
    else if (key != from)
      detail::check_append(bson_append_iter(next.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
  }
  return next;
}

}  // namespace odm
