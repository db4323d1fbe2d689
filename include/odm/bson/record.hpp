#pragma once
// The codec of plain structs: every member becomes a field, in declaration order,
// under its stored name, as the model's member table says (odm/bson/members.hpp).
//
// Decoding walks the document once. For each field it first tries the member that
// follows the previous one in declaration order, which is where a document written by
// odm keeps it, so the common case is one comparison per field; any other order falls
// back to a binary search over the names sorted by length, never a scan of all names.

#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/members.hpp>
#include <odm/bson/writer.hpp>
#include <odm/model/model.hpp>
#include <odm/model/tag.hpp>

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm {

/// A member type that keeps the fields its struct does not declare (odm::Extra, in
/// odm/evolution/extra.hpp) says so in its codec:
///   static constexpr bool keeps_unknown_fields = true;
///   static void keep(const bson_iter_t& it, M& out);        // one undeclared field, in document order
///   static void encode_fields(bson_t* document, const M& value);  // writes them all back
/// Such a member is not a field itself: the decoder hands it every field no other member
/// names, and the encoder writes its fields where the member is declared.
template <class M>
concept unknown_field_keeper = requires {
  requires codec<M>::keeps_unknown_fields;
};

namespace detail {

/// Fires, naming the offending type in the instantiation trace, when a struct has a
/// member odm cannot store.
template <class Struct, class Member>
constexpr void check_member_is_mappable() {
  static_assert(mappable<Member>,
                "odm: a member of this struct has a type odm cannot store in BSON (see `Member` in this "
                "instantiation); use a supported type or specialize odm::codec<Member>");
}

struct named_index {
  std::string_view name;
  std::size_t index;
};

/// The order of a record's names for its lookup: by length, then by bytes.
constexpr bool name_before(std::string_view a, std::string_view b) noexcept {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

/// The entry of `key` in `sorted` (ordered by name_before), or nullptr: a binary search
/// over the lengths, then the few names of the key's length, first byte first.
inline const named_index* find_name(const named_index* sorted, std::size_t size, std::string_view key) noexcept {
  const named_index* end = sorted + size;
  const named_index* at = std::lower_bound(
      sorted, end, key.size(), [](const named_index& e, std::size_t length) { return e.name.size() < length; });
  for (; at != end && at->name.size() == key.size(); ++at)
    if (key.empty() || (at->name[0] == key[0] && std::memcmp(at->name.data(), key.data(), key.size()) == 0))
      return at;
  return nullptr;
}

template <class T, bool Root>
consteval auto sorted_names() {
  std::array<named_index, member_count<T>> entries{};
  for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = named_index{stored_names<T, Root>[i], i};
  std::sort(entries.begin(), entries.end(),
            [](const named_index& a, const named_index& b) { return name_before(a.name, b.name); });
  return entries;
}

/// Members decoded inline where the decoder reaches them: numbers, whose decoding is a few
/// instructions. Every other member's codec is compiled once per member *type*, in
/// decode_value, which the in-order path and the lookup table of every record call: a
/// std::string member is decoded by one function whichever struct holds it.
template <class M>
inline constexpr bool decodes_inline = std::is_arithmetic_v<M>;

/// Decodes the field `it` is on into `*member`, an M (no path added). `member` is untyped so
/// that the table of a record's decoders (record_traits::decoders) is the same type for
/// every record, and the field lookup that reads it (decode_unordered) is compiled once, in
/// odm/bson/codec.cpp.
template <class M>
[[gnu::noinline]] void decode_value(const bson_iter_t& it, void* member) {
  codec<M>::decode(it, *static_cast<M*>(member));
}

template <class T, bool Root>
struct record_traits {
  static constexpr std::size_t size = members<T>::size;
  static constexpr const auto& names = stored_names<T, Root>;

  static constexpr auto sorted = sorted_names<T, Root>();

  /// The member stored under `key`, or `size` when T has none.
  static std::size_t find(std::string_view key) noexcept {
    const named_index* at = find_name(sorted.data(), size, key);
    return at != nullptr ? at->index : size;
  }

  template <std::size_t I>
  using member_type = typename member<T, I>::type;

  /// Each member's decode_value (nullptr for the odm::Extra member, which is not a field,
  /// and for a member odm cannot store, which check_member_is_mappable reports).
  using decode_function = void (*)(const bson_iter_t&, void*);
  template <std::size_t I>
  static constexpr decode_function decoder() {
    using M = member_type<I>;
    if constexpr (mappable<M> && !unknown_field_keeper<M>)
      return &decode_value<M>;
    else
      return nullptr;
  }
  static constexpr auto decoders = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<decode_function, size>{decoder<I>()...};
  }(std::make_index_sequence<size>{});

  /// Which members a document may lack (they keep their initial value).
  static constexpr auto optional_members = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, size>{(member<T, I>::when_absent != Absent::refused)...};
  }(std::make_index_sequence<size>{});

  /// Another name each member's value may be stored under (odm::renamed_from), "" for
  /// none, and whether it is written there too.
  static constexpr auto previous_names = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::string_view, size>{member<T, I>::previous_name...};
  }(std::make_index_sequence<size>{});
  static constexpr auto writes_previous = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, size>{member<T, I>::writes_previous_name...};
  }(std::make_index_sequence<size>{});
  static constexpr bool has_previous_names =
      std::any_of(previous_names.begin(), previous_names.end(), [](std::string_view n) { return !n.empty(); });
  static_assert(std::none_of(previous_names.begin(), previous_names.end(),
                             [](std::string_view n) {
                               return !n.empty() && std::find(names.begin(), names.end(), n) != names.end();
                             }),
                "odm::renamed_from: a previous name is the stored name of a member; each name holds one member");

  /// A kind's tag field (odm::tag) is the mapper's: no member is stored under its name.
  static constexpr bool tag_field_is_free = [] {
    if constexpr (tagged<T>) {
      constexpr std::string_view field = tag_of<T>.field;
      return std::find(names.begin(), names.end(), field) == names.end() &&
             std::find(previous_names.begin(), previous_names.end(), field) == previous_names.end();
    } else {
      return true;
    }
  }();
  static_assert(tag_field_is_free,
                "odm::tag: a member of this struct is stored under the name of its kind's tag field (`_type` unless "
                "the tag says `stored_in`); rename the member or store the tag in another field");

  /// The member whose previous name is `key`, or `size`.
  static std::size_t find_previous(std::string_view key) noexcept {
    for (std::size_t i = 0; i < size; ++i)
      if (!previous_names[i].empty() && previous_names[i] == key) return i;
    return size;
  }

  /// The member that keeps undeclared fields (odm::Extra), or `size` when T has none.
  static constexpr std::size_t extra_index = []<std::size_t... I>(std::index_sequence<I...>) {
    std::size_t found = size;
    std::size_t count = 0;
    ((unknown_field_keeper<member_type<I>> ? (found = I, ++count) : 0), ...);
    return count > 1 ? size + 1 : found;
  }(std::make_index_sequence<size>{});
  static_assert(extra_index <= size, "odm: a struct has two members that keep unknown fields (odm::Extra); keep one");
  static_assert(extra_index == size || !is_strict<T>,
                "odm: a strict model refuses unknown fields, so it cannot keep them in an odm::Extra member; drop "
                "`strict = true` or the odm::Extra member");

  /// The member stored under `key`, or `size` when T has none (the odm::Extra member,
  /// which is not a field, is never found).
  static std::size_t find_field(std::string_view key) noexcept {
    const std::size_t index = find(key);
    if constexpr (extra_index < size) return index == extra_index ? size : index;
    return index;
  }
};

