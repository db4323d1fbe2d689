#include <odm/bson/document.hpp>
#include <odm/error.hpp>

#include <limits>
#include <memory>

namespace odm {
namespace {

struct BsonFree {
  void operator()(char* p) const noexcept { bson_free(p); }
};

std::string take_json(char* json) {
  if (json == nullptr) throw EncodeError("document cannot be written as Extended JSON");
  std::unique_ptr<char, BsonFree> owner(json);
  return std::string(json);
}

}  // namespace

Document Document::from_bytes(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 5 || bytes.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw DecodeError("malformed BSON: " + std::to_string(bytes.size()) + " bytes cannot hold a document");
  bson_t view;
  if (!bson_init_static(&view, bytes.data(), bytes.size()))
    throw DecodeError("malformed BSON: the length prefix does not match the " + std::to_string(bytes.size()) +
                      " bytes given");
  std::size_t offset = 0;
  // UTF-8 of every key and string, and the structure of every nested document.
  if (!bson_validate(&view, BSON_VALIDATE_UTF8, &offset))
    throw DecodeError("malformed BSON at byte " + std::to_string(offset));
  return Document(bson_copy(&view));
}

Document Document::from_json(std::string_view json) {
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  if (doc == nullptr) throw JsonError(std::string("invalid Extended JSON: ") + error.message);
  return Document(doc);
}

std::string Document::to_json() const { return take_json(bson_as_relaxed_extended_json(doc_, nullptr)); }

std::string Document::to_canonical_json() const {
  return take_json(bson_as_canonical_extended_json(doc_, nullptr));
}

}  // namespace odm
