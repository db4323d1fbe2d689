#pragma once
// Keeping both sides of an odm::Subset consistent (fields/subset.hpp):
//
//   odm::subset::add(db, &Product::reviews, product_id, review)
//     inserts the review into its collection (with product_id set) and pushes it into the
//     product: $push {$each: [review], $sort: {published_date: -1, review_id: -1}, $slice: 10}.
//   odm::subset::update(db, &Product::reviews, review)
//     replaces the review (matched by owner AND key) in its collection.
//   odm::subset::remove(db, &Product::reviews, review)
//     deletes the review (matched by owner and key) from its collection.
//   odm::subset::repair(db, &Product::reviews, product_id)
//     changes nothing in the full collection.
// Each then settles the owner, and returns once the owner is exact.
//
// The promise: once the operations have returned, whatever their interleaving and however
// many processes ran them, every owner embeds exactly the N first items of its full
// collection by the order key (ties broken by the item key, in the same direction), with
// their current content. Items are identified by owner and key: two owners may each have
// an item keyed 77.
//
// Settling, and why it keeps the promise. An operation settles its owner by reading the
// owner's embedded array E and then, after it, the N first items D of the full collection
// (one find that reads N entries of the index odm plans on owner, order key and item key).
// If D and E are the same BSON, it is done. Otherwise it writes D with a guarded update,
// `{_id: owner, reviews: E} -> {$set: {reviews: D}}`, which matches only while the array
// is still exactly E: when another writer got in between, it reads the owner again and
// retries (after a short random pause). After a write that matched it reads the full
// collection again and repeats until a read finds the owner's array equal to it. So every
// operation ends on a check: "the owner held E at a moment a, and a read of the full
// collection after a gave E". Take the last write to the owner (at s) and the last write
// to the full collection (at c), made by an operation W. W's final check came after c. If
// its moment a was after s, the owner held its final array then and the read after it saw
// the final collection: the final array is exact. If a was before s, then s came after c,
// and the operation that wrote at s made its own final check after s, when the owner
// already held the final array and the collection was final: exact again. Nothing here
// relies on the guard; it keeps a stale array from overwriting a newer one in between.
// The argument needs every operation to return (an operation that throws half-way, e.g.
// after a network error, leaves the owner to the next operation on it or to `repair`) and
// reads that see every acknowledged write: MongoDB's default, reads and writes on the
// primary. `{_id, reviews: E}` uses MongoDB's documented exact-array equality match.
//
// Cost: add is 5 commands (the duplicate check, insert, $push, 2 reads), update and remove
// 5 (write, 2 reads, the guarded update, 1 read), repair of an exact owner 2. A lost race
// costs one more round; an operation gives up after SubsetOptions::max_attempts rounds with
// odm::SubsetConflict (the full collection then holds its change; `repair` finishes it).

#include <odm/bson/document.hpp>
#include <odm/bson/writer.hpp>
#include <odm/driver/client.hpp>
#include <odm/driver/collection.hpp>
#include <odm/error.hpp>
#include <odm/fields/subset.hpp>
#include <odm/model/id.hpp>
#include <odm/query/expression.hpp>
#include <odm/query/filter.hpp>
#include <odm/query/update.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace odm {

/// A Subset operation lost the race against concurrent writers of the same owner more
/// often than SubsetOptions::max_attempts allows. The item's own collection holds the
/// operation's change; `odm::subset::repair` brings the owner up to date.
class SubsetConflict : public Error {
 public:
  using Error::Error;
};

/// Limits of the settling loop of a Subset operation (odm::subset::add, update, remove, repair).
struct SubsetOptions {
  /// At most this many rounds of "read the owner, read the full collection, write the
  /// owner if they differ" per operation.
  std::size_t max_attempts = 100;
  /// The longest pause after a lost race (random, doubling from 1 ms up to this).
  std::chrono::milliseconds max_backoff{20};
};