inline bool key_equals(std::string_view expected, const char* key, std::size_t length) noexcept {
  return expected.size() == length && std::memcmp(expected.data(), key, length) == 0;
}

/// Whether T keeps the fields it does not declare (an odm::Extra member).
template <class T>
inline constexpr bool keeps_unknown_fields = record_traits<T, true>::extra_index < record_traits<T, true>::size;

}  // namespace detail

namespace detail {

/// encode_members' body (document_code and embedded_code compile it).
template <bool Root, reflectable T>
inline void encode_record(bson_t* document, const T& value) {
  using traits = detail::record_traits<T, Root>;
  // A kind's tag comes first, so that a reader picks the kind before it reads anything else.
  if constexpr (tagged<T>) {
    constexpr Tag tag = tag_of<T>;
    detail::check_append(bson_append_utf8(document, tag.field.data(), static_cast<int>(tag.field.size()),
                                          tag.value.data(), static_cast<int>(tag.value.size())));
  }
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          using M = typename traits::template member_type<I>;
          detail::check_member_is_mappable<T, M>();
          if constexpr (unknown_field_keeper<M>) {
            detail::at_path(traits::names[I], [&] { codec<M>::encode_fields(document, boost::pfr::get<I>(value)); });
          } else if constexpr (mappable<M>) {
            detail::at_path(traits::names[I], [&] {
              codec<M>::encode(document, traits::names[I], boost::pfr::get<I>(value));
              // A rename in its expand phase: the older version still reads the old name.
              if constexpr (traits::writes_previous[I])
                codec<M>::encode(document, traits::previous_names[I], boost::pfr::get<I>(value));
            });
          }
        }(),
        ...);
  }(std::make_index_sequence<traits::size>{});
}

