#pragma once
// odm::Joined<T>: the documents a `$lookup` stage joined, whole documents of the model T.
// They come from T's collection, so they are read as top-level documents (`id` is `_id`),
// unlike a std::vector<T> of embedded documents, whose members have their nested names.

#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/record.hpp>
#include <odm/bson/writer.hpp>
#include <odm/reflect/members.hpp>

#include <string_view>
#include <vector>

namespace odm {

/// The documents of T a $lookup found (Pipeline::lookup), in the server's order.
template <class T>
class Joined : public std::vector<T> {
 public:
  using std::vector<T>::vector;
};

template <reflectable T>
struct codec<Joined<T>> {
  using kind = kinds::array<kinds::any_document>;
  static void encode(bson_t* parent, std::string_view key, const Joined<T>& values) {
    const detail::EncodeLevel level;
    detail::ChildWriter array(parent, key, detail::ChildWriter::Kind::array);
    for (const T& value : values) {
      const detail::ArrayKey element_key(array.next_index());
      detail::at_path(element_key.view(), [&] {
        detail::ChildWriter document(array.get(), element_key.view());
        encode_members<true>(document.get(), value);
        document.close();
      });
    }
    array.close();
  }
  static void decode(const bson_iter_t& it, Joined<T>& out) {
    out.clear();
    detail::for_each_element(it, [&](const bson_iter_t& element) {
      detail::expect_type(element, BSON_TYPE_DOCUMENT, "object");
      detail::NestedIter child(element);
      decode_members<true>(child.get(), out.emplace_back());
    });
  }
};

}  // namespace odm