namespace detail::subsets {

using odm::detail::check_append;
using odm::detail::key_length;

/// Test-only: run by the calling thread's next settling round right after it read the full
/// collection, before it compares and writes; cleared before it runs. Lets a test force
/// an interleaving deterministically.
inline thread_local std::function<void()> after_full_read;

template <class Owner, class T, std::size_t N, auto K, Direction W>
struct plan {
  using item = T;
  using subset_type = Subset<T, N, K, W>;
  static constexpr std::size_t parent_index = odm::detail::subset_parent_index<T, Owner>();
  static constexpr std::size_t key_index = odm::detail::subset_key_index<T>();
  static_assert(key_index < members<T>::size,
                "odm::Subset: say which member identifies an item: `static constexpr auto key = &Item::member;` "
                "in the item's model, or give the item an id");
  static constexpr std::size_t order_index = odm::detail::member_index(K);
  static constexpr std::string_view parent_field = stored_names<T, true>[parent_index];
  static constexpr std::string_view key_field = stored_names<T, true>[key_index];
  static constexpr std::string_view embedded_key_field = stored_names<T, false>[key_index];
  static constexpr std::string_view embedded_order_field = stored_names<T, false>[order_index];
  static constexpr std::string_view order_field = stored_names<T, true>[order_index];
  static constexpr std::size_t capacity = N;

  using key_type = boost::pfr::tuple_element_t<key_index, T>;
  static const key_type& key_of(const T& item) { return boost::pfr::get<key_index>(item); }
  static auto& parent_of(T& item) { return boost::pfr::get<parent_index>(item); }
  static const auto& parent_of(const T& item) { return boost::pfr::get<parent_index>(item); }

