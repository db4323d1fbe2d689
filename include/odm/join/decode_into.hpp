#pragma once
// Where a join's reads put the documents they decode, without the model's type: the loops
// over the server's replies (batched finds, `$unionWith` aggregates, `$lookup` pools) are
// compiled once in odm/join/*.cpp, and only this callback is made per model.

#include <odm/bson/convert.hpp>

#include <bson/bson.h>

#include <vector>

namespace odm::detail {

/// `take(out, document)` decodes `document` into the caller's std::vector<T> (`out`),
/// throwing DecodeError when it does not fit T.
struct DecodeInto {
  void* out = nullptr;
  void (*take)(void* out, const bson_t* document) = nullptr;
};

template <class T>
DecodeInto decode_into(std::vector<T>& found) noexcept {
  return DecodeInto{&found, [](void* out, const bson_t* document) {
                      static_cast<std::vector<T>*>(out)->push_back(from_bson<T>(document));
                    }};
}

}  // namespace odm::detail
