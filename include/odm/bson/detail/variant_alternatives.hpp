#pragma once
// Whether a std::variant's alternatives can be told apart by what odm writes for each, proven
// when the program compiles. Decoding picks the first alternative whose shape fits the stored
// value (variant_shape, codec.hpp), so a value of a later alternative that an earlier one's
// shape accepts would read back as the earlier one and lose what the earlier one lacks. For
// each pair, earlier and later, this compares what the earlier one's `fits` accepts (its
// `reads`) with everything a value of the later one may be written as (its codec's `kind`),
// one level deep as `fits` looks, and refuses the variant when some written value could fit.
// The comparison only ever errs towards refusing: a type decided by decoding is taken to
// accept any value of its BSON types (a codec of your own, any value at all), and an
// array's length is not known from its kind.
//
// The same overlap loses a std::optional's value when what it holds may itself be written
// as null (an optional, a ParentRef, a variant with such an alternative): it would read
// back empty. codec<std::optional<T>> refuses that with optional_value_distinct below.

#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/record.hpp>
#include <odm/reflect/enums.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

namespace odm::detail {

/// The BSON types a value stored as Kind is written as (any_type for a kind unknown here).
template <class Kind>
inline constexpr type_mask written_types = any_type;
template <bson_type_t Type>
inline constexpr type_mask written_types<kinds::scalar<Type>> = type_bit(Type);
template <class E>
inline constexpr type_mask written_types<kinds::enumeration<E>> = type_bit(BSON_TYPE_UTF8);
template <class Record>
inline constexpr type_mask written_types<kinds::document<Record>> = type_bit(BSON_TYPE_DOCUMENT);
template <>
inline constexpr type_mask written_types<kinds::any_document> = type_bit(BSON_TYPE_DOCUMENT);
template <class Value>
inline constexpr type_mask written_types<kinds::map<Value>> = type_bit(BSON_TYPE_DOCUMENT);
template <class T>
inline constexpr type_mask written_types<kinds::subset_item<T>> = type_bit(BSON_TYPE_DOCUMENT);
template <class Element>
inline constexpr type_mask written_types<kinds::array<Element>> = type_bit(BSON_TYPE_ARRAY);
template <class... Kinds>
inline constexpr type_mask written_types<kinds::one_of<Kinds...>> = (written_types<Kinds> | ... | type_mask{0});
template <class Kind>
inline constexpr type_mask written_types<kinds::nullable<Kind>> = type_bit(BSON_TYPE_NULL) | written_types<Kind>;
template <class T>
inline constexpr type_mask written_types<kinds::id_of<T>> = written_types<kind_of<id_type_t<T>>>;

/// The check of a std::optional<T>: an empty optional is stored as null, so one holding a
/// value of T that is stored as null would read back empty.
template <class T>
struct optional_value_distinct {
  static_assert((written_types<kind_of<T>> & type_bit(BSON_TYPE_NULL)) == 0,
                "odm: this std::optional holds a type odm may store as null (an optional, a ParentRef, a variant "
                "with such an alternative: the T of optional_value_distinct<T>), so holding that null it would read "
                "back empty: hold the inner type directly, or wrap it in a struct");
  static constexpr bool value = true;
};

/// One field odm writes for a struct: its stored name and the BSON types of its value.
struct WrittenField {
  std::string_view name;
  type_mask types = 0;
};

/// Whether member I of Record is written as a field of a sub-document (a Subset's items are
/// written without the ParentRefs back to their owner).
template <class Record, std::size_t I, bool SubsetItem>
consteval bool writes_field() {
  using M = typename record_traits<Record, false>::template member_type<I>;
  if constexpr (!mappable<M> || unknown_field_keeper<M>)
    return false;
  else
    return !SubsetItem || relation_of<M>::kind != Relationship::parent_reference;
}

/// Every field odm writes for a value of Record embedded in another document: each stored
/// member under its name, and under its previous name too in a rename's expand phase.
template <class Record, bool SubsetItem>
consteval auto written_fields() {
  using traits = record_traits<Record, false>;
  constexpr std::size_t count = std::size_t{tagged<Record>} + []<std::size_t... I>(std::index_sequence<I...>) {
    return ((writes_field<Record, I, SubsetItem>() ? 1 + std::size_t{traits::writes_previous[I]} : 0) + ... + 0);
  }(std::make_index_sequence<traits::size>{});
  std::array<WrittenField, count> fields{};
  std::size_t at = 0;
  if constexpr (tagged<Record>) fields[at++] = {tag_of<Record>.field, type_bit(BSON_TYPE_UTF8)};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          if constexpr (writes_field<Record, I, SubsetItem>()) {
            constexpr type_mask types = written_types<kind_of<typename traits::template member_type<I>>>;
            fields[at++] = {traits::names[I], types};
            if (traits::writes_previous[I]) fields[at++] = {traits::previous_names[I], types};
          }
        }(),
        ...);
  }(std::make_index_sequence<traits::size>{});
  return fields;
}

