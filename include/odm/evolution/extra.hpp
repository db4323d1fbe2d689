#pragma once
// odm::Extra: the fields a model does not declare, kept so that they are never lost.
//
//   struct Order {
//     std::int64_t id;
//     std::string customer;
//     odm::Extra extra;   // every other field of the stored document
//   };
//
// Decoding puts every field no other member names into `extra`, in document order, with
// its BSON type and bytes unchanged (also a field named like the Extra member itself: it
// is not a field). Encoding writes them back where the member is declared, so declare it
// last to keep a document's order. A model with an Extra member is replaced as a whole
// (odm::Collection::replace_one sends the full document, unknown fields included); one
// without never erases stored fields it does not know (README, "Fields a model does not
// know"). Inside an embedded document, an Extra member keeps that document's unknown fields.

#include <odm/bson/codec.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/record.hpp>

#include <cstddef>
#include <string_view>

namespace odm {

class Extra {
 public:
  Extra() = default;

  /// The kept fields, as one document (in the order they were read).
  const Document& fields() const noexcept { return fields_; }
  bool empty() const noexcept { return fields_.empty(); }
  /// The number of kept fields.
  std::size_t size() const noexcept { return bson_count_keys(fields_.get()); }
  bool contains(std::string_view name) const {
    bson_iter_t it;
    return bson_iter_init_find_w_len(&it, fields_.get(), name.data(), static_cast<int>(name.size()));
  }
  /// Forgets the kept fields: the next replace or save of the object erases them.
  void clear() noexcept { fields_ = Document(); }

  friend bool operator==(const Extra&, const Extra&) = default;

 private:
  friend struct codec<Extra>;
  Document fields_;
};

template <>
struct codec<Extra> {
  // Not a field of its own: its fields are the document's unknown ones, of any kind.
  using kind = kinds::any_document;
  static constexpr bool keeps_unknown_fields = true;
  static constexpr bool may_be_absent = true;
  static void keep(const bson_iter_t& it, Extra& out) {
    detail::check_append(bson_append_iter(out.fields_.get_mutable(), bson_iter_key(&it),
                                          static_cast<int>(bson_iter_key_len(&it)), &it));
  }
  static void encode_fields(bson_t* document, const Extra& value) {
    if (!value.empty()) detail::check_append(bson_concat(document, value.fields_.get()));
  }
};

}  // namespace odm