  /// The order of the subset: the order key, ties broken by the item key the same way.
  static std::vector<std::pair<std::string, Direction>> order(std::string_view order_name, std::string_view key_name) {
    std::vector<std::pair<std::string, Direction>> keys{{std::string(order_name), W}};
    if constexpr (key_index != order_index) keys.emplace_back(std::string(key_name), W);
    return keys;
  }
  /// The order of the full collection, as a find's sort.
  static Sort<T> full_order() {
    return odm::detail::QueryAccess::make<Sort<T>>(odm::detail::SortExpr{order(order_field, key_field), std::nullopt});
  }
};

/// `{$push: {<field>: {$each: [items...], $sort: {<order>: dir, <key>: dir}, $slice: N}}}`,
/// written by the update builder's own `$push` (each item as the owner embeds it).
template <class Owner, class Plan>
Update<Owner> push_sorted(std::string_view field, const std::vector<typename Plan::item>& items, std::size_t capacity) {
  static_assert(Plan::capacity <= static_cast<std::size_t>(INT32_MAX),
                "odm::Subset: the capacity must fit $slice's 32-bit integer");
  Document each;
  std::uint32_t index = 0;
  for (const auto& item : items) odm::detail::encode_embedded_item(each.get_mutable(), ArrayKey(index++).view(), item);
  odm::detail::EachModifiers modifiers;
  modifiers.slice = static_cast<std::int32_t>(capacity);
  modifiers.sort_keys = Plan::order(Plan::embedded_order_field, Plan::embedded_key_field);
  odm::detail::UpdateExpr expr;
  expr.entries.push_back(odm::detail::UpdateEntry{"$push", std::string(field), std::move(each), nullptr, std::move(modifiers)});
  return odm::detail::QueryAccess::make<Update<Owner>>(std::move(expr));
}

/// An owner's embedded array as one value, `{"": [...]}` (compared byte for byte), or
/// `present == false` when the owner has no such field.
struct EmbeddedArray {
  bool present = false;
  Document value;
  bool operator==(const Document& other) const { return present && value == other; }
};

/// Reads the owner's embedded array into `out`; false when there is no such owner.
template <class Owner>
bool read_owner(const Collection<Owner>& owners, const Document& owner_filter, std::string_view field,
                EmbeddedArray& out) {
  Document projection;
  check_append(bson_append_int32(projection.get_mutable(), field.data(), key_length(field), 1));
  const std::optional<Document> owner =
      owners.template find_one<Document>(Filter<Owner>::raw(owner_filter), FindOptions<Owner>{}.projection(Projection<Owner, Document>::raw(std::move(projection))));
  if (!owner) return false;
  out = EmbeddedArray{};
  bson_iter_t it;
  if (bson_iter_init_find_w_len(&it, owner->get(), field.data(), key_length(field))) {
    out.present = true;
    check_append(bson_append_iter(out.value.get_mutable(), "", 0, &it));
  }
  return true;
}

/// `{"": [the embedded form of each item]}`.
template <class T>
Document embedded_array(const std::vector<T>& items) {
  Document value;
  ChildWriter array(value.get_mutable(), "", ChildWriter::Kind::array);
  for (const T& item : items) odm::detail::encode_embedded_item(array.get(), ArrayKey(array.next_index()).view(), item);
  array.close();
  return value;
}

/// `{_id: owner, <field>: E}` (exact array equality), or `<field>: {$exists: false}`.
template <class Owner>
Filter<Owner> guarded(const Document& owner_filter, std::string_view field, const EmbeddedArray& expected) {
  using odm::detail::ConditionOp;
  odm::detail::FilterExpr condition;
  if (expected.present) {
    condition = odm::detail::condition_node(ConditionOp::eq, std::string(field), expected.value);
  } else {
    Document absent;
    check_append(bson_append_bool(absent.get_mutable(), "", 0, false));
    condition = odm::detail::condition_node(ConditionOp::exists, std::string(field), std::move(absent));
  }
  return odm::detail::QueryAccess::make<Filter<Owner>>(
      odm::detail::all_of(odm::detail::raw_filter_node(owner_filter), condition));
}

/// `{$set: {<field>: [items]}}` (`array` is `{"": [items]}`).
template <class Owner>
Update<Owner> set_array(std::string_view field, const Document& array) {
  odm::detail::UpdateExpr expr;
  expr.entries.push_back(odm::detail::UpdateEntry{"$set", std::string(field), array, nullptr, std::nullopt});
  return odm::detail::QueryAccess::make<Update<Owner>>(std::move(expr));
}

/// A random pause before retrying a lost race: up to 1 ms << attempt, at most `longest`.
void back_off(std::size_t attempt, std::chrono::milliseconds longest);  // join.cpp

/// Makes the owner's embedded array the N first items of its full collection, as the
/// header explains. Returns whether the owner exists.
template <class Owner, class T, std::size_t N, auto K, Direction W>
bool settle(const Database& db, Subset<T, N, K, W> Owner::*member, const id_type_t<Owner>& owner_id,
            const SubsetOptions& options, std::string_view operation) {
  using plan = detail::subsets::plan<Owner, T, N, K, W>;
  auto owners = db.collection<Owner>();
  auto items = db.collection<T>();
  const std::string_view field = runtime_field_name(member);
  const Document owner_filter = id_filter(owner_id);
  const Document items_filter = equals_filter(plan::parent_field, owner_id);

  EmbeddedArray owner_array;  // what the owner held at a known moment, when `known`
  bool known = false;
  for (std::size_t attempt = 0; attempt < options.max_attempts; ++attempt) {
    if (!known) {
      if (!read_owner(owners, owner_filter, field, owner_array)) return false;  // no such owner
      known = true;
    }
    // Read strictly after the moment owner_array describes.
    const Document wanted = embedded_array(
        items.find(Filter<T>::raw(items_filter), FindOptions<T>{}.sort(plan::full_order()).limit(static_cast<std::int64_t>(N)))
            .to_vector());
    if (auto hook = std::exchange(after_full_read, nullptr)) hook();
    if (owner_array == wanted) return true;
    const auto written =
        owners.update_one(guarded<Owner>(owner_filter, field, owner_array), set_array<Owner>(field, wanted));
    if (written.matched == 1) {
      owner_array = EmbeddedArray{true, wanted};  // the owner holds it now: check it against a fresh read
    } else {
      known = false;  // another writer got in between (or the owner is gone): read it again
      back_off(attempt, options.max_backoff);
    }
  }
  throw SubsetConflict("subset::" + std::string(operation) + ": the subset " + std::string(field) + " of " +
                       odm::detail::describe_id(odm::detail::to_reference_id(owner_id)) + " in collection " +
                       owners.name() + " kept changing under concurrent writers; gave up after " +
                       std::to_string(options.max_attempts) + " attempts (SubsetOptions::max_attempts). Collection " +
                       items.name() + " holds the change; odm::subset::repair brings the owner up to date.");
}

/// `{<parent>: owner, <key>: key}`: an item is identified by its owner and its key.
template <class Plan>
Filter<typename Plan::item> item_filter(const typename Plan::item& item, std::string_view operation) {
  const auto& parent = Plan::parent_of(item);
  if (!parent.has_parent())
    throw ValueError("subset::" + std::string(operation) + ": the item's reference to its owner is null");
  Document filter;
  odm::detail::encode_reference_id(filter.get_mutable(), Plan::parent_field, odm::detail::Access::raw_id(parent));
  codec<typename Plan::key_type>::encode(filter.get_mutable(), Plan::key_field, Plan::key_of(item));
  return Filter<typename Plan::item>::raw(std::move(filter));
}

}  // namespace detail::subsets