/// What is known of the fields of a document written as Kind: for a struct, its fields.
template <class Kind>
struct written_document {
  static constexpr bool fields_known = false;
};
template <class Record>
struct written_document<kinds::document<Record>> {
  static constexpr bool fields_known = true;
  static constexpr auto fields = written_fields<Record, false>();
  /// An odm::Extra member writes fields of any name and type besides.
  static constexpr bool more_fields = record_traits<Record, false>::extra_index < record_traits<Record, false>::size;
};
template <class T>
struct written_document<kinds::subset_item<T>> : written_document<kinds::document<T>> {
  static constexpr auto fields = written_fields<T, true>();
};

/// Whether a value written as Kind may be read by a shape whose `reads` is Reads, i.e.
/// whether its `fits` may accept it. The Kind's alternatives (null, a variant's, a
/// reference's id) are taken apart first, then the reader's, then the two plain forms meet.
template <class Reads, class Kind>
struct may_read;

template <class Reads, class Kind>
inline constexpr bool may_read_v = may_read<Reads, Kind>::value;

/// Whether a shape whose `reads` is Reads accepts a null.
template <class Reads>
inline constexpr bool reads_null = false;
template <class T>
inline constexpr bool reads_null<reads_nullable<T>> = true;
template <class... T>
inline constexpr bool reads_null<reads_one_of<T...>> = (reads_null<typename variant_shape<T>::reads> || ...);
template <type_mask Types>
inline constexpr bool reads_null<reads_by_decoding<Types>> = (Types & type_bit(BSON_TYPE_NULL)) != 0;

/// Two plain forms: Kind is a scalar, a document or an array, Reads is no union.
template <class Reads, class Kind>
struct may_read_plain;

/// The reader's alternatives.
template <class Reads, class Kind>
struct may_read_by_reader : may_read_plain<Reads, Kind> {};
template <class... T, class Kind>
struct may_read_by_reader<reads_one_of<T...>, Kind>
    : std::bool_constant<(may_read_v<typename variant_shape<T>::reads, Kind> || ...)> {};
template <class T, class Kind>
struct may_read_by_reader<reads_nullable<T>, Kind> : may_read<typename variant_shape<T>::reads, Kind> {};

/// The written value's alternatives.
template <class Reads, class Kind>
struct may_read : may_read_by_reader<Reads, Kind> {};
template <class Reads, class... Kinds>
struct may_read<Reads, kinds::one_of<Kinds...>> : std::bool_constant<(may_read_v<Reads, Kinds> || ...)> {};
template <class Reads, class Kind>
struct may_read<Reads, kinds::nullable<Kind>> : std::bool_constant<reads_null<Reads> || may_read_v<Reads, Kind>> {};
template <class Reads, class T>
struct may_read<Reads, kinds::id_of<T>> : may_read<Reads, kind_of<id_type_t<T>>> {};

/// A value decided by decoding: any value of one of its types may decode.
template <type_mask Types, class Kind>
struct may_read_plain<reads_by_decoding<Types>, Kind> : std::bool_constant<(Types & written_types<Kind>) != 0> {};

