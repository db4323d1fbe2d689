// The update between two versions of a document (odm/evolution/changes.hpp).

#include <odm/evolution/changes.hpp>

#include <odm/bson/codec.hpp>
#include <odm/bson/limits.hpp>
#include <odm/bson/writer.hpp>
#include <odm/driver/upgrade.hpp>
#include <odm/error.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace odm {
namespace {

std::string_view key_of(const bson_iter_t& it) { return {bson_iter_key(&it), bson_iter_key_len(&it)}; }

/// Whether `key` can be one step of a dotted update path.
bool addressable(std::string_view key) {
  return !key.empty() && key.front() != '$' && key.find('.') == std::string_view::npos;
}

/// Whether every key of the sub-document or array at `it` is addressable.
bool all_addressable(const bson_iter_t& it) {
  bson_iter_t child;
  if (!bson_iter_recurse(&it, &child)) return false;
  while (bson_iter_next(&child))
    if (!addressable(key_of(child))) return false;
  return true;
}

class Differ {
 public:
  Document result() {
    Document update;
    bson_t* out = update.get_mutable();
    append_part(out, "$set", set_);
    append_part(out, "$unset", unset_);
    append_part(out, "$push", push_);
    return update;
  }

  /// The fields of two documents (a whole one, path "", or one at `path`).
  void documents(const bson_t* before, const bson_t* after, const std::string& path) {
    struct Field {
      std::string_view key;
      bson_iter_t it;
      bool matched = false;
    };
    std::vector<Field> old_fields;
    bson_iter_t it;
    if (!bson_iter_init(&it, before)) throw DecodeError("malformed BSON: not a document");
    while (bson_iter_next(&it)) old_fields.push_back(Field{key_of(it), it});
    std::vector<Field*> sorted;
    sorted.reserve(old_fields.size());
    for (Field& field : old_fields) sorted.push_back(&field);
    std::stable_sort(sorted.begin(), sorted.end(), [](const Field* a, const Field* b) { return a->key < b->key; });

    if (!bson_iter_init(&it, after)) throw DecodeError("malformed BSON: not a document");
    std::size_t position = 0;
    while (bson_iter_next(&it)) {
      const std::string_view key = key_of(it);
      // Where an odm document keeps it: at the same position; else look it up.
      Field* old = nullptr;
      if (position < old_fields.size() && old_fields[position].key == key && !old_fields[position].matched) {
        old = &old_fields[position];
      } else {
        auto at = std::lower_bound(sorted.begin(), sorted.end(), key,
                                   [](const Field* field, std::string_view k) { return field->key < k; });
        for (; at != sorted.end() && (*at)->key == key; ++at)
          if (!(*at)->matched) {
            old = *at;
            break;
          }
      }
      ++position;
      if (old != nullptr) {
        old->matched = true;
        if (detail::same_value(old->it, it)) continue;
        value(old->it, it, join(path, key));
      } else {
        append(set_, join(path, key), it);
      }
    }
    for (const Field& field : old_fields)
      if (!field.matched) unset(join(path, field.key));
  }

 private:
  static std::string join(const std::string& path, std::string_view key) {
    if (!addressable(key))
      throw UsageError("the field " + detail::quoted(key) + (path.empty() ? "" : " in " + path) +
                       " changed, but its name cannot be part of an update path (empty, a '$' or a '.')");
    std::string joined = path;
    if (!joined.empty()) joined += '.';
    joined += key;
    return joined;
  }

  /// One value that is in both versions, at `path`.
  void value(const bson_iter_t& before, const bson_iter_t& after, const std::string& path) {
    if (detail::same_value(before, after)) return;
    const bson_type_t type = bson_iter_type(&after);
    // Deeper than any model nests (another program's document, kept in an Extra, or given
    // to changes_between): set whole rather than recurse without bound.
    if (type == bson_iter_type(&before) && (type == BSON_TYPE_DOCUMENT || type == BSON_TYPE_ARRAY) &&
        depth_ < max_depth && all_addressable(before) && all_addressable(after)) {
      ++depth_;
      struct Leave {
        std::size_t& depth;
        ~Leave() { --depth; }
      } leave{depth_};
      bson_t old_child;
      bson_t new_child;
      const std::uint8_t* data = nullptr;
      std::uint32_t length = 0;
      if (type == BSON_TYPE_DOCUMENT) {
        bson_iter_document(&before, &length, &data);
        bson_init_static(&old_child, data, length);
        bson_iter_document(&after, &length, &data);
        bson_init_static(&new_child, data, length);
        documents(&old_child, &new_child, path);
      } else {
        array(before, after, path);
      }
      return;
    }
    append(set_, path, after);
  }

