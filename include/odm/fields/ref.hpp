#pragma once
// References between documents: the relationship kinds of the reference guides.
//
//   odm::Ref<Publisher> publisher_id;      book.publisher_id = "oreilly": one target, stored as its id
//   odm::RefMany<Part> parts;              product.parts = [ObjectId...]: child references
//   odm::ParentRef<Host> host;             logmsg.host = ObjectId(...): child points at its parent;
//                                          may be null (a tree root's `parent: null`)
//
// A reference always knows its id(s) without loading anything. Its target is filled in
// by a join (odm/join) for a whole result set at once; targets that many documents point
// at are shared (std::shared_ptr<const T>), not copied. Reading a target that was not
// resolved throws odm::NotLoadedError; it never hands out an empty object.
//
// What a join does when a target does not exist is the field's policy, chosen in the
// declaration (the second template argument):
//   Dangling::keep   (default) the reference keeps its id and stays unresolved; reading
//                    its target throws NotLoadedError saying the target is missing.
//   Dangling::drop   like an inner join: a document whose Ref/ParentRef is dangling is
//                    left out of the result; a RefMany forgets the missing ids (saving
//                    the document afterwards stores the cleaned list). In a nested
//                    relation the targets are never left out: a target's Ref/ParentRef
//                    stays dangling (its RefMany still forgets the missing ids).
//   Dangling::raise  the join throws odm::DanglingReference naming field and id.
//
// Reference ids are ObjectId, std::string, std::int64_t, std::int32_t (every id the
// guides use), or any other id type with an odm::codec (a user's SKU type, a compound
// key). The id is held in a small variant rather than as `id_type_t<T>` so that a model
// can refer to itself or to a model declared later (a category's `parent`, a category's
// `children`): T is only needed complete where the id is read or written. An id of a
// user type is held as the BSON its codec writes (detail::EncodedId) and compared by it,
// so such a codec must write equal ids identically, as MongoDB compares `_id` values.

#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/writer.hpp>
#include <odm/error.hpp>
#include <odm/fields/object_id.hpp>
#include <odm/model/access.hpp>
#include <odm/model/id.hpp>

#include <concepts>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace odm {

namespace detail {

/// An id of a type ReferenceId has no alternative for: a user type with its own
/// odm::codec. Held as the one-field document `{"": id}` its codec writes, compared and
/// hashed by those bytes.
class EncodedId {
 public:
  template <class Id>
  static EncodedId of(const Id& id) {
    Document holder;
    codec<Id>::encode(holder.get_mutable(), "", id);
    EncodedId encoded;
    encoded.bytes_.assign(reinterpret_cast<const char*>(holder.data()), holder.size());
    return encoded;
  }

  /// The id as its own type, through its codec.
  template <class Id>
  Id decode() const {
    bson_iter_t it;
    if (!init_iter(it)) throw DecodeError("an encoded reference id is empty");
    Id id{};
    codec<Id>::decode(it, id);
    return id;
  }

  /// Appends the id as field `key` of `parent`.
  void append_to(bson_t* parent, std::string_view key) const {
    bson_iter_t it;
    if (!init_iter(it)) throw EncodeError("an encoded reference id is empty");
    check_append(bson_append_iter(parent, key.data(), key_length(key), &it));
  }

  /// The encoded bytes (what hashing and comparing use).
  std::string_view bytes() const noexcept { return bytes_; }
  /// The id as relaxed Extended JSON, for messages.
  std::string to_json() const {
    const std::string json =
        Document::from_bytes({reinterpret_cast<const std::uint8_t*>(bytes_.data()), bytes_.size()}).to_json();
    // `{ "" : <value> }` -> `<value>`
    const std::size_t begin = json.find(':');
    const std::size_t end = json.rfind('}');
    if (begin == std::string::npos || end == std::string::npos || end < begin + 2) return json;
    return json.substr(begin + 2, end - begin - 3);
  }

  friend bool operator==(const EncodedId&, const EncodedId&) = default;

