// The codec's helpers that are not on its fast path (error messages), compiled once.
#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/record.hpp>
#include <odm/bson/tagged_variant.hpp>

#include "walk.hpp"

#include <algorithm>
#include <optional>

namespace odm::detail {

std::string quoted(std::string_view text) {
  constexpr std::size_t limit = 64;
  // Stored text in a message: quotes, backslashes, control characters and (in text that is
  // not UTF-8) bytes above ASCII are escaped, so the message says which bytes were there.
  const bool utf8 = is_valid_utf8(text.data(), text.size());
  std::size_t end = std::min(text.size(), limit);
  if (utf8)
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // a whole character
  const std::string_view shown = text.substr(0, end);
  std::string out = "\"";
  for (const char c : shown) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7F || (byte >= 0x80 && !utf8)) {
      constexpr std::string_view digits = "0123456789abcdef";
      out += "\\x";
      out += digits[byte >> 4];
      out += digits[byte & 0xF];
    } else {
      out += c;
    }
  }
  if (end < text.size()) out += "...";
  out += '"';
  return out;
}

std::string shown_key(const char* key, std::size_t length) {
  constexpr std::size_t limit = 64;
  std::string out(key, std::min(length, limit));
  if (length > limit) out += "...";
  return out;
}

[[noreturn]] void throw_unexpected_type(const bson_iter_t& it, std::string_view expected) {
  std::string message = "expected ";
  message += expected;
  message += ", got ";
  message += bson_type_name(bson_iter_type(&it));
  throw DecodeError(std::move(message));
}

std::string type_names(type_mask mask) {
  if (mask == any_type) return "any type";
  std::string out;
  for (unsigned code = 1; code <= 0xFF; ++code) {
    const auto type = static_cast<bson_type_t>(code);
    if (type_bit(type) == 0 || (mask & type_bit(type)) == 0) continue;
    if (!out.empty()) out += " or ";
    out += bson_type_name(type);
  }
  return out;
}

bool children_fit(const bson_iter_t& it, type_mask types, std::string& why) {
  if (types == any_type) return true;
  bson_iter_t child = recurse(it);
  while (next(child)) {
    if ((types & type_bit(bson_iter_type(&child))) == 0) {
      why = shown_key(bson_iter_key(&child), bson_iter_key_len(&child)) + ": expected " +
            type_names(types) + ", got " + std::string(bson_type_name(bson_iter_type(&child)));
      return false;
    }
  }
  return true;
}

bool container_fits(const bson_iter_t& it, bson_type_t type, type_mask child_types, std::string& why) {
  if (bson_iter_type(&it) != type) {
    why = "expected " + std::string(bson_type_name(type)) + ", got " + std::string(bson_type_name(bson_iter_type(&it)));
    return false;
  }
  return children_fit(it, child_types, why);
}

void throw_malformed_at(std::uint32_t offset) {
  throw DecodeError("malformed BSON at byte " + std::to_string(offset));
}

void throw_integer_out_of_range(std::int64_t value, std::size_t bits) {
  throw DecodeError("value " + std::to_string(value) + " does not fit a " + std::to_string(bits) + "-bit integer");
}

void throw_inexact_double(std::int64_t value) {
  throw DecodeError("long value " + std::to_string(value) + " cannot be held exactly by a double");
}

void throw_date_out_of_range(std::int64_t ms) {
  throw DecodeError("date " + std::to_string(ms) + " ms is out of this time point's range");
}

void throw_date_off_grid(std::int64_t ms, std::int64_t grid) {
  throw DecodeError("date " + std::to_string(ms) + " ms is not a whole number of the member's time unit (" +
                    std::to_string(grid) + " ms); declare it as std::chrono::system_clock::time_point");
}

void throw_no_alternative(std::size_t alternatives, const bson_iter_t& it, const std::string& reasons) {
  throw DecodeError("none of the variant's " + std::to_string(alternatives) + " alternatives fits the stored " +
                    std::string(bson_type_name(bson_iter_type(&it))) + " (" + reasons + ")");
}

bool find_tag_field(const bson_iter_t& it, std::string_view field, bson_iter_t& found) {
  found = recurse(it);
  while (next(found))
    if (key_equals(field, bson_iter_key(&found), bson_iter_key_len(&found))) return true;
  return false;
}

