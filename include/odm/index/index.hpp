#pragma once
// The indexes a model needs: declared in its metadata, and implied by its field kinds.
//
//   struct Volume {
//     ...
//     std::vector<std::string> topics;
//     struct odm_model {
//       static constexpr auto indexes = odm::indexes(odm::index(&Volume::topics));  // keyword search
//     };
//   };
//
// Declared indexes: single or compound (`odm::index(&A::x, odm::key(&A::y, odm::descending))`),
// a dotted path for an embedded field (`odm::index("addresses.city")`, checked against the
// model's stored names at compile time: bson/stored_path.hpp), and the options
// `.unique()`, `.sparse()`, `.partial(R"({"rating": {"$gt": 5}})")`,
// `.expire_after(std::chrono::hours(24))` (TTL) and `.named("...")`.
//
// Implied by field kinds, as the model's member table states their relations
// (odm::index_plan<T>() adds them unless a planned index that holds every document already
// starts with the same keys, which serves the same queries; a partial or sparse index never
// does):
//   - every ParentRef member: `{field: 1}` (children are found through it);
//   - a RefMany to the model itself (a tree's `children`): `{children: 1}`, multikey, for
//     finding a node's parent with `{children: id}`;
//   - an odm::Subset<Item, N, &Item::order> member: on Item's collection,
//     `{<Item's ParentRef to the owner>: 1, <order>: -1, <item key>: -1}` (the newest N of an
//     owner, ties broken by the item's key, read as N index entries).
// When a declared partial or sparse index has exactly the keys an implied index would
// have, the implied one gets `_id` as its last key (MongoDB refuses two indexes with one key
// pattern that differ only in options).

#include <odm/bson/document.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/members.hpp>
#include <odm/bson/stored_path.hpp>
#include <odm/model/collection_name.hpp>
#include <odm/model/direction.hpp>
#include <odm/model/model.hpp>
#include <odm/query/previous_names.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace odm {

/// An index key on a member.
template <class T, class M>
struct MemberKey {
  M T::*member;
  Direction order = Direction::ascending;
};

/// An index key on a dotted path (fields of embedded documents).
struct PathKey {
  std::string_view path;
  Direction order = Direction::ascending;
};

/// A key in a given direction: odm::key(&LogMessage::time, odm::descending).
template <class T, class M>
constexpr MemberKey<T, M> key(M T::*member, Direction order = Direction::ascending) {
  return {member, order};
}
constexpr PathKey key(std::string_view path, Direction order = Direction::ascending) { return {path, order}; }

/// One declared index: its keys and options. Built with odm::index(...) and the
/// setters, all usable in a constant expression inside the model.
template <class... Keys>
struct IndexDeclaration {
  std::tuple<Keys...> keys;
  std::string_view name{};
  bool is_unique = false;
  bool is_sparse = false;
  std::string_view partial_filter{};  // Extended JSON
  std::int64_t expire_after_seconds = -1;

  constexpr IndexDeclaration unique() const {
    auto copy = *this;
    copy.is_unique = true;
    return copy;
  }
  constexpr IndexDeclaration sparse() const {
    auto copy = *this;
    copy.is_sparse = true;
    return copy;
  }
  constexpr IndexDeclaration named(std::string_view index_name) const {
    auto copy = *this;
    copy.name = index_name;
    return copy;
  }
  /// Only documents matching this filter (Extended JSON) are indexed.
  constexpr IndexDeclaration partial(std::string_view filter_json) const {
    auto copy = *this;
    copy.partial_filter = filter_json;
    return copy;
  }
  /// A TTL index: the server deletes documents this long after the indexed date.
  constexpr IndexDeclaration expire_after(std::chrono::seconds lifetime) const {
    auto copy = *this;
    copy.expire_after_seconds = lifetime.count();
    return copy;
  }
};

namespace detail {
template <class K>
constexpr auto as_index_key(K key) {
  if constexpr (std::is_member_object_pointer_v<K>)
    return odm::key(key);
  else if constexpr (std::is_convertible_v<K, std::string_view>)
    return PathKey{key, Direction::ascending};
  else
    return key;
}
}  // namespace detail

/// An index over one or more keys: member pointers, odm::key(...) or dotted paths.
template <class... Keys>
constexpr auto index(Keys... keys) {
  static_assert(sizeof...(Keys) > 0, "odm::index: name at least one key");
  return IndexDeclaration<decltype(detail::as_index_key(keys))...>{{detail::as_index_key(keys)...}};
}

