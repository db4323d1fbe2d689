#pragma once
// The codec's entry points: whole documents to and from BSON and Extended JSON.

#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/record.hpp>
#include <odm/bson/scalars.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace odm {

/// A struct odm can store as a whole document: a plain struct stored as its members.
template <class T>
concept document_model = reflectable<T> && is_record<T>;

/// Appends the fields of `value` to an existing document (for code that builds commands
/// around a model). Throws odm::EncodeError naming the path of a value BSON cannot hold.
template <document_model T>
void encode_into(bson_t* document, const T& value) {
  encode_members<true>(document, value);
  if constexpr (has_schema_versions<T>) detail::metadata_t<T>::schema.template append_version<T>(document);
}

/// The BSON document for `value`: one field per member, in declaration order.
template <document_model T>
Document to_bson(const T& value) {
  Document document;
  encode_into(document.get_mutable(), value);
  return document;
}

/// Decodes a document (strictly: see the README's "Decoding"). Throws odm::DecodeError
/// whose message names the dotted path of the first problem.
template <document_model T>
T from_bson(const bson_t* document) {
  bson_iter_t it;
  if (!bson_iter_init(&it, document) || bson_get_data(document)[document->len - 1] != 0) [[unlikely]]
    throw DecodeError("malformed BSON: not a document");
  T value{};
  if constexpr (has_schema_versions<T>)
    detail::metadata_t<T>::schema.decode(document, value);  // upgrades an older document first
  else
    decode_members<true>(it, value);
  return value;
}

template <document_model T>
T from_bson(const Document& document) {
  return from_bson<T>(document.get());
}

/// Decodes raw bytes from anywhere (a file, a socket). Malformed input of any kind is a
/// DecodeError, never a crash: the bytes are checked as Document::from_bytes checks them
/// before any codec, odm's or your own, reads them.
template <document_model T>
T from_bson(std::span<const std::uint8_t> bytes) {
  bson_t view;
  detail::view_checked_bytes(bytes, view);
  return from_bson<T>(&view);
}

/// Relaxed Extended JSON, e.g. {"_id": 1, "price": {"value": {"$numberDecimal": "119.99"}, ...}}.
template <document_model T>
std::string to_json(const T& value) {
  return to_bson(value).to_json();
}

/// Reads relaxed or canonical Extended JSON. Throws odm::JsonError for text that is not
/// Extended JSON, odm::DecodeError for JSON that does not fit T.
template <document_model T>
T from_json(std::string_view json) {
  return from_bson<T>(Document::from_json(json));
}

}  // namespace odm
