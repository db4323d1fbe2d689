#pragma once
// What a codec stores, said once by the codec itself (`using kind = ...;`), so that the
// layers that reason about stored documents without writing one read it there: the member
// table (bson/members.hpp), typed query paths, compile-time checks of dotted paths
// (bson/stored_path.hpp), and a $jsonSchema generator.
//
//   odm::kinds::scalar<BSON_TYPE_INT32>  one BSON type with nothing inside it
//   odm::kinds::enumeration<E>           a string, one of the enumerator names of E
//   odm::kinds::document<R>              a sub-document whose fields are the members of
//                                        the struct R, stored as R's member table says
//   odm::kinds::any_document             a sub-document only its codec knows
//   odm::kinds::array<K>                 an array whose elements are K
//   odm::kinds::map<K>                   a sub-document whose keys are data, values K
//   odm::kinds::one_of<K...>             any one of the kinds (std::variant)
//   odm::kinds::nullable<K>              K or null (std::optional)
//   odm::kinds::id_of<T>                 whatever the model T's id is (references)
//   odm::kinds::subset_item<T>           a T embedded in its owner, without its ParentRefs
//   odm::kind_of<U>                      whatever U's codec stores: a Celsius kept as a
//                                        double says `using kind = odm::kind_of<double>;`
//
// A type that relates documents (odm::Ref, ParentRef, RefMany, Subset) also says so in its
// codec, `using relation = odm::reference_to<...>` or `odm::subset_of<...>`; joins, index
// plans and queries read that instead of recognizing the types one by one.

#include <bson/bson.h>

#include <odm/bson/codec.hpp>
#include <odm/model/direction.hpp>
#include <odm/model/id.hpp>

#include <cstddef>
#include <type_traits>

namespace odm {
namespace kinds {

/// One BSON type with nothing inside it (no sub-path exists).
template <bson_type_t Type>
struct scalar {
  static constexpr bson_type_t type = Type;
};
/// A string that is one of the enumerator names of the enum E (an enum stored by name):
/// a scalar string to paths and queries, a closed list of values to a $jsonSchema.
template <class E>
struct enumeration {
  static constexpr bson_type_t type = BSON_TYPE_UTF8;
  using enum_type = E;
};
/// A sub-document holding the members of the struct Record.
template <class Record>
struct document {
  using record = Record;
};
/// A sub-document whose fields only its codec knows: any sub-path may exist.
struct any_document {};
/// An array whose elements are stored as Element (a kind).
template <class Element>
struct array {
  using element = Element;
};
/// A sub-document whose keys are data and whose values are stored as Value (a kind).
template <class Value>
struct map {
  using value = Value;
};
/// Any one of the kinds.
template <class... Kinds>
struct one_of {};
/// Kind, or null.
template <class Kind>
struct nullable {
  using value = Kind;
};
/// The kind of the model T's id (resolved only when asked: T may be incomplete where a
/// reference to it is declared).
template <class T>
struct id_of {
  using model = T;
};
/// An item of a Subset as its owner embeds it: a document of T's members but the
/// ParentRefs that point back to the owner.
template <class T>
struct subset_item {
  using record = T;
};

}  // namespace kinds

// ---------------------------------------------------------------------------------------
// Relations between documents

/// What a join does with a reference whose target does not exist (fields/ref.hpp).
enum class Dangling { keep, drop, raise };

/// How a member relates its document to others.
enum class Relationship {
  none,              ///< a value of its own
  reference,         ///< odm::Ref<T>: one target, stored as its id
  parent_reference,  ///< odm::ParentRef<T>: the parent's id or null; indexed
  child_references,  ///< odm::RefMany<T>: an array of ids
  subset,            ///< odm::Subset<T, N, ...>: the first N items of another collection, embedded
};

/// A member holding the id(s) of documents of Target.
template <class Target, Relationship Kind, Dangling Policy>
struct reference_to {
  using target = Target;
  static constexpr Relationship kind = Kind;
  static constexpr Dangling policy = Policy;
  /// Several ids (RefMany) rather than one.
  static constexpr bool many = Kind == Relationship::child_references;
};

/// A member embedding at most Capacity items of Item (which live in their own collection),
/// ordered by OrderKey in the direction Order (descending keeps the largest).
template <class Item, std::size_t Capacity, auto OrderKey, Direction Order>
struct subset_of {
  using target = Item;
  static constexpr Relationship kind = Relationship::subset;
  static constexpr std::size_t capacity = Capacity;
  static constexpr auto order_key = OrderKey;
  static constexpr Direction order = Order;
};

/// A member that relates to nothing.
struct no_relation {
  using target = void;
  static constexpr Relationship kind = Relationship::none;
  static constexpr bool many = false;
};

namespace detail {

template <class T>
concept codec_states_kind = requires { typename codec<T>::kind; };

struct unknown_kind_holder {
  struct kind {};
};

template <class T>
struct kind_of_type {
  static_assert(!mappable<T> || codec_states_kind<T>,
                "odm: this codec does not say what it stores; add `using kind = ...;` to odm::codec<T> "
                "(odm/bson/kind.hpp), e.g. `using kind = odm::kind_of<double>;` for a type stored as a double");
  // Unmapped types get their own message where they are used (bson/record.hpp).
  using type = typename std::conditional_t<codec_states_kind<T>, codec<T>, unknown_kind_holder>::kind;
};

/// Whether T's codec states a relation (T is a reference or a Subset).
template <class T>
concept codec_states_relation = requires { typename codec<T>::relation; };

template <class T>
struct relation_of_type {
  using type = no_relation;
};
template <codec_states_relation T>
struct relation_of_type<T> {
  using type = typename codec<T>::relation;
};

/// kinds::id_of<T> is the kind of T's id; every other kind is itself.
template <class Kind>
struct resolve_kind {
  using type = Kind;
};

}  // namespace detail

/// What U's codec stores (its `kind`).
template <class U>
using kind_of = typename detail::kind_of_type<U>::type;

/// How a member of type U relates documents: odm::reference_to<...>, odm::subset_of<...>,
/// or odm::no_relation.
template <class U>
using relation_of = typename detail::relation_of_type<U>::type;

namespace detail {

template <class T>
struct resolve_kind<kinds::id_of<T>> {
  using type = kind_of<id_type_t<T>>;
};

/// A kind with kinds::id_of resolved (the model must be complete by then).
template <class Kind>
using resolved_kind_t = typename resolve_kind<Kind>::type;

template <class Kind>
inline constexpr bool is_document_kind = false;
template <class Record>
inline constexpr bool is_document_kind<kinds::document<Record>> = true;

}  // namespace detail

/// Whether U is stored as a document of its own members (a plain struct).
template <class U>
inline constexpr bool is_record = std::is_same_v<kind_of<U>, kinds::document<U>>;

}  // namespace odm