 private:
  bool init_iter(bson_iter_t& it) const {
    return bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(bytes_.data()), bytes_.size()) &&
           bson_iter_next(&it);
  }
  std::string bytes_;
};

/// Storage for a reference's id, independent of whether T is complete yet.
using ReferenceId = std::variant<std::monostate, ObjectId, std::string, std::int64_t, std::int32_t, EncodedId>;

/// The id types ReferenceId holds as themselves; any other is held as an EncodedId.
template <class Id>
concept native_reference_id = std::same_as<Id, ObjectId> || std::same_as<Id, std::string> ||
                              std::same_as<Id, std::int64_t> || std::same_as<Id, std::int32_t>;

/// How ReferenceId holds an id of type Id: Id itself, or its encoding.
template <class Id>
using reference_key_t = std::conditional_t<native_reference_id<Id>, Id, EncodedId>;

/// A model's id as ReferenceId holds it (a const reference for the native types).
template <class Id>
decltype(auto) reference_key(const Id& id) {
  if constexpr (native_reference_id<Id>)
    return (id);
  else
    return EncodedId::of(id);
}

/// A model's id as a ReferenceId.
template <class Id>
ReferenceId to_reference_id(const Id& id) {
  return ReferenceId(reference_key(id));
}

/// Throws UsageError: the reference holds no id of the kind asked for (a Ref that was
/// never given one).
[[noreturn]] void throw_no_id(const ReferenceId& id);

/// The key a ReferenceId holds (Key is reference_key_t of the target's id type).
template <class Key>
const Key& held_key(const ReferenceId& id) {
  if (const Key* key = std::get_if<Key>(&id)) [[likely]]
    return *key;
  throw_no_id(id);
}

/// The id a ReferenceId holds, as the model's id type Id (a const reference for the
/// native types, a decoded value for the others).
template <class Id>
decltype(auto) id_from_reference(const ReferenceId& id) {
  if constexpr (native_reference_id<Id>)
    return held_key<Id>(id);
  else
    return held_key<EncodedId>(id).template decode<Id>();
}

template <class T>
constexpr void check_reference_id() {
  static_assert(mappable<id_type_t<T>>,
                "odm: a referenced model's id must be odm::ObjectId, std::string, std::int64_t, std::int32_t, or a "
                "type with an odm::codec specialization");
}

/// An id as a reader would like to see it in an error message.
std::string describe_id(const ReferenceId& id);

/// Nothing converts to this type, except the probes Boost.PFR uses to count a struct's
/// members, which convert to anything.
struct NotAnId {};

/// The arguments a reference can be built from: something that looks like an id.
/// Deliberately decided from the argument alone, never by asking T: a reference is
/// often declared inside T itself (a category's parent), before T is complete, and
/// Boost.PFR probes T's members with conversion objects while counting them. A class
/// with an odm::codec is an id of a user type (never a reference itself: that is a copy).
template <class Id>
concept id_like = std::same_as<std::remove_cvref_t<Id>, ObjectId> ||
                  std::convertible_to<Id, std::string_view> ||
                  (std::integral<std::remove_cvref_t<Id>> && !std::same_as<std::remove_cvref_t<Id>, bool>) ||
                  (std::is_class_v<std::remove_cvref_t<Id>> && !std::convertible_to<Id, NotAnId> &&
                   !codec_states_relation<std::remove_cvref_t<Id>> && mappable<std::remove_cvref_t<Id>>);

/// Converts an id argument to T's id type, once T is complete.
template <class T, class Id>
ReferenceId make_reference_id(Id&& id) {
  check_reference_id<T>();
  using Target = id_type_t<T>;
  if constexpr (std::integral<Target> && std::integral<std::remove_cvref_t<Id>>) {
    if (!std::in_range<Target>(id)) throw ValueError("id " + std::to_string(id) + " does not fit the target's id type");
    return ReferenceId(reference_key(static_cast<Target>(id)));
  } else {
    static_assert(std::constructible_from<Target, Id&&>,
                  "odm: this id cannot be converted to the referenced model's id type");
    if constexpr (native_reference_id<Target>)
      return ReferenceId(Target(std::forward<Id>(id)));
    else
      return ReferenceId(EncodedId::of(Target(std::forward<Id>(id))));
  }
}