/// An enum stored by name: a string, unless it is another such enum's, which shares a name
/// with it or not.
template <class E, class Kind>
struct may_read_plain<reads_enumerator_name<E>, Kind>
    : std::bool_constant<(written_types<Kind> & type_bit(BSON_TYPE_UTF8)) != 0> {};
template <class E, class Other>
struct may_read_plain<reads_enumerator_name<E>, kinds::enumeration<Other>> {
  static constexpr bool value = [] {
    for (const auto& mine : enum_entries<E>)
      for (const auto& theirs : enum_entries<Other>)
        if (mine.name == theirs.name) return true;
    return false;
  }();
};

/// An array's elements, one level deep; a written array may hold any number of them.
template <class Element, std::size_t Count, class Kind>
struct may_read_plain<reads_array<Element, Count>, Kind> : std::false_type {};
template <class Element, std::size_t Count, class Stored>
struct may_read_plain<reads_array<Element, Count>, kinds::array<Stored>>
    : std::bool_constant<Count == any_count || Count == 0 ||
                         (variant_shape<Element>::types & written_types<Stored>) != 0> {};

/// A map's values: an empty map fits, and a struct's fields all must be of types Value takes.
template <class Value, class Kind>
struct may_read_plain<reads_map<Value>, Kind> {
  static constexpr bool value = [] {
    if constexpr ((written_types<Kind> & type_bit(BSON_TYPE_DOCUMENT)) == 0) {
      return false;
    } else if constexpr (!written_document<Kind>::fields_known) {
      return true;  // a map or a document only its codec knows may be empty
    } else {
      for (const WrittenField& field : written_document<Kind>::fields)
        if ((variant_shape<Value>::types & field.types) == 0) return false;
      return true;
    }
  }();
};

/// Whether T and the struct written as Kind are kinds with different tags in the same
/// field: T's shape refuses a document that names another kind.
template <class T, class Kind>
inline constexpr bool tags_differ = false;
template <tagged T, tagged Record>
inline constexpr bool tags_differ<T, kinds::document<Record>> = [] {
  constexpr Tag mine = tag_of<T>;
  constexpr Tag theirs = tag_of<Record>;
  if (mine.field != theirs.field) return false;
  if (mine.names(theirs.value)) return false;
  for (std::size_t i = 0; i < theirs.previous_count; ++i)
    if (mine.names(theirs.previous[i])) return false;
  return true;
}();
template <tagged T, tagged Item>
inline constexpr bool tags_differ<T, kinds::subset_item<Item>> = tags_differ<T, kinds::document<Item>>;

/// A struct: every required member present, every field naming a member of a type it takes,
/// no other field if it is strict, no tag of another kind (the rule of variant_shape<T> in
/// record.hpp).
template <class T, bool AsStrict, class Kind>
struct may_read_plain<reads_record<T, AsStrict>, Kind> {
  using traits = record_traits<T, false>;
  static constexpr auto member_types = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<type_mask, traits::size>{variant_shape<typename traits::template member_type<I>>::types...};
  }(std::make_index_sequence<traits::size>{});
  static constexpr bool is_field(std::size_t i) { return i != traits::extra_index; }
  static constexpr bool value = [] {
    if constexpr ((written_types<Kind> & type_bit(BSON_TYPE_DOCUMENT)) == 0 || tags_differ<T, Kind>) {
      return false;
    } else if constexpr (std::is_same_v<Kind, kinds::any_document>) {
      return true;
    } else if constexpr (!written_document<Kind>::fields_known) {
      // A map: its keys may be exactly the required members' names, with values of their types.
      for (std::size_t i = 0; i < traits::size; ++i)
        if (is_field(i) && !traits::optional_members[i] &&
            (member_types[i] & written_types<typename Kind::value>) == 0)
          return false;
      return true;
    } else {
      std::array<bool, traits::size> present{};
      for (const WrittenField& field : written_document<Kind>::fields) {
        std::size_t member = traits::size;
        for (std::size_t i = 0; i < traits::size; ++i)
          if (is_field(i) && (traits::names[i] == field.name ||
                              (!traits::previous_names[i].empty() && traits::previous_names[i] == field.name)))
            member = i;
        if (member == traits::size) {
          if constexpr (tagged<T>)
            if (field.name == tag_of<T>.field) continue;  // the tag, checked by tags_differ
          if (is_strict<T> || AsStrict) return false;
          continue;
        }
        if ((member_types[member] & field.types) == 0) return false;
        present[member] = true;
      }
      for (std::size_t i = 0; i < traits::size; ++i)
        if (is_field(i) && !traits::optional_members[i] && !present[i] && !written_document<Kind>::more_fields)
          return false;
      return true;
    }
  }();
};