/// The declared indexes of a model.
template <class... Declarations>
constexpr auto indexes(Declarations... declarations) {
  return std::tuple<Declarations...>{declarations...};
}

/// One index to have on one collection: what odm::sync_indexes creates and compares.
struct IndexModel {
  IndexModel() = default;
  // Copied, moved and destroyed in the library (odm/index/index.cpp): compiled once, not in every file.
  IndexModel(const IndexModel&);
  IndexModel(IndexModel&&) noexcept;
  IndexModel& operator=(const IndexModel&);
  IndexModel& operator=(IndexModel&&) noexcept;
  ~IndexModel();

  std::string collection;
  /// The key pattern, e.g. {product_id: 1, published_date: -1}.
  Document keys;
  /// MongoDB's default name ("product_id_1_published_date_-1") unless declared.
  std::string name;
  bool unique = false;
  bool sparse = false;
  std::optional<Document> partial_filter;
  std::optional<std::int64_t> expire_after_seconds;
  /// Why the index is in the plan: "declared by Volume", "ParentRef LogMessage::host", ...
  std::string reason;
  /// Declared by a model (kept even when another index covers it), or implied by a field kind.
  bool declared = false;

  /// The createIndexes entry: {key, name, unique?, sparse?, partialFilterExpression?, expireAfterSeconds?}.
  Document specification() const;
  /// One line for a plan: `volumes: {topics: 1} name=topics_1 (declared by Volume)`.
  std::string describe() const;
};

namespace detail {

/// An IndexModel for `keys` [(field, order)...], named as MongoDB would name it.
IndexModel make_index(std::string collection, const std::vector<std::pair<std::string, std::int32_t>>& keys,
                      std::string reason);

/// One key of a planned index, known when the model compiles: a stored field name (or a
/// dotted path) and 1 or -1.
struct PlannedKey {
  std::string_view field;
  std::int32_t order = 1;
};

/// A declared index's options, as constants (IndexDeclaration without its keys' types).
struct DeclaredOptions {
  std::string_view name;
  bool unique = false;
  bool sparse = false;
  std::string_view partial_filter;
  std::int64_t expire_after_seconds = -1;
};

/// Adds one declared index of `model` to the plan (index.cpp): the work is the same for
/// every model, so it is compiled once instead of in every file that plans indexes.
void add_declared_index(std::vector<IndexModel>& plan, std::string_view collection, std::string_view model,
                        std::span<const PlannedKey> keys, const DeclaredOptions& options);

/// For each index of `collection` in `plan` with a key on a member renamed in its expand
/// phase (odm::renamed_from), the same index on the previous name; a unique one (both)
/// made partial, over the documents that hold the name (index.cpp).
void add_previous_name_indexes(std::vector<IndexModel>& plan, std::string_view collection, const NamePair* pairs,
                               std::size_t count);

/// What a member implies: nothing, `{field: 1}` for a ParentRef or a RefMany to the model
/// itself, or the index of a Subset's full collection.
enum class ImpliedKind : std::uint8_t { none, parent_ref, children, subset };

struct ImpliedIndex {
  ImpliedKind kind = ImpliedKind::none;
  std::string_view member;      // the C++ member's name, for the plan's reason
  std::string_view collection;  // a Subset's items' collection; empty: the model's own
  std::array<PlannedKey, 3> keys{};
  std::size_t key_count = 0;
};

/// Adds the indexes `implied` (one entry per member of `model`) stands for (index.cpp).
void add_implied_indexes(std::vector<IndexModel>& plan, std::string_view collection, std::string_view model,
                         std::span<const ImpliedIndex> implied);

/// Whether every dotted path in T's declared indexes names a field of T.
template <class T>
constexpr bool declared_paths_exist() {
  return std::apply(
      [](const auto&... declaration) {
        return (std::apply(
                    [](const auto&... key) {
                      return ([&] {
                        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(key)>, PathKey>)
                          return has_stored_path<T>(key.path);
                        else
                          return true;
                      }() && ...);
                    },
                    declaration.keys) &&
                ...);
      },
      metadata_t<T>::indexes);
}

/// Key K of T's declared index D: a path as written, a member under its stored name.
template <class T, std::size_t D, std::size_t K>
consteval PlannedKey declared_key() {
  constexpr const auto& key = std::get<K>(std::get<D>(metadata_t<T>::indexes).keys);
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(key)>, PathKey>)
    return {key.path, direction_value(key.order)};
  else
    return {field_name(key.member), direction_value(key.order)};
}