/// How a reference stands after a join.
enum class Resolution : unsigned char { unresolved, loaded, dangling };

[[noreturn]] void throw_not_loaded(const ReferenceId& id, Resolution state);

/// Appends `id` under `key` as its BSON value (null for none). In odm/fields/ref.cpp.
void encode_reference_id(bson_t* parent, std::string_view key, const ReferenceId& id);

/// What Ref and ParentRef share: an id, and the target once a join found it.
template <class T>
class SingleReference {
 public:
  /// The target. Throws odm::NotLoadedError unless a join resolved it.
  const T& get() const {
    if (state_ != Resolution::loaded) [[unlikely]] {
      if (std::holds_alternative<std::monostate>(id_))
        throw NotLoadedError("this reference is null: there is no target to read");
      throw_not_loaded(id_, state_);
    }
    return *target_;
  }
  const T& operator*() const { return get(); }
  const T* operator->() const { return &get(); }
  /// The shared target (empty unless loaded).
  const std::shared_ptr<const T>& shared() const noexcept { return target_; }
  bool is_loaded() const noexcept { return state_ == Resolution::loaded; }
  bool is_dangling() const noexcept { return state_ == Resolution::dangling; }

 protected:
  friend struct detail::Access;
  using resolved_targets = std::shared_ptr<const T>;
  /// Used by joins: the found target, or none (dangling).
  void resolve(std::shared_ptr<const T> target) {
    target_ = std::move(target);
    state_ = target_ ? Resolution::loaded : Resolution::dangling;
  }

  const ReferenceId& raw_id() const noexcept { return id_; }

  SingleReference() = default;
  explicit SingleReference(ReferenceId id) : id_(std::move(id)) {}
  explicit SingleReference(std::shared_ptr<const T> target)
      : id_(to_reference_id(id_of(*target))), target_(std::move(target)), state_(Resolution::loaded) {}

  ReferenceId id_;
  std::shared_ptr<const T> target_;
  Resolution state_ = Resolution::unresolved;
};

}  // namespace detail

/// A reference to one T, stored as T's id.
template <class T, Dangling Policy = Dangling::keep>
class Ref : public detail::SingleReference<T> {
 public:
  Ref() = default;
  /// `book.publisher_id = "oreilly"`
  template <detail::id_like Id>
  Ref(Id&& id) : detail::SingleReference<T>(detail::make_reference_id<T>(std::forward<Id>(id))) {}  // NOLINT
  /// A reference already resolved to a shared object.
  explicit Ref(std::shared_ptr<const T> target) : detail::SingleReference<T>(std::move(target)) {}

  /// The target's id.
  decltype(auto) id() const { return detail::id_from_reference<id_type_t<T>>(this->id_); }

  /// References compare by id: two references to the same document are equal.
  friend bool operator==(const Ref& a, const Ref& b) { return a.id_ == b.id_; }
};

/// A reference from a child to its parent (one-to-many, one-to-squillions, trees).
/// Stored as the parent's id, or null when there is no parent (a tree's root). A model's
/// ParentRef members are indexed automatically: it is how children are found.
template <class T, Dangling Policy = Dangling::keep>
class ParentRef : public detail::SingleReference<T> {
 public:
  /// No parent.
  ParentRef() = default;
  ParentRef(std::nullopt_t) {}  // NOLINT(google-explicit-constructor)
  template <detail::id_like Id>
  ParentRef(Id&& id) : detail::SingleReference<T>(detail::make_reference_id<T>(std::forward<Id>(id))) {}  // NOLINT
  explicit ParentRef(std::shared_ptr<const T> target) : detail::SingleReference<T>(std::move(target)) {}

