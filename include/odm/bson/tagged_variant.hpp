#pragma once
// Tagged variants: a std::variant whose alternatives are structs that all declare a kind tag
// (odm::tag, odm/model/tag.hpp) is stored as the active alternative, whose tag field comes
// first, and is read by that field alone: the alternative the stored tag names is decoded,
// and no other is looked at.
//
//   using Payment = std::variant<Card, BankTransfer, odm::UnknownKind>;
//
// A stored tag that no alternative names is a DecodeError whose path ends at the tag field
// and which lists the tags the variant knows, unless the last alternative is odm::UnknownKind:
// it then keeps the whole stored document and writes it back unchanged, so that a service
// that does not know a kind a newer one added never erases it.

#include <odm/bson/codec.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/record.hpp>
#include <odm/bson/writer.hpp>
#include <odm/model/tag.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

namespace odm {

/// The last alternative of a tagged variant that keeps a document of a kind the program does
/// not know: its stored tag and the document as stored, written back byte for byte. It is
/// only that: a member or container element of this type does not compile, since only the
/// variant knows which field holds the tag.
struct UnknownKind {
  /// The stored tag's value.
  std::string tag;
  /// The whole document, tag field included.
  Document document;
  friend bool operator==(const UnknownKind&, const UnknownKind&) = default;
};

template <>
struct codec<UnknownKind> {
  using kind = kinds::any_document;
  // Templates, so that only a use outside a tagged variant (which writes and reads the kept
  // document itself: detail::write_unknown_kind, decode_unknown_kind) meets the message.
  template <class Self>
  static void encode(bson_t*, std::string_view, const Self&) {
    refuse_alone<Self>();
  }
  template <class Self>
  static void decode(const bson_iter_t&, Self&) {
    refuse_alone<Self>();
  }

 private:
  template <class Self>
  static constexpr void refuse_alone() {
    static_assert(!std::is_same_v<Self, UnknownKind>,
                  "odm::UnknownKind is the last alternative of a tagged std::variant, which knows the field its "
                  "kind's tag is in; alone it would lose its tag");
  }
};

namespace detail {

template <>
struct variant_shape<UnknownKind> {
  static constexpr type_mask types = type_bit(BSON_TYPE_DOCUMENT);
  using reads = reads_by_decoding<types>;
  static bool fits(const bson_iter_t& it, std::string& why) {
    if (bson_iter_type(&it) == BSON_TYPE_DOCUMENT) return true;
    why = "expected object, got " + std::string(bson_type_name(bson_iter_type(&it)));
    return false;
  }
};

/// Whether T is a struct with a kind tag.
template <class T>
inline constexpr bool is_tagged_record = false;
template <reflectable T>
  requires is_record<T> && tagged<T>
inline constexpr bool is_tagged_record<T> = true;

/// Whether a variant of T... is tagged: every alternative a tagged struct, the last one
/// possibly odm::UnknownKind.
template <class... T>
struct tagged_alternatives {
  static constexpr std::size_t count = sizeof...(T);
  static constexpr std::array<bool, count> tagged_flags{is_tagged_record<T>...};
  static constexpr std::array<bool, count> unknown_flags{std::is_same_v<T, UnknownKind>...};
  static constexpr bool keeps_unknown = unknown_flags[count - 1];
  static constexpr std::size_t kinds = count - std::size_t{keeps_unknown};
  static constexpr bool value = [] {
    for (std::size_t i = 0; i < kinds; ++i)
      if (!tagged_flags[i]) return false;
    return kinds > 0;
  }();
  static constexpr bool misplaced_unknown = [] {
    for (std::size_t i = 0; i < count; ++i)
      if (unknown_flags[i] && (i + 1 != count || !value)) return true;
    return false;
  }();
};

/// One value a tagged variant reads, and the alternative it names.
struct TagEntry {
  std::string_view value;
  std::size_t alternative;
};

/// The tags of a tagged variant's alternatives: their field, and every value each reads.
template <class... T>
struct tag_table {
  template <class A>
  static constexpr Tag tag_or_none() {
    if constexpr (is_tagged_record<A>)
      return tag_of<A>;
    else
      return Tag{};
  }
  static constexpr std::size_t kinds = tagged_alternatives<T...>::kinds;
  static constexpr std::array<Tag, sizeof...(T)> tags{tag_or_none<T>()...};
  static constexpr std::string_view field = tags[0].field;
  static constexpr std::size_t value_count = [] {
    std::size_t n = 0;
    for (std::size_t i = 0; i < kinds; ++i) n += 1 + tags[i].previous_count;
    return n;
  }();
  static constexpr std::array<TagEntry, value_count> entries = [] {
    std::array<TagEntry, value_count> out{};
    std::size_t at = 0;
    for (std::size_t i = 0; i < kinds; ++i) {
      out[at++] = {tags[i].value, i};
      for (std::size_t p = 0; p < tags[i].previous_count; ++p) out[at++] = {tags[i].previous[p], i};
    }
    return out;
  }();
  static_assert(
      [] {
        for (std::size_t i = 0; i < kinds; ++i)
          if (tags[i].field != field) return false;
        return true;
      }(),
      "odm: the alternatives of this tagged std::variant store their tags in different fields (odm::tag's "
      "stored_in); a reader looks in one field, so give them all the same");
  static_assert(
      [] {
        for (std::size_t i = 0; i < value_count; ++i)
          for (std::size_t j = i + 1; j < value_count; ++j)
            if (entries[i].value == entries[j].value) return false;
        return true;
      }(),
      "odm: two alternatives of this tagged std::variant read the same tag value (their odm::tag or a "
      "renamed_from); each stored value must name one kind");