template <class T, std::size_t D>
inline constexpr auto declared_keys = []<std::size_t... K>(std::index_sequence<K...>) {
  return std::array<PlannedKey, sizeof...(K)>{declared_key<T, D, K>()...};
}(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(std::get<D>(metadata_t<T>::indexes).keys)>>>{});

template <class T, std::size_t D>
inline constexpr DeclaredOptions declared_options = [] {
  constexpr const auto& declaration = std::get<D>(metadata_t<T>::indexes);
  return DeclaredOptions{declaration.name, declaration.is_unique, declaration.is_sparse, declaration.partial_filter,
                         declaration.expire_after_seconds};
}();

/// T's unqualified type name ("LogMessage"), for the plan's reasons.
template <class T>
inline constexpr std::string_view model_type_name = unqualified_type_name<T>();

template <class T>
void add_declared(std::vector<IndexModel>& plan) {
  if constexpr (requires { metadata_t<T>::indexes; }) {
    static_assert(declared_paths_exist<T>(),
                  "odm::index: a dotted path in the model's indexes names no field of the model "
                  "(check its spelling, and use the stored names: e.g. \"_id\", or a name given by odm::rename)");
    [&]<std::size_t... D>(std::index_sequence<D...>) {
      (add_declared_index(plan, collection_name<T>, model_type_name<T>, declared_keys<T, D>, declared_options<T, D>),
       ...);
    }(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(metadata_t<T>::indexes)>>>{});
  }
}

/// What member I of T implies (see the top of this file), from its relation in T's member
/// table.
template <class T, std::size_t I>
consteval ImpliedIndex implied_index() {
  using Member = member<T, I>;
  using Relation = typename Member::relation;
  ImpliedIndex out;
  out.member = Member::name;
  if constexpr (Relation::kind == Relationship::parent_reference ||
                (Relation::kind == Relationship::child_references && std::is_same_v<typename Relation::target, T>)) {
    out.kind = Relation::kind == Relationship::parent_reference ? ImpliedKind::parent_ref : ImpliedKind::children;
    out.keys[0] = {Member::stored_name, 1};
    out.key_count = 1;
  } else if constexpr (Relation::kind == Relationship::subset) {
    using Item = typename Relation::target;
    constexpr std::size_t parent = subset_parent_index<Item, T>();
    constexpr std::size_t order_index = member_index(Relation::order_key);
    constexpr std::size_t key_index = subset_key_index<Item>();
    constexpr std::int32_t direction = direction_value(Relation::order);
    out.kind = ImpliedKind::subset;
    out.collection = collection_name<Item>;
    out.keys[0] = {member<Item, parent>::stored_name, 1};
    out.keys[1] = {member<Item, order_index>::stored_name, direction};
    out.key_count = 2;
    if constexpr (key_index < members<Item>::size && key_index != order_index)
      out.keys[out.key_count++] = {member<Item, key_index>::stored_name, direction};  // breaks ties
  }
  return out;
}

template <class T>
inline constexpr auto implied_indexes = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<ImpliedIndex, sizeof...(I)>{implied_index<T, I>()...};
}(std::make_index_sequence<members<T>::size>{});

/// Adds `index` unless a planned index on its collection starts with the same keys.
void add_unless_covered(std::vector<IndexModel>& plan, IndexModel index);

template <class T>
void add_implied(std::vector<IndexModel>& plan) {
  add_implied_indexes(plan, collection_name<T>, model_type_name<T>, implied_indexes<T>);
}

}  // namespace detail

/// Every index models T needs: T's declared indexes, the indexes its ParentRef and
/// self-referencing RefMany members imply on T's collection, and the index each Subset
/// member implies on its items' collection.
template <class T>
std::vector<IndexModel> index_plan() {
  std::vector<IndexModel> plan;
  detail::add_declared<T>(plan);
  detail::add_implied<T>(plan);
  if constexpr (detail::written_previous_names<T>.size() > 0)
    detail::add_previous_name_indexes(plan, collection_name<T>, detail::written_previous_names<T>.data(),
                                      detail::written_previous_names<T>.size());
  return plan;
}

/// The plans of several models together (an index implied twice is planned once).
template <class... Models>
std::vector<IndexModel> index_plan_of() {
  std::vector<IndexModel> plan;
  (
      [&] {
        for (IndexModel& index : index_plan<Models>()) {
          if (index.declared)
            plan.push_back(std::move(index));
          else
            detail::add_unless_covered(plan, std::move(index));
        }
      }(),
      ...);
  return plan;
}

}  // namespace odm
