// The contract step of a rename (odm/evolution/rename.hpp).

#include <odm/bson/writer.hpp>
#include <odm/error.hpp>
#include <odm/evolution/rename.hpp>

#include <string>

namespace odm {
namespace {

/// `document` with `from` moved to `to` (two names of its own fields).
Document rename_in(const bson_t* document, std::string_view from, std::string_view to) {
  bson_iter_t old;
  if (!bson_iter_init_find_w_len(&old, document, from.data(), static_cast<int>(from.size())))
    return Document::copy_of(document);
  bson_iter_t renamed;
  const bool has_new = bson_iter_init_find_w_len(&renamed, document, to.data(), static_cast<int>(to.size()));
  // The old name's value, where the new name is (or where the old one was, when the
  // document has only the old one); the old name gone.
  Document next;
  bson_iter_t it;
  bson_iter_init(&it, document);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key == to || (key == from && !has_new))
      detail::check_append(bson_append_iter(next.get_mutable(), to.data(), static_cast<int>(to.size()), &old));
    else if (key != from)
      detail::check_append(bson_append_iter(next.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
  }
  return next;
}

/// `document` with the rename applied inside the sub-document at `parent` (a dotted
/// path); kept as it is where the parent is missing or not a document.
Document rename_below(const bson_t* document, std::string_view parent, std::string_view from, std::string_view to,
                      const std::string& whole) {
  if (parent.empty()) return rename_in(document, from, to);
  const std::size_t dot = parent.find('.');
  const std::string_view step = parent.substr(0, dot);
  const std::string_view rest = dot == std::string_view::npos ? std::string_view{} : parent.substr(dot + 1);
  bson_iter_t child;
  if (!bson_iter_init_find_w_len(&child, document, step.data(), static_cast<int>(step.size())) ||
      !(BSON_ITER_HOLDS_DOCUMENT(&child) || BSON_ITER_HOLDS_ARRAY(&child)))
    return Document::copy_of(document);
  if (BSON_ITER_HOLDS_ARRAY(&child))
    throw ValueError("odm::rename_field(\"" + whole + "\"): `" + std::string(step) +
                     "` is an array in this document; a step renames no field inside array elements");
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&child, &length, &data);
  bson_t inner;
  if (!bson_init_static(&inner, data, length)) throw DecodeError("a corrupt sub-document");
  const Document changed = rename_below(&inner, rest, from, to, whole);
  Document next;
  bson_iter_t it;
  bson_iter_init(&it, document);
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    if (key == step)
      detail::check_append(bson_append_document(next.get_mutable(), key.data(), static_cast<int>(key.size()), changed.get()));
    else
      detail::check_append(bson_append_iter(next.get_mutable(), key.data(), static_cast<int>(key.size()), &it));
  }
  return next;
}

}  // namespace

Document RenameField::operator()(const Document& document) const {
  const std::string_view parent = detail::parent_path(from);
  const std::string_view leaf_from = parent.empty() ? from : from.substr(parent.size() + 1);
  const std::string_view leaf_to = parent.empty() ? to : to.substr(parent.size() + 1);
  return rename_below(document.get(), parent, leaf_from, leaf_to, std::string(from) + "\", \"" + std::string(to));
}

}  // namespace odm