void throw_tag_missing(std::string_view field, const std::string& known) {
  DecodeError error("missing: a tagged variant needs the kind's tag (it reads " + known + ")");
  error.prepend(field);
  throw error;
}

namespace {

[[noreturn]] void throw_tag_not_string(const bson_iter_t& tag, std::string_view field) {
  DecodeError error("expected a kind's tag (a string), got " + std::string(bson_type_name(bson_iter_type(&tag))));
  error.prepend(field);
  throw error;
}

[[noreturn]] void throw_tag_unknown(std::string_view stored, std::string_view field, const std::string& known) {
  DecodeError error("unknown kind " + quoted(stored) + " (this variant reads " + known +
                    "; odm::UnknownKind as its last alternative keeps such documents)");
  error.prepend(field);
  throw error;
}

/// How many times the field `field` is in the document `it` iterates, and the first of them.
std::size_t count_fields(bson_iter_t it, std::string_view field, bson_iter_t& first) {
  std::size_t count = 0;
  while (next(it))
    if (key_equals(field, bson_iter_key(&it), bson_iter_key_len(&it)) && count++ == 0) first = it;
  return count;
}

}  // namespace

std::string_view unknown_kind_stored_tag(const Document& document, std::string_view field) {
  // A document made by hand may hold what odm never writes (checked as Document::from_bytes
  // checks what it reads), at the level it is about to be written at.
  if (auto problem = walk_document(document.get(), encode_depth + 2, JsonCheck::none))
    throw_problem<EncodeError>(std::move(*problem));
  bson_iter_t it;
  bson_iter_t tag;
  std::size_t count = 0;
  if (bson_iter_init(&it, document.get())) count = count_fields(it, field, tag);
  if (count == 1 && bson_iter_type(&tag) == BSON_TYPE_UTF8) {
    std::uint32_t length = 0;
    const char* text = bson_iter_utf8(&tag, &length);
    return std::string_view(text, length);
  }
  EncodeError error(count > 1 ? std::string("odm::UnknownKind's document holds this field twice, so readers could "
                                            "disagree on its kind; keep the document as it was read")
                              : std::string("odm::UnknownKind's document has no kind's tag (a string) in this field, "
                                            "so it would not read back; keep the document as it was read, tag "
                                            "included"));
  error.prepend(field);
  throw error;
}

void throw_tag_refused(const bson_iter_t& document, const bson_iter_t& tag, std::string_view field,
                       const std::string& known) {
  bson_iter_t child;
  bson_iter_t first;
  if (recurse_into(document, child) && count_fields(child, field, first) > 1) throw_twice(field);
  if (bson_iter_type(&tag) != BSON_TYPE_UTF8) throw_tag_not_string(tag, field);
  std::uint32_t length = 0;
  const char* text = bson_iter_utf8(&tag, &length);
  throw_tag_unknown(std::string_view(text, length), field, known);
}

void check_unknown_kind_read(const bson_iter_t& it, std::string_view field, std::size_t depth) {
  check_unread_value(it, depth);
  bson_iter_t child;
  bson_iter_t first;
  if (recurse_into(it, child) && count_fields(child, field, first) > 1) [[unlikely]]
    throw_twice(field);
}

void throw_unknown_kind_tag_differs(std::string_view tag, std::string_view stored, std::string_view field) {
  EncodeError error("odm::UnknownKind's tag " + quoted(tag) + " is not the kind its document stores (" +
                    quoted(stored) + "), so it would read back as another; keep the two as they were read");
  error.prepend(field);
  throw error;
}

void throw_unknown_kind_is_known(std::string_view stored, std::string_view field) {
  EncodeError error("odm::UnknownKind holds a document of kind " + quoted(stored) +
                    ", which this variant reads as one of its own alternatives; write that alternative instead");
  error.prepend(field);
  throw error;
}

std::string unknown_field_reason(const char* key, std::size_t length) {
  return shown_key(key, length) + ": unknown field (the model is strict)";
}

std::string field_type_reason(std::string_view name, type_mask expected, bson_type_t got) {
  return std::string(name) + ": expected " + type_names(expected) + ", got " + std::string(bson_type_name(got));
}

std::string missing_field_reason(std::string_view name) { return std::string(name) + ": missing required field"; }