  bool has_parent() const noexcept { return !std::holds_alternative<std::monostate>(this->id_); }
  /// The parent's id, or nothing for a root.
  auto id() const {
    using Id = id_type_t<T>;
    return has_parent() ? std::optional<Id>(detail::id_from_reference<Id>(this->id_)) : std::optional<Id>();
  }

  friend bool operator==(const ParentRef& a, const ParentRef& b) { return a.id_ == b.id_; }
};

/// Child references: an array of T's ids (product.parts, student.courses; targets shared
/// between owners make it many-to-many).
template <class T, Dangling Policy = Dangling::keep>
class RefMany {
 public:
  RefMany() = default;
  template <detail::id_like Id>
  RefMany(std::initializer_list<Id> ids) {
    for (const auto& id : ids) ids_.push_back(detail::make_reference_id<T>(id));
  }
  template <detail::id_like Id>
  RefMany(const std::vector<Id>& ids) {  // NOLINT(google-explicit-constructor)
    for (const auto& id : ids) ids_.push_back(detail::make_reference_id<T>(id));
  }

  std::size_t size() const noexcept { return ids_.size(); }
  bool empty() const noexcept { return ids_.empty(); }
  /// The id of the i-th reference.
  decltype(auto) id(std::size_t i) const {
    return detail::id_from_reference<id_type_t<T>>(ids_[detail::checked_position("RefMany::id", i, ids_.size())]);
  }
  /// All ids, in stored order.
  auto ids() const {
    std::vector<id_type_t<T>> out;
    out.reserve(ids_.size());
    for (const auto& id : ids_) out.push_back(detail::id_from_reference<id_type_t<T>>(id));
    return out;
  }
  template <detail::id_like Id>
  void push_back(Id&& id) {
    ids_.push_back(detail::make_reference_id<T>(std::forward<Id>(id)));
    targets_.clear();
    resolved_ = false;  // the list changed: it must be resolved again
  }

  /// Whether a join resolved this list (some targets may be dangling under keep).
  bool is_loaded() const noexcept { return resolved_; }

  /// The target of the i-th reference. Throws odm::NotLoadedError if unresolved or dangling.
  const T& at(std::size_t i) const {
    const auto& id = ids_[detail::checked_position("RefMany::at", i, ids_.size())];
    if (!resolved_) detail::throw_not_loaded(id, detail::Resolution::unresolved);
    if (!targets_[i]) detail::throw_not_loaded(id, detail::Resolution::dangling);
    return *targets_[i];
  }
  const T& operator[](std::size_t i) const { return at(i); }

  /// The resolved targets in stored order, without the dangling ones. Throws
  /// odm::NotLoadedError if the list was not resolved.
  std::vector<std::shared_ptr<const T>> targets() const {
    if (!resolved_ && !ids_.empty()) detail::throw_not_loaded(ids_.front(), detail::Resolution::unresolved);
    std::vector<std::shared_ptr<const T>> found;
    found.reserve(targets_.size());
    for (const auto& target : targets_)
      if (target) found.push_back(target);
    return found;
  }

  friend bool operator==(const RefMany& a, const RefMany& b) { return a.ids_ == b.ids_; }

 private:
  friend struct detail::Access;
  using resolved_targets = std::vector<std::shared_ptr<const T>>;
  /// Used by joins: one entry per id, null where the target is missing.
  void resolve(std::vector<std::shared_ptr<const T>> targets) {
    if (targets.size() != ids_.size()) throw UsageError("RefMany::resolve: one target per id is required");
    if constexpr (Policy == Dangling::drop) {
      std::size_t kept = 0;
      for (std::size_t i = 0; i < ids_.size(); ++i) {
        if (!targets[i]) continue;
        if (kept != i) {  // never onto itself: a self-moved std::string is left empty
          ids_[kept] = std::move(ids_[i]);
          targets[kept] = std::move(targets[i]);
        }
        ++kept;
      }
      ids_.resize(kept);
      targets.resize(kept);
    }
    targets_ = std::move(targets);
    resolved_ = true;
  }

