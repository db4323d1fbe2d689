#include <odm/bson/document.hpp>
#include <odm/bson/utf8.hpp>
#include <odm/error.hpp>

#include <limits>
#include <memory>

namespace odm {
namespace {

struct BsonFree {
  void operator()(char* p) const noexcept { bson_free(p); }
};

/// Every key and string of a document (and of the documents in it) is strict UTF-8.
/// (bson_validate's own UTF-8 check misses strings in nested documents and accepts C0 80.)
bool all_utf8(const bson_t* document, std::size_t depth = 0) {
  if (depth > 200) return false;  // nesting deeper than any server accepts
  bson_iter_t it;
  if (!bson_iter_init(&it, document)) return false;
  while (bson_iter_next(&it)) {
    if (!detail::is_valid_utf8(bson_iter_key(&it), bson_iter_key_len(&it))) return false;
    switch (bson_iter_type(&it)) {
      case BSON_TYPE_UTF8: {
        std::uint32_t length = 0;
        const char* text = bson_iter_utf8(&it, &length);
        if (!detail::is_valid_utf8(text, length)) return false;
        break;
      }
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY: {
        std::uint32_t length = 0;
        const std::uint8_t* data = nullptr;
        if (bson_iter_type(&it) == BSON_TYPE_DOCUMENT)
          bson_iter_document(&it, &length, &data);
        else
          bson_iter_array(&it, &length, &data);
        bson_t child;
        if (!bson_init_static(&child, data, length) || !all_utf8(&child, depth + 1)) return false;
        break;
      }
      default: break;
    }
  }
  return it.err_off == 0;
}

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
  if (!bson_validate(&view, BSON_VALIDATE_NONE, &offset))
    throw DecodeError("malformed BSON at byte " + std::to_string(offset));
  if (!all_utf8(&view)) throw DecodeError("malformed BSON: a key or string is not valid UTF-8");
  return Document(bson_copy(&view));
}

Document Document::from_json(std::string_view json) {
  // Exactly one JSON object: libbson would also take a top-level array ([1, 2] as
  // {"0": 1, "1": 2}) and ignore whatever follows the first document.
  const std::size_t first = json.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || json[first] != '{')
    throw JsonError("invalid Extended JSON: a document must be a JSON object ({...})");
  struct ReaderFree {
    void operator()(bson_json_reader_t* reader) const noexcept { bson_json_reader_destroy(reader); }
  };
  std::unique_ptr<bson_json_reader_t, ReaderFree> reader(bson_json_data_reader_new(false, json.size() + 1));
  bson_json_data_reader_ingest(reader.get(), reinterpret_cast<const std::uint8_t*>(json.data()), json.size());
  Document document;
  bson_error_t error;
  const int read = bson_json_reader_read(reader.get(), document.get_mutable(), &error);
  if (read < 0) throw JsonError(std::string("invalid Extended JSON: ") + error.message);
  if (read == 0) throw JsonError("invalid Extended JSON: no document");
  bson_t rest = BSON_INITIALIZER;
  const int more = bson_json_reader_read(reader.get(), &rest, &error);
  bson_destroy(&rest);
  if (more != 0) throw JsonError("invalid Extended JSON: text follows the document");
  return document;
}

std::string Document::to_json() const { return take_json(bson_as_relaxed_extended_json(doc_, nullptr)); }

std::string Document::to_canonical_json() const {
  return take_json(bson_as_canonical_extended_json(doc_, nullptr));
}

}  // namespace odm