namespace {

/// The stored tag at `it` when it is a string.
std::optional<std::string_view> stored_tag(const bson_iter_t& it) {
  if (bson_iter_type(&it) != BSON_TYPE_UTF8) return std::nullopt;
  std::uint32_t length = 0;
  const char* text = bson_iter_utf8(&it, &length);
  return std::string_view(text, length);
}

/// What a tag field holds that is not `tag`'s kind, for a message.
std::string other_kind(const bson_iter_t& it, const Tag& tag) {
  const std::optional<std::string_view> stored = stored_tag(it);
  if (!stored) return "expected a kind's tag (a string), got " + std::string(bson_type_name(bson_iter_type(&it)));
  return "kind " + quoted(*stored) + ", not " + quoted(tag.value);
}

}  // namespace

bool tag_names_kind(const bson_iter_t& it, const Tag& tag) {
  const std::optional<std::string_view> stored = stored_tag(it);
  return stored && tag.names(*stored);
}

std::string other_kind_reason(const bson_iter_t& it, const Tag& tag) {
  return std::string(tag.field) + ": " + other_kind(it, tag);
}

void check_own_tag(const bson_iter_t& it, const Tag& tag) {
  if (tag_names_kind(it, tag)) [[likely]]
    return;
  DecodeError error(other_kind(it, tag));
  error.prepend(tag.field);
  throw error;
}

namespace {

bool test_bit(const std::uint64_t* bits, std::size_t i) noexcept { return ((bits[i / 64] >> (i % 64)) & 1U) != 0; }
void set_bit(std::uint64_t* bits, std::size_t i) noexcept { bits[i / 64] |= std::uint64_t{1} << (i % 64); }
void clear_bit(std::uint64_t* bits, std::size_t i) noexcept { bits[i / 64] &= ~(std::uint64_t{1} << (i % 64)); }

/// The member stored under `key`, or `size` (the odm::Extra member is never found).
std::size_t find_field(const RecordLayout& layout, std::string_view key) noexcept {
  const named_index* at = find_name(layout.sorted, layout.size, key);
  if (at == nullptr || at->index == layout.extra_index) return layout.size;
  return at->index;
}

/// The member whose previous name is `key`, or `size`.
std::size_t find_previous(const RecordLayout& layout, std::string_view key) noexcept {
  for (std::size_t i = 0; i < layout.size; ++i)
    if (!layout.previous_names[i].empty() && layout.previous_names[i] == key) return i;
  return layout.size;
}

/// Member `index` (at `addresses[index]`) read from the field `it` is on: under the
/// member's previous name or its own (which an error's path names).
void decode_field(const bson_iter_t& it, void* const* addresses, const RecordLayout& layout, std::size_t index,
                  bool previous) {
  try {
    layout.decoders[index](it, addresses[index]);
  } catch (PathError& e) {
    e.prepend(previous ? layout.previous_names[index] : layout.names[index]);
    throw;
  }
}

}  // namespace

void throw_twice(std::string_view name) {
  DecodeError error("field appears twice in the document");
  error.prepend(name);
  throw error;
}