/// Refuses the tag field `it` is on unless it names `tag`'s kind (the error's path is the
/// field): a document of another kind is not read as this one.
void check_own_tag(const bson_iter_t& it, const Tag& tag);
/// "NAME: field appears twice in the document" (a DecodeError).
[[noreturn]] void throw_twice(std::string_view name);

/// Whether `it` is on T's tag field; if so it is checked (check_own_tag), `tag_met` is set
/// (a second one is an error) and `it` moves past it (`ended` when nothing follows).
enum class TagStep { not_on_tag, moved, ended };
template <class T>
inline TagStep pass_own_tag(bson_iter_t& it, bool& tag_met) {
  if constexpr (tagged<T>) {
    constexpr std::string_view field = tag_of<T>.field;
    if (key_equals(field, bson_iter_key(&it), bson_iter_key_len(&it))) {
      if (tag_met) [[unlikely]]
        throw_twice(field);
      tag_met = true;
      check_own_tag(it, tag_of<T>);
      return next(it) ? TagStep::moved : TagStep::ended;
    }
  }
  return TagStep::not_on_tag;
}

/// `key` is member I's stored name. The name's length is a compile-time constant, so the
/// memcmp is expanded inline (a runtime length makes it a libc call).
template <class Traits, std::size_t I>
inline bool key_is(const char* key, std::size_t length) noexcept {
  constexpr std::string_view name = Traits::names[I];
  return length == name.size() && std::memcmp(key, name.data(), name.size()) == 0;
}

/// Decodes member I, adding its name to the path of an error.
template <class Traits, std::size_t I, class T>
inline void decode_member(const bson_iter_t& it, T& out) {
  using M = typename Traits::template member_type<I>;
  check_member_is_mappable<T, M>();
  if constexpr (mappable<M>) {
    at_path(Traits::names[I], [&] {
      if constexpr (decodes_inline<M>)
        codec<M>::decode(it, boost::pfr::get<I>(out));
      else
        decode_value<M>(it, &boost::pfr::get<I>(out));
    });
  }
}

/// Member I of `out` back to the value it has in a fresh T (what from_bson starts from:
/// its initializer, or value-initialized), before it is read again from another name.
template <std::size_t I, class T>
void reset_member_to_fresh(T& out) {
  using M = std::remove_cvref_t<decltype(boost::pfr::get<I>(out))>;
  if constexpr (std::is_move_assignable_v<M>) {
    if constexpr (requires { T{}; }) {
      T fresh{};
      boost::pfr::get<I>(out) = std::move(boost::pfr::get<I>(fresh));
    } else if constexpr (std::is_default_constructible_v<M>) {
      boost::pfr::get<I>(out) = M{};
    }
  }
}

/// Member `index` of `out` back to its value in a fresh T (reset_member_to_fresh).
template <reflectable T>
void reset_member(std::size_t index, T& out) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (void)((index == I ? (reset_member_to_fresh<I>(out), true) : false) || ...);
  }(std::make_index_sequence<boost::pfr::tuple_size_v<T>>{});
}