  /// The alternative the stored value names, or sizeof...(T) for none.
  static std::size_t find(std::string_view stored) noexcept {
    for (const TagEntry& entry : entries)
      if (entry.value == stored) return entry.alternative;
    return sizeof...(T);
  }
  /// "\"card\", \"bank\"": what the variant reads, for a message.
  static std::string known() {
    std::string out;
    for (const TagEntry& entry : entries) {
      if (!out.empty()) out += ", ";
      out += quoted(entry.value);
    }
    return out;
  }
};

/// The field `field` of the document `it` is on (the first field is looked at first, where
/// odm writes it); false when the document has no such field.
bool find_tag_field(const bson_iter_t& it, std::string_view field, bson_iter_t& found);

/// "_type: no kind's tag in the document (this variant reads ...)" and the like.
[[noreturn]] void throw_tag_missing(std::string_view field, const std::string& known);
/// A tag at `tag` in the document `document` that names no alternative: "field appears
/// twice" when the document holds it again (whatever the first one is), else "expected a
/// kind's tag (a string)" or "unknown kind ...".
[[noreturn]] void throw_tag_refused(const bson_iter_t& document, const bson_iter_t& tag, std::string_view field,
                                    const std::string& known);

/// The alternative a stored tag names, or sizeof...(T) for none (a tag that is no string
/// names none).
template <class... T>
std::size_t alternative_named(const bson_iter_t& tag) {
  using table = tag_table<T...>;
  if (bson_iter_type(&tag) != BSON_TYPE_UTF8) [[unlikely]]
    return sizeof...(T);
  std::uint32_t length = 0;
  const char* text = bson_iter_utf8(&tag, &length);
  return table::find(std::string_view(text, length));
}

/// The string stored under `field` in an odm::UnknownKind's document, which is about to be
/// written as a sub-document: an EncodeError at `field` unless it is there once, and at its
/// own path when the document is not one odm writes (invalid UTF-8, nested too deep).
std::string_view unknown_kind_stored_tag(const Document& document, std::string_view field);
[[noreturn]] void throw_unknown_kind_is_known(std::string_view stored, std::string_view field);
[[noreturn]] void throw_unknown_kind_tag_differs(std::string_view tag, std::string_view stored, std::string_view field);

/// Writes an odm::UnknownKind, refusing one that would not read back as itself: its document
/// must hold the variant's tag field once, a string that names none of the variant's kinds
/// and is the UnknownKind's `tag`.
template <class... T>
void write_unknown_kind(bson_t* parent, std::string_view key, const UnknownKind& unknown) {
  using table = tag_table<T...>;
  check_encode_level();
  const std::string_view stored = unknown_kind_stored_tag(unknown.document, table::field);
  if (table::find(stored) != sizeof...(T)) [[unlikely]]
    throw_unknown_kind_is_known(stored, table::field);
  if (stored != unknown.tag) [[unlikely]]
    throw_unknown_kind_tag_differs(unknown.tag, stored, table::field);
  check_append(bson_append_document(parent, key.data(), static_cast<int>(key.size()), unknown.document.get()));
}

/// Checks a document of a kind no alternative names before it is kept whole: every part of
/// it (UTF-8, structure, nesting below the document at level `depth + 1` that holds it), and
/// its tag field `field` there once. Throws DecodeError.
void check_unknown_kind_read(const bson_iter_t& it, std::string_view field, std::size_t depth);

/// A document of a kind no alternative names: kept by odm::UnknownKind, or an error.
template <class... T>
void decode_unknown_kind(const bson_iter_t& it, const bson_iter_t& tag, std::variant<T...>& out) {
  if constexpr (tagged_alternatives<T...>::keeps_unknown) {
    if (bson_iter_type(&tag) == BSON_TYPE_UTF8) [[likely]] {
      std::uint32_t length = 0;
      const char* text = bson_iter_utf8(&tag, &length);
      check_unknown_kind_read(it, tag_table<T...>::field, decode_depth);
      UnknownKind& unknown = out.template emplace<UnknownKind>();
      unknown.tag.assign(text, length);
      unknown.document = copy_held_document(it);
      return;
    }
  }
  throw_tag_refused(it, tag, tag_table<T...>::field, tag_table<T...>::known());
}

/// Decodes a tagged variant of T... from the document `it` is on. Where odm writes the tag,
/// first, it is read once to pick the alternative, whose members are read from the field
/// after it (their decoder is told the tag was met, and refuses a second one); elsewhere,
/// the fields before it are stepped over to find it.
template <class... T>
void decode_tagged(const bson_iter_t& it, std::variant<T...>& out) {
  using table = tag_table<T...>;
  using variant = std::variant<T...>;
  expect_type(it, BSON_TYPE_DOCUMENT, "object");
  bson_iter_t tag;
  bool tag_first = false;
  {
    NestedIter child(it);
    bson_iter_t& fields = child.get();
    if (next(fields) && key_equals(table::field, bson_iter_key(&fields), bson_iter_key_len(&fields))) [[likely]] {
      const std::size_t alternative = alternative_named<T...>(fields);
      if (alternative != sizeof...(T)) [[likely]] {
        // The alternative reads the fields after its tag, which it is told it met (a
        // second tag field is then refused), so the tag is read once.
        using read_members = void (*)(bson_iter_t&, variant&);
        static constexpr std::array<read_members, sizeof...(T)> members{[](bson_iter_t& at, variant& into) {
          if constexpr (is_tagged_record<T>) embedded_code<T>::decode_after_tag(at, into.template emplace<T>());
        }...};
        members[alternative](fields, out);
        return;
      }
      tag = fields;
      tag_first = true;
    }
  }
  if (!tag_first) {
    if (!find_tag_field(it, table::field, tag)) [[unlikely]]
      throw_tag_missing(table::field, table::known());
    const std::size_t alternative = alternative_named<T...>(tag);
    if (alternative != sizeof...(T)) [[likely]] {
      using decode_function = void (*)(const bson_iter_t&, variant&);
      static constexpr std::array<decode_function, sizeof...(T)> decoders{
          [](const bson_iter_t& at, variant& into) {
            if constexpr (is_tagged_record<T>) codec<T>::decode(at, into.template emplace<T>());
          }...};
      decoders[alternative](it, out);
      return;
    }
  }
  decode_unknown_kind(it, tag, out);
}

}  // namespace detail

}  // namespace odm