  const std::vector<detail::ReferenceId>& raw_ids() const noexcept { return ids_; }

  std::vector<detail::ReferenceId> ids_;
  std::vector<std::shared_ptr<const T>> targets_;
  bool resolved_ = false;
};

// Stored as the target's id, exactly as T stores its own `_id`.
template <class T, Dangling P>
struct codec<Ref<T, P>> {
  using kind = kinds::id_of<T>;
  using relation = reference_to<T, Relationship::reference, P>;
  static void encode(bson_t* parent, std::string_view key, const Ref<T, P>& ref) {
    if (std::holds_alternative<std::monostate>(detail::Access::raw_id(ref))) [[unlikely]]
      throw EncodeError("the reference was never given an id (a Ref is required; use ParentRef or "
                        "std::optional<Ref<...>> for one that may be absent)");
    detail::encode_reference_id(parent, key, detail::Access::raw_id(ref));
  }
  static void decode(const bson_iter_t& it, Ref<T, P>& out) {
    detail::check_reference_id<T>();
    id_type_t<T> id{};
    codec<id_type_t<T>>::decode(it, id);
    out = Ref<T, P>(std::move(id));
  }
};

// Stored as the parent's id, or null for no parent; a missing field also means none.
template <class T, Dangling P>
struct codec<ParentRef<T, P>> {
  using kind = kinds::nullable<kinds::id_of<T>>;
  using relation = reference_to<T, Relationship::parent_reference, P>;
  static constexpr bool may_be_absent = true;
  static void encode(bson_t* parent, std::string_view key, const ParentRef<T, P>& ref) {
    detail::encode_reference_id(parent, key, detail::Access::raw_id(ref));
  }
  static void decode(const bson_iter_t& it, ParentRef<T, P>& out) {
    detail::check_reference_id<T>();
    if (bson_iter_type(&it) == BSON_TYPE_NULL) {
      out = ParentRef<T, P>();
      return;
    }
    id_type_t<T> id{};
    codec<id_type_t<T>>::decode(it, id);
    out = ParentRef<T, P>(std::move(id));
  }
};

// Stored as an array of the targets' ids.
template <class T, Dangling P>
struct codec<RefMany<T, P>> {
  using kind = kinds::array<kinds::id_of<T>>;
  using relation = reference_to<T, Relationship::child_references, P>;
  static void encode(bson_t* parent, std::string_view key, const RefMany<T, P>& refs) {
    const detail::EncodeLevel level;
    detail::ChildWriter array(parent, key, detail::ChildWriter::Kind::array);
    for (const auto& id : detail::Access::raw_ids(refs)) {
      const detail::ArrayKey element_key(array.next_index());
      detail::encode_reference_id(array.get(), element_key.view(), id);
    }
    array.close();
  }
  static void decode(const bson_iter_t& it, RefMany<T, P>& out) {
    detail::check_reference_id<T>();
    std::vector<id_type_t<T>> ids;
    codec<std::vector<id_type_t<T>>>::decode(it, ids);
    out = RefMany<T, P>(ids);
  }
};

// For std::variant: a Ref is its id, a ParentRef its id or null, a RefMany an array of ids.
template <class T, Dangling P>
struct detail::variant_shape<Ref<T, P>> {
  static constexpr type_mask types = variant_shape<id_type_t<T>>::types;
  using reads = typename variant_shape<id_type_t<T>>::reads;
  static bool fits(const bson_iter_t& it, std::string& why) { return variant_shape<id_type_t<T>>::fits(it, why); }
};
template <class T, Dangling P>
struct detail::variant_shape<ParentRef<T, P>> : detail::variant_shape<std::optional<id_type_t<T>>> {};
template <class T, Dangling P>
struct detail::variant_shape<RefMany<T, P>> : detail::variant_shape<std::vector<id_type_t<T>>> {};

}  // namespace odm