/// What the field lookup of decode_members reads of a record, as data: a record's
/// documents in any other order than odm writes them are read by one function,
/// decode_unordered (odm/bson/codec.cpp), not by a copy of it per record.
struct RecordLayout {
  std::size_t size;
  /// The odm::Extra member, or `size`.
  std::size_t extra_index;
  const std::string_view* names;
  /// The names in name_before's order, with their members (for a binary search).
  const named_index* sorted;
  const bool* optional_members;
  /// nullptr when no member has a previous name; else one per member, "" for none.
  const std::string_view* previous_names;
  const bool* writes_previous;
  /// Member `index`'s decode_value, given the member's address (from `addresses`).
  void (*const* decoders)(const bson_iter_t&, void*);
  /// Writes the addresses of a record's members, in declaration order, to `into` (`size`
  /// of them): taken once per document, so that each field reaches its member directly.
  void (*addresses)(void* record, void** into);
  bool strict;
  /// A versioned model's document: its version field is not an unknown field.
  bool skips_version_field;
  /// Hands an undeclared field to the odm::Extra member (nullptr without one).
  void (*keep)(const bson_iter_t&, void*);
  /// Member `index` back to a value-initialized one (nullptr without previous names).
  void (*reset)(std::size_t, void*);
  /// A kind's tag (odm::tag): its field is checked, not an unknown field (nullptr without).
  const Tag* tag;
};

/// Reads the fields of `it` not read in order into `out`, and refuses a document without
/// a required member. On entry, members [0, read) are read, and `it` is on a field not
/// processed yet when `pending`, else at the document's end; `tag_met` when the kind's tag
/// was among the fields read in order. `seen` holds, all clear, a
/// set of bits per member, (size + 63) / 64 words, and with previous names three more;
/// `addresses` has room for `size` pointers.
void decode_unordered(bson_iter_t& it, void* out, const RecordLayout& layout, std::size_t read, bool pending,
                      bool tag_met, std::uint64_t* seen, void** addresses);

template <class T, bool Root>
struct record_layout {
  using traits = record_traits<T, Root>;
  static void keep(const bson_iter_t& it, void* out) {
    using Keeper = typename traits::template member_type<traits::extra_index>;
    codec<Keeper>::keep(it, boost::pfr::get<traits::extra_index>(*static_cast<T*>(out)));
  }
  static void reset(std::size_t index, void* out) { reset_member<T>(index, *static_cast<T*>(out)); }
  static void addresses(void* out, void** into) {
    T& record = *static_cast<T*>(out);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((into[I] = std::addressof(boost::pfr::get<I>(record))), ...);
    }(std::make_index_sequence<traits::size>{});
  }
  static constexpr auto keep_function() {
    void (*function)(const bson_iter_t&, void*) = nullptr;
    if constexpr (traits::extra_index < traits::size) function = &keep;
    return function;
  }
  static constexpr const Tag* tag_pointer() {
    if constexpr (tagged<T>)
      return &tag_of<T>;
    else
      return nullptr;
  }
  static constexpr auto reset_function() {
    void (*function)(std::size_t, void*) = nullptr;
    if constexpr (traits::has_previous_names) function = &reset;
    return function;
  }
  static constexpr RecordLayout value{
      traits::size,
      traits::extra_index,
      traits::names.data(),
      traits::sorted.data(),
      traits::optional_members.data(),
      traits::has_previous_names ? traits::previous_names.data() : nullptr,
      traits::writes_previous.data(),
      traits::decoders.data(),
      &addresses,
      is_strict<T>,
      Root && has_schema_versions<T>,
      keep_function(),
      reset_function(),
      tag_pointer(),
  };
};