namespace subset {

/// Adds `item` to its collection and to the subset of the owner `owner_id`. Returns
/// whether the owner exists (the item is stored either way). Throws odm::ValueError, and
/// stores nothing, when the owner already has an item with this key.
template <class Owner, class T, std::size_t N, auto K, Direction W>
bool add(const Database& db, Subset<T, N, K, W> Owner::*member, const id_type_t<Owner>& owner_id, T item,
         const SubsetOptions& options = {}) {
  using plan = detail::subsets::plan<Owner, T, N, K, W>;
  plan::parent_of(item) = std::remove_cvref_t<decltype(plan::parent_of(item))>(owner_id);
  auto items = db.collection<T>();
  // An item is its owner and key: a second one (a retried add, say) would be embedded
  // twice, and update/remove would act on one copy only. Checked before the insert: two
  // adds of one key at the same moment can both pass (only a unique index closes that).
  const Filter<T> same_item = detail::subsets::item_filter<plan>(item, "add");
  if (items.count(same_item, CountOptions<T>{}.limit(1)) != 0)
    throw ValueError("subset::add: the owner " + odm::detail::describe_id(odm::detail::to_reference_id(owner_id)) +
                     " already has an item " + same_item.bson().to_json() + " in collection " + items.name() +
                     "; change it with subset::update");
  items.insert_one(item);
  // Usually the only write the owner needs: one atomic $push that keeps the N first. Not
  // when the item is embedded already (a concurrent refill read it).
  const std::string_view field = runtime_field_name(member);
  std::string embedded_key = std::string(field) + "." + std::string(plan::embedded_key_field);
  Document key;
  codec<typename plan::key_type>::encode(key.get_mutable(), embedded_key, plan::key_of(item));
  const auto not_embedded = odm::detail::QueryAccess::make<Filter<Owner>>(
      odm::detail::condition_node(odm::detail::ConditionOp::ne, std::move(embedded_key), std::move(key)));
  db.collection<Owner>().update_one(Filter<Owner>::raw(detail::id_filter(owner_id)) && not_embedded,
                                    detail::subsets::push_sorted<Owner, plan>(field, {item}, N));
  return detail::subsets::settle(db, member, owner_id, options, "add");
}

/// Brings the owner's subset up to date with the full collection: its N first items by the
/// order key. Returns whether the owner exists.
template <class Owner, class T, std::size_t N, auto K, Direction W>
bool repair(const Database& db, Subset<T, N, K, W> Owner::*member, const id_type_t<Owner>& owner_id,
            const SubsetOptions& options = {}) {
  return detail::subsets::settle(db, member, owner_id, options, "repair");
}

/// Stores the edited `item` in its collection, in place of the item with the same owner
/// (its ParentRef) and key, then brings the owner's subset up to date: the item moves in,
/// moves within, or falls out of it (and the next one in) as its order key says. Returns
/// whether the item was found in its collection (nothing is inserted when it was not).
template <class Owner, class T, std::size_t N, auto K, Direction W>
bool update(const Database& db, Subset<T, N, K, W> Owner::*member, const T& item, const SubsetOptions& options = {}) {
  using plan = detail::subsets::plan<Owner, T, N, K, W>;
  const auto replaced = db.collection<T>().replace_one(detail::subsets::item_filter<plan>(item, "update"), item);
  detail::subsets::settle(db, member, *plan::parent_of(item).id(), options, "update");
  return replaced.matched == 1;
}

/// Deletes the item with `item`'s owner and key from its collection, then brings the
/// owner's subset up to date (the next item moves in). Returns whether it was found.
template <class Owner, class T, std::size_t N, auto K, Direction W>
bool remove(const Database& db, Subset<T, N, K, W> Owner::*member, const T& item, const SubsetOptions& options = {}) {
  using plan = detail::subsets::plan<Owner, T, N, K, W>;
  const auto deleted = db.collection<T>().delete_one(detail::subsets::item_filter<plan>(item, "remove"));
  detail::subsets::settle(db, member, *plan::parent_of(item).id(), options, "remove");
  return deleted.deleted == 1;
}

}  // namespace subset
}  // namespace odm