/// Whether making the struct Earlier strict would keep values of Later from reading as it.
template <class Earlier, class Later>
inline constexpr bool strict_would_tell_apart = false;
template <class Earlier, class Later>
  requires std::is_same_v<typename variant_shape<Earlier>::reads, reads_record<Earlier>>
inline constexpr bool strict_would_tell_apart<Earlier, Later> =
    !is_strict<Earlier> && !may_read_v<reads_record<Earlier, true>, kind_of<Later>>;

/// The check of one pair of a variant's alternatives, Earlier before Later. The compiler
/// names both types where it reports the failed assertion (variant_alternatives_distinct<
/// Earlier, Later>); each assertion gives the advice that works for the pair.
template <class Earlier, class Later>
struct variant_alternatives_distinct {
  static constexpr bool later_reads_as_earlier = may_read_v<typename variant_shape<Earlier>::reads, kind_of<Later>>;
  static constexpr bool earlier_reads_as_later = may_read_v<typename variant_shape<Later>::reads, kind_of<Earlier>>;
  static constexpr bool reorder = later_reads_as_earlier && !earlier_reads_as_later;
  static constexpr bool either_order = later_reads_as_earlier && earlier_reads_as_later;
  static constexpr bool strict = strict_would_tell_apart<Earlier, Later>;
  static_assert(!reorder || !strict,
                "odm: a value of this std::variant's alternative Later could read back as its alternative Earlier, "
                "losing what Earlier lacks (the two types of variant_alternatives_distinct<Earlier, Later>): put "
                "Later before Earlier, or make Earlier `strict` (it then refuses the fields of Later it does not "
                "declare), or tag the alternatives with odm::tag (odm/model/tag.hpp)");
  static_assert(!reorder || strict,
                "odm: a value of this std::variant's alternative Later could read back as its alternative Earlier, "
                "losing what Earlier lacks (the two types of variant_alternatives_distinct<Earlier, Later>): put "
                "Later before Earlier, or tag the alternatives with odm::tag (odm/model/tag.hpp)");
  static_assert(!either_order || !strict,
                "odm: this std::variant's alternatives Earlier and Later cannot be told apart by what odm stores for "
                "them, in either order (the two types of variant_alternatives_distinct<Earlier, Later>): tag the "
                "alternatives with odm::tag (odm/model/tag.hpp), or make Earlier `strict` (it then refuses the "
                "fields of Later it does not declare)");
  static_assert(!either_order || strict,
                "odm: this std::variant's alternatives Earlier and Later cannot be told apart by what odm stores for "
                "them, in either order (the two types of variant_alternatives_distinct<Earlier, Later>): tag the "
                "alternatives with odm::tag (odm/model/tag.hpp), give one a required member the other does not "
                "store, or wrap one in a struct of its own");
  static constexpr bool value = true;
};

/// Whether no alternative of T... may read a value written for a later one (each pair is
/// checked by variant_alternatives_distinct, whose assertion says which pair fails).
template <class... T>
struct variant_alternatives_checked {
  template <class First, class... Rest>
  static consteval bool check_from() {
    (void)(variant_alternatives_distinct<First, Rest>::value && ... && true);
    if constexpr (sizeof...(Rest) > 0)
      return check_from<Rest...>();
    else
      return true;
  }
  static constexpr bool value = check_from<T...>();
};

}  // namespace odm::detail