/// decode_members' body (document_code and embedded_code compile it). `tag_met`: the kind's
/// tag was read before `it` (a tagged variant reads it first), so another one is refused.
template <bool Root, reflectable T>
inline void decode_record(bson_iter_t& it, T& out, bool tag_met = false) {
  using traits = detail::record_traits<T, Root>;
  constexpr std::size_t size = traits::size;
  // Members [0, expected) are read (or, the odm::Extra member, passed).
  std::size_t expected = 0;
  // Fast path: the members in declaration order, as odm writes them. Unrolled at compile
  // time, so every key comparison has a constant length and every codec call is direct.
  enum { in_order, ended, mismatch } state = in_order;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (void)(([&] {
       if constexpr (I == traits::extra_index) {
         expected = I + 1;  // not a field: it collects the unknown ones (decode_unordered)
         return true;
       } else {
         if (!detail::next(it)) {
           state = ended;
           return false;
         }
         if (!detail::key_is<traits, I>(bson_iter_key(&it), bson_iter_key_len(&it))) [[unlikely]] {
           // The kind's tag (first where odm writes it, after `_id` where a server moved that).
           const TagStep step = pass_own_tag<T>(it, tag_met);
           if (step == TagStep::ended) {
             state = ended;
             return false;
           }
           if (step == TagStep::not_on_tag || !detail::key_is<traits, I>(bson_iter_key(&it), bson_iter_key_len(&it))) {
             state = mismatch;
             return false;
           }
         }
         detail::decode_member<traits, I>(it, out);
         expected = I + 1;
         return true;
       }
     }()) &&
     ...);
  }(std::make_index_sequence<size>{});
  // Every member read, and no field after the last one: done.
  if (state == in_order && !detail::next(it)) return;
  if (state == ended && expected == size) return;
  // Any other order, unknown fields, fields after the last member, missing fields.
  std::array<std::uint64_t, (traits::has_previous_names ? 4 : 1) * ((size + 63) / 64)> seen{};
  std::array<void*, size> addresses;
  detail::decode_unordered(it, &out, detail::record_layout<T, Root>::value, expected, state != ended, tag_met, seen.data(),
                           addresses.data());
}

}  // namespace detail

/// The compiled code of T's mapping as a whole document (document_code: `id` stored as
/// `_id`) and as a document embedded in another (embedded_code). Every file that encodes
/// or decodes a T compiles them, unless the program compiles them once: a header declares,
/// after T, the level(s) T is stored at,
///   extern template struct odm::document_code<T>;   // a model, a projection
///   extern template struct odm::embedded_code<T>;   // a struct stored inside another
/// and one source file of the program defines them:
///   template struct odm::document_code<T>;
/// (the README's "Compiling a model once"). One class per level, because a struct's names
/// are checked for the level it is used at: a model whose old name is "id"
/// (odm::renamed_from) is fine as a document, where `id` is `_id`, and refused embedded.
/// The functions are defined outside the class so that the declaration keeps other files
/// from compiling them.
template <reflectable T>
struct document_code {
  static void encode(bson_t* document, const T& value);
  static void decode(bson_iter_t& it, T& out);
};
template <reflectable T>
struct embedded_code {
  static void encode(bson_t* document, const T& value);
  static void decode(bson_iter_t& it, T& out);
  /// decode, `it` standing on the kind's tag a tagged variant read (the fields after it are
  /// read; another tag field is refused).
  static void decode_after_tag(bson_iter_t& it, T& out);
};

template <reflectable T>
void document_code<T>::encode(bson_t* document, const T& value) {
  detail::encode_record<true>(document, value);
}
template <reflectable T>
void document_code<T>::decode(bson_iter_t& it, T& out) {
  detail::decode_record<true>(it, out);
}
template <reflectable T>
void embedded_code<T>::encode(bson_t* document, const T& value) {
  detail::encode_record<false>(document, value);
}
template <reflectable T>
void embedded_code<T>::decode(bson_iter_t& it, T& out) {
  detail::decode_record<false>(it, out);
}
template <reflectable T>
void embedded_code<T>::decode_after_tag(bson_iter_t& it, T& out) {
  detail::decode_record<false>(it, out, true);
}

/// Appends T's members to `document` (which is open for appending). `Root` says whether
/// `document` is a whole document (where `id` is stored as `_id`) or an embedded one.
template <bool Root, reflectable T>
inline void encode_members(bson_t* document, const T& value) {
  if constexpr (Root)
    document_code<T>::encode(document, value);
  else
    embedded_code<T>::encode(document, value);
}