// decode_members' path for any other order than odm's (odm/bson/record.hpp).
void decode_unordered(bson_iter_t& it, void* out, const RecordLayout& layout, std::size_t read, bool pending,
                      bool tag_met, std::uint64_t* seen, void** addresses) {
  const std::size_t size = layout.size;
  layout.addresses(out, addresses);
  // With previous names (odm::renamed_from), for each member: whether its old name was
  // met, whether its own name was, and whether the name that is the truth (the old one
  // while odm writes it, else the new one) waits to be read at the end (the caller's three
  // further sets of bits).
  const bool renames = layout.previous_names != nullptr;
  const std::size_t words = (size + 63) / 64;
  std::uint64_t* previous_seen = renames ? seen + words : nullptr;
  std::uint64_t* seen_by_name = renames ? seen + 2 * words : nullptr;
  std::uint64_t* truth_waits = renames ? seen + 3 * words : nullptr;
  // The members read in order were read under their own names.
  for (std::size_t i = 0; i < read; ++i) {
    set_bit(seen, i);
    if (renames) set_bit(seen_by_name, i);
  }
  // One of a renamed member's two names, met: each is read as the member's field (so a
  // value of the wrong type is refused whatever the order), the truth last and whole, over
  // a fresh member (nothing of the other shows through where it lacks a field). A truth
  // met first waits for the end, so that each name is read once: a document nesting
  // renamed members stays linear to read.
  const auto meet = [&](std::size_t index, bool previous) {
    const bool truth = previous == layout.writes_previous[index];
    const bool other_met = test_bit(previous ? seen_by_name : previous_seen, index);
    set_bit(seen, index);
    if (!truth) {
      if (other_met && !test_bit(truth_waits, index)) {
        // The truth was read in order before this: read it again at the end.
        layout.reset(index, out);
        set_bit(truth_waits, index);
      }
      decode_field(it, addresses, layout, index, previous);
    } else if (other_met) {
      layout.reset(index, out);
      decode_field(it, addresses, layout, index, previous);
    } else {
      set_bit(truth_waits, index);
    }
  };
  // The waiting truths, read in the document's order (so that the first problem in it is
  // the one reported): at its end, or when a field after them does not fit.
  const std::uint8_t* const document = it.raw;  // `it` ends past it
  const std::uint32_t document_length = it.len;
  const auto read_waiting_truths = [&] {
    bson_iter_t field;
    if (!bson_iter_init_from_data(&field, document, document_length)) return;
    while (bson_iter_next(&field)) {
      const std::string_view key(bson_iter_key(&field), bson_iter_key_len(&field));
      std::size_t index = find_field(layout, key);
      const bool previous = index == size;
      if (previous) index = find_previous(layout, key);
      if (index == size || !test_bit(truth_waits, index) || previous != layout.writes_previous[index]) continue;
      clear_bit(truth_waits, index);
      if (test_bit(previous ? seen_by_name : previous_seen, index)) layout.reset(index, out);  // the other was read
      decode_field(field, addresses, layout, index, previous);
    }
  };
  std::size_t expected = read;
  if (pending) {
    try {
      do {
        const char* key = bson_iter_key(&it);
        const std::size_t length = bson_iter_key_len(&it);
        std::size_t index;
        if (expected < size && expected != layout.extra_index && key_equals(layout.names[expected], key, length))
          index = expected;
        else
          index = find_field(layout, std::string_view(key, length));
        if (renames) {
          if (index == size) {
            const std::size_t renamed = find_previous(layout, std::string_view(key, length));
            if (renamed < size) {
              if (test_bit(previous_seen, renamed)) [[unlikely]]
                throw_twice(layout.previous_names[renamed]);
              set_bit(previous_seen, renamed);
              meet(renamed, true);
              continue;
            }
          } else {
            if (test_bit(seen_by_name, index)) [[unlikely]]
              throw_twice(layout.names[index]);
            set_bit(seen_by_name, index);
            if (!layout.previous_names[index].empty()) {
              meet(index, false);
              expected = index + 1;
              continue;
            }
          }
        }
        if (index == size) {
          // A versioned model's version field is read by from_bson, not by a member: not an
          // unknown field (a strict model takes it, an Extra does not keep it).
          if (layout.skips_version_field && key_equals(schema_version_field, key, length)) continue;
          // A kind's tag is checked, never kept by an Extra (the encoder writes it itself).
          if (layout.tag != nullptr && key_equals(layout.tag->field, key, length)) {
            if (tag_met) [[unlikely]]
              throw_twice(layout.tag->field);
            tag_met = true;
            check_own_tag(it, *layout.tag);
            continue;
          }
          if (!is_valid_utf8(key, length)) [[unlikely]]
            throw DecodeError("a field name is not valid UTF-8");
          if (layout.strict)
            at_path(std::string_view(key, length), [] { throw DecodeError("unknown field (the model is strict)"); });
          // Not read, but still checked: a corrupt document is refused, never half-trusted.
          at_path(std::string_view(key, length), [&] { check_unread(it); });
          if (layout.keep != nullptr) layout.keep(it, out);
          continue;
        }
        if (test_bit(seen, index)) [[unlikely]]
          throw_twice(layout.names[index]);
        set_bit(seen, index);
        at_path(layout.names[index], [&] { layout.decoders[index](it, addresses[index]); });
        expected = index + 1;
      } while (next(it));
    } catch (const PathError&) {
      if (renames) read_waiting_truths();  // one of them, earlier in the document, is the first problem
      throw;
    }
    if (renames) read_waiting_truths();
  }
  for (std::size_t i = 0; i < size; ++i)
    if (!test_bit(seen, i) && !layout.optional_members[i])
      at_path(layout.names[i], [] { throw DecodeError("missing required field"); });
}

}  // namespace odm::detail