  /// Two versions of an array: appended elements are pushed, changed elements of an array
  /// that kept its length are set one by one (at their deepest changed path); any other
  /// change (shorter, reordered and longer, ...) sets the whole array.
  void array(const bson_iter_t& before, const bson_iter_t& after, const std::string& path) {
    const std::vector<Element> old_elements = elements(before);
    const std::vector<Element> new_elements = elements(after);
    if (new_elements.size() < old_elements.size()) {
      append(set_, path, after);
      return;
    }
    std::vector<std::size_t> changed;
    for (std::size_t i = 0; i < old_elements.size(); ++i)
      if (!detail::same_value(iter_of(old_elements[i]), iter_of(new_elements[i]))) changed.push_back(i);
    if (new_elements.size() > old_elements.size()) {
      if (!changed.empty()) {
        append(set_, path, after);
        return;
      }
      detail::ChildWriter each(push_.get_mutable(), path);
      detail::ChildWriter tail(each.get(), "$each", detail::ChildWriter::Kind::array);
      for (std::size_t i = old_elements.size(); i < new_elements.size(); ++i) {
        const std::string index = std::to_string(tail.next_index());
        const bson_iter_t element = iter_of(new_elements[i]);
        detail::check_append(bson_append_iter(tail.get(), index.data(), static_cast<int>(index.size()), &element));
      }
      tail.close();
      each.close();
      return;
    }
    for (std::size_t i : changed)
      value(iter_of(old_elements[i]), iter_of(new_elements[i]), path + '.' + std::to_string(i));
  }

  // libbson declares bson_iter_t 128-byte aligned, which a std::vector's storage does not
  // honour (UBSan: misaligned store), so the elements are kept as bytes and each is copied
  // back into an aligned bson_iter_t when read.
  struct Element {
    unsigned char bytes[sizeof(bson_iter_t)];
  };
  static bson_iter_t iter_of(const Element& element) {
    bson_iter_t iter;
    std::memcpy(&iter, element.bytes, sizeof iter);
    return iter;
  }
  static std::vector<Element> elements(const bson_iter_t& array) {
    std::vector<Element> found;
    bson_iter_t child;
    if (bson_iter_recurse(&array, &child)) {
      while (bson_iter_next(&child)) {
        Element element;
        std::memcpy(element.bytes, &child, sizeof child);
        found.push_back(element);
      }
    }
    return found;
  }

  static void append(Document& part, const std::string& path, const bson_iter_t& value) {
    detail::check_append(
        bson_append_iter(part.get_mutable(), path.data(), static_cast<int>(path.size()), &value));
  }
  void unset(const std::string& path) {
    // A document another program wrote may hold a key twice; MongoDB refuses an update that
    // names a path twice, and one $unset removes the field.
    if (!unset_paths_.insert(path).second) return;
    detail::check_append(bson_append_int32(unset_.get_mutable(), path.data(), static_cast<int>(path.size()), 1));
  }
  static void append_part(bson_t* out, const char* name, const Document& part) {
    if (!part.empty()) detail::check_append(bson_append_document(out, name, -1, part.get()));
  }

  Document set_;
  Document unset_;
  Document push_;
  std::unordered_set<std::string> unset_paths_;
  std::size_t depth_ = 0;  // sub-documents and arrays entered
};

}  // namespace

Document changes_between(const bson_t* before, const bson_t* after) {
  Differ differ;
  differ.documents(before, after, "");
  return differ.result();
}

}  // namespace odm

namespace odm {
VersionConflict::~VersionConflict() = default;
}  // namespace odm