/// Reads the fields `it` iterates (a document's top level or a sub-document) into `out`.
template <bool Root, reflectable T>
inline void decode_members(bson_iter_t& it, T& out) {
  if constexpr (Root)
    document_code<T>::decode(it, out);
  else
    embedded_code<T>::decode(it, out);
}

// Plain structs: a BSON sub-document. (A type that happens to be an aggregate but is
// stored otherwise, such as odm::Binary, has its own specialization, which wins.)
template <reflectable T>
struct codec<T> {
  using kind = kinds::document<T>;
  static void encode(bson_t* parent, std::string_view key, const T& value) {
    const detail::EncodeLevel level;
    detail::ChildWriter document(parent, key);
    encode_members<false>(document.get(), value);
    document.close();
  }
  static void decode(const bson_iter_t& it, T& out) {
    detail::expect_type(it, BSON_TYPE_DOCUMENT, "object");
    detail::NestedIter child(it);
    decode_members<false>(child.get(), out);
  }
};

namespace detail {

// Why a document does not fit a struct alternative (codec.cpp).
/// "KEY: unknown field (the model is strict)"
std::string unknown_field_reason(const char* key, std::size_t length);
/// "NAME: expected TYPES, got TYPE"
std::string field_type_reason(std::string_view name, type_mask expected, bson_type_t got);
/// "NAME: missing required field"
std::string missing_field_reason(std::string_view name);
/// Whether the tag field `it` is on is a string that names `tag`'s kind.
bool tag_names_kind(const bson_iter_t& it, const Tag& tag);
/// "_type: kind \"bank\", not \"card\"" (or what else the field holds)
std::string other_kind_reason(const bson_iter_t& it, const Tag& tag);

// A struct in a std::variant is picked by the document's own fields (one level deep):
// every required member present, every field that names a member of a BSON type that
// member can be stored as, and no unknown field if the model is strict.
template <reflectable T>
  requires is_record<T>
struct variant_shape<T> {
  static constexpr type_mask types = type_bit(BSON_TYPE_DOCUMENT);
  using reads = reads_record<T>;
  static bool fits(const bson_iter_t& it, std::string& why) {
    using traits = record_traits<T, false>;
    static constexpr auto member_types = []<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<type_mask, traits::size>{variant_shape<typename traits::template member_type<I>>::types...};
    }(std::make_index_sequence<traits::size>{});
    if (bson_iter_type(&it) != BSON_TYPE_DOCUMENT) {
      why = "expected object, got " + std::string(bson_type_name(bson_iter_type(&it)));
      return false;
    }
    std::bitset<traits::size> seen;
    bson_iter_t child = recurse(it);
    while (next(child)) {
      const char* key = bson_iter_key(&child);
      const std::size_t length = bson_iter_key_len(&child);
      std::size_t index = traits::find_field(std::string_view(key, length));
      // A renamed member's old name is its field too (odm::renamed_from).
      bool previous = false;
      if constexpr (traits::has_previous_names) {
        if (index == traits::size) {
          index = traits::find_previous(std::string_view(key, length));
          previous = index < traits::size;
        }
      }
      if constexpr (tagged<T>) {
        // A document of another kind is not one of this one.
        if (index == traits::size && key_equals(tag_of<T>.field, key, length)) {
          if (!tag_names_kind(child, tag_of<T>)) {
            why = other_kind_reason(child, tag_of<T>);
            return false;
          }
          continue;
        }
      }
      if (index == traits::size) {
        if constexpr (is_strict<T>) {
          why = unknown_field_reason(key, length);
          return false;
        }
        continue;
      }
      if ((member_types[index] & type_bit(bson_iter_type(&child))) == 0) {
        why = field_type_reason(previous ? traits::previous_names[index] : traits::names[index], member_types[index],
                                bson_iter_type(&child));
        return false;
      }
      seen.set(index);
    }
    for (std::size_t i = 0; i < traits::size; ++i) {
      if (!seen[i] && !traits::optional_members[i]) {
        why = missing_field_reason(traits::names[i]);
        return false;
      }
    }
    return true;
  }
};

}  // namespace detail

}  // namespace odm
