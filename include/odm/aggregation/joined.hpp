#pragma once
// odm::Joined<T>: the documents a `$lookup` stage joined, whole documents of the model T.
// They come from T's collection, so each is read exactly as a find of T reads it
// (odm::from_bson<T>: `id` is `_id`, older schema versions are upgraded, Extra and
// when_absent apply), unlike a std::vector<T> of embedded documents.

#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/convert.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/record.hpp>
#include <odm/bson/writer.hpp>
#include <odm/reflect/members.hpp>

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace odm {

/// The documents of T a $lookup found (Pipeline::lookup), in the server's order.
template <class T>
class Joined : public std::vector<T> {
 public:
  using std::vector<T>::vector;
};

/// Whole documents of T inside a document, each read as a cursor of T reads one (a
/// $facet's results: Pipeline::facet).
template <class T>
class Documents : public std::vector<T> {
 public:
  using std::vector<T>::vector;
};

/// One document a $lookup found, after `.unwind<&R::m>()` of the odm::Joined<T> member:
/// it is a T (its members are T's), read as a find of T reads it. Not an aggregate, so
/// that it is never mistaken for an embedded struct (whose `id` is not `_id`).
template <class T>
class JoinedOne : public T {
 public:
  JoinedOne() = default;
  JoinedOne(T value) : T(std::move(value)) {}  // NOLINT: a T is a JoinedOne<T>
};

namespace detail {

/// Reads one joined document (an element of the $lookup's array) as T's collection would.
template <class T>
T decode_joined(const bson_iter_t& element) {
  expect_type(element, BSON_TYPE_DOCUMENT, "object");
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&element, &length, &data);
  bson_t document;
  if (!bson_init_static(&document, data, length)) [[unlikely]]
    throw DecodeError("malformed BSON: not a document");
  return from_bson<T>(&document);
}

template <class T>
void encode_joined(bson_t* parent, std::string_view key, const T& value) {
  ChildWriter document(parent, key);
  encode_into(document.get(), value);
  document.close();
}

}  // namespace detail

template <document_model T>
struct codec<JoinedOne<T>> {
  using kind = kinds::any_document;
  static void encode(bson_t* parent, std::string_view key, const JoinedOne<T>& value) {
    const detail::EncodeLevel level;
    detail::encode_joined<T>(parent, key, value);
  }
  static void decode(const bson_iter_t& it, JoinedOne<T>& out) { out = JoinedOne<T>(detail::decode_joined<T>(it)); }
};

namespace detail {

/// The codec of an array of whole documents of T (Joined, Documents).
template <class Array, class T>
struct documents_codec {
  using kind = kinds::array<kinds::any_document>;
  static void encode(bson_t* parent, std::string_view key, const Array& values) {
    const detail::EncodeLevel level;
    detail::ChildWriter array(parent, key, detail::ChildWriter::Kind::array);
    for (const T& value : values) {
      const detail::ArrayKey element_key(array.next_index());
      detail::at_path(element_key.view(), [&] { detail::encode_joined<T>(array.get(), element_key.view(), value); });
    }
    array.close();
  }
  static void decode(const bson_iter_t& it, Array& out) {
    out.clear();
    detail::for_each_element(it, [&](const bson_iter_t& element) { out.push_back(detail::decode_joined<T>(element)); });
  }
};

}  // namespace detail

template <document_model T>
struct codec<Joined<T>> : detail::documents_codec<Joined<T>, T> {};
template <document_model T>
struct codec<Documents<T>> : detail::documents_codec<Documents<T>, T> {};

}  // namespace odm
