#pragma once
// Keeping both sides of an odm::Subset consistent (fields/subset.hpp):
//
//   odm::subset::add(db, &Product::reviews, product_id, review)
//     inserts the review into its collection (with product_id set), then updates the
//     product in ONE atomic update: $push {$each: [review], $sort: {published_date: -1},
//     $slice: 10}. Concurrent writers therefore leave the product holding exactly the 10
//     newest, whatever order their updates run in.
//   odm::subset::update(db, &Product::reviews, review)
//     replaces the review in its collection and its embedded copy (if embedded), then
//     restores the embedded order.
//   odm::subset::remove(db, &Product::reviews, review)
//     deletes it from its collection, pulls it from the product, and refills the
//     product's subset from the full collection.
//   odm::subset::repair(db, &Product::reviews, product_id)
//     rebuilds the product's subset from the full collection (one find, one update).

#include <odm/bson/document.hpp>
#include <odm/driver/client.hpp>
#include <odm/driver/collection.hpp>
#include <odm/fields/subset.hpp>
#include <odm/model/id.hpp>
#include <odm/query/expression.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace odm::subset {
namespace detail_subset {

using odm::detail::check_append;
using odm::detail::key_length;

template <class Owner, class T, std::size_t N, auto K, Keep W>
struct plan {
  using item = T;
  using subset_type = Subset<T, N, K, W>;
  static constexpr std::size_t parent_index = odm::detail::parent_ref_index<T, Owner>();
  static_assert(parent_index < odm::detail::member_count<T>,
                "odm::Subset: the item type needs an odm::ParentRef<Owner> member pointing back to its owner");
  static constexpr std::size_t key_index = odm::detail::subset_key_index<T>();
  static_assert(key_index < odm::detail::member_count<T>,
                "odm::Subset: say which member identifies an item: `static constexpr auto key = &Item::member;` "
                "in the item's model, or give the item an id");
  static constexpr std::size_t order_index = odm::detail::member_index(K);
  static constexpr std::string_view parent_field = stored_names<T, true>[parent_index];
  static constexpr std::string_view key_field = stored_names<T, true>[key_index];
  static constexpr std::string_view embedded_key_field = stored_names<T, false>[key_index];
  static constexpr std::string_view embedded_order_field = stored_names<T, false>[order_index];
  static constexpr std::string_view order_field = stored_names<T, true>[order_index];
  static constexpr std::int32_t direction = W == Keep::largest ? -1 : 1;

  using key_type = boost::pfr::tuple_element_t<key_index, T>;
  static const key_type& key_of(const T& item) { return boost::pfr::get<key_index>(item); }
  static auto& parent_of(T& item) { return boost::pfr::get<parent_index>(item); }
  static const auto& parent_of(const T& item) { return boost::pfr::get<parent_index>(item); }
};

template <class Value>
Document equals(std::string_view field, const Value& value) {
  Document filter;
  codec<Value>::encode(filter.get_mutable(), field, value);
  return filter;
}

/// `{ <field>: {$each: [items...], $sort: {<order>: dir}, $slice: N} }` under $push.
template <class Plan>
Document push_sorted(std::string_view field, const std::vector<typename Plan::item>& items, std::size_t capacity) {
  Document update;
  bson_t push, spec, each, sort;
  check_append(bson_append_document_begin(update.get_mutable(), "$push", 5, &push));
  check_append(bson_append_document_begin(&push, field.data(), key_length(field), &spec));
  check_append(bson_append_array_begin(&spec, "$each", 5, &each));
  std::uint32_t index = 0;
  for (const auto& item : items) {
    const odm::detail::ArrayKey key(index++);
    odm::detail::encode_embedded_item(&each, key.view(), item);
  }
  check_append(bson_append_array_end(&spec, &each));
  check_append(bson_append_document_begin(&spec, "$sort", 5, &sort));
  check_append(bson_append_int32(&sort, Plan::embedded_order_field.data(), key_length(Plan::embedded_order_field),
                                 Plan::direction));
  check_append(bson_append_document_end(&spec, &sort));
  check_append(bson_append_int64(&spec, "$slice", 6, static_cast<std::int64_t>(capacity)));
  check_append(bson_append_document_end(&push, &spec));
  check_append(bson_append_document_end(update.get_mutable(), &push));
  return update;
}

}  // namespace detail_subset

/// Adds `item` to its collection and to the subset of the owner `owner_id`. Returns
/// whether the owner exists (the item is stored either way).
template <class Owner, class T, std::size_t N, auto K, Keep W>
bool add(const Database& db, Subset<T, N, K, W> Owner::*member, const id_type_t<Owner>& owner_id, T item) {
  using plan = detail_subset::plan<Owner, T, N, K, W>;
  plan::parent_of(item) = std::remove_cvref_t<decltype(plan::parent_of(item))>(owner_id);
  db.collection<T>().insert_one(item);
  const std::string field(runtime_field_name(member));
  const auto result = db.collection<Owner>().update_one(
      Filter<Owner>::raw(detail_subset::equals("_id", owner_id)),
      Update<Owner>::raw(detail_subset::push_sorted<plan>(field, std::vector<T>{item}, N)));
  return result.matched == 1;
}

/// Rebuilds the owner's subset from the full collection: its N first items by the order key.
template <class Owner, class T, std::size_t N, auto K, Keep W>
void repair(const Database& db, Subset<T, N, K, W> Owner::*member, const id_type_t<Owner>& owner_id) {
  using plan = detail_subset::plan<Owner, T, N, K, W>;
  Document sort;
  detail_subset::check_append(bson_append_int32(sort.get_mutable(), plan::order_field.data(),
                                                detail_subset::key_length(plan::order_field), plan::direction));
  Document parent_filter;
  odm::detail::encode_reference_id(parent_filter.get_mutable(), plan::parent_field, odm::detail::ReferenceId(owner_id));
  std::vector<T> top = db.collection<T>()
                           .find(Filter<T>::raw(std::move(parent_filter)),
                                 FindOptions{}.sort(std::move(sort)).limit(static_cast<std::int64_t>(N)))
                           .to_vector();
  // $set: {field: [embedded items]}
  const std::string field(runtime_field_name(member));
  Document update;
  bson_t set, array;
  detail_subset::check_append(bson_append_document_begin(update.get_mutable(), "$set", 4, &set));
  detail_subset::check_append(bson_append_array_begin(&set, field.data(), detail_subset::key_length(field), &array));
  std::uint32_t index = 0;
  for (const T& item : top) {
    const odm::detail::ArrayKey key(index++);
    odm::detail::encode_embedded_item(&array, key.view(), item);
  }
  detail_subset::check_append(bson_append_array_end(&set, &array));
  detail_subset::check_append(bson_append_document_end(update.get_mutable(), &set));
  db.collection<Owner>().update_one(Filter<Owner>::raw(detail_subset::equals("_id", owner_id)),
                                    Update<Owner>::raw(std::move(update)));
}

/// Stores the edited `item` in its collection and, if the owner embeds it, in the owner
/// too (keeping the embedded order). The item's ParentRef names the owner.
template <class Owner, class T, std::size_t N, auto K, Keep W>
void update(const Database& db, Subset<T, N, K, W> Owner::*member, const T& item) {
  using plan = detail_subset::plan<Owner, T, N, K, W>;
  const auto owner_id = plan::parent_of(item).id();
  if (!owner_id) throw ValueError("odm::subset::update: the item's reference to its owner is null");
  db.collection<T>().replace_one(Filter<T>::raw(detail_subset::equals(plan::key_field, plan::key_of(item))), item);

  const std::string field(runtime_field_name(member));
  // {_id: owner, "<field>.<key>": key} -> {$set: {"<field>.$": embedded}}
  Document filter = detail_subset::equals("_id", *owner_id);
  const std::string embedded_key = field + "." + std::string(plan::embedded_key_field);
  codec<typename plan::key_type>::encode(filter.get_mutable(), embedded_key, plan::key_of(item));
  Document set;
  bson_t fields;
  detail_subset::check_append(bson_append_document_begin(set.get_mutable(), "$set", 4, &fields));
  odm::detail::encode_embedded_item(&fields, field + ".$", item);
  detail_subset::check_append(bson_append_document_end(set.get_mutable(), &fields));
  const auto result = db.collection<Owner>().update_one(Filter<Owner>::raw(std::move(filter)),
                                                        Update<Owner>::raw(std::move(set)));
  if (result.matched == 0) return;  // not among the embedded ones
  // The order key may have changed: re-sort (an empty $each with $sort and $slice).
  db.collection<Owner>().update_one(Filter<Owner>::raw(detail_subset::equals("_id", *owner_id)),
                                    Update<Owner>::raw(detail_subset::push_sorted<plan>(field, {}, N)));
}

/// Deletes `item` from its collection and from its owner's subset, then refills the
/// subset from the full collection.
template <class Owner, class T, std::size_t N, auto K, Keep W>
void remove(const Database& db, Subset<T, N, K, W> Owner::*member, const T& item) {
  using plan = detail_subset::plan<Owner, T, N, K, W>;
  const auto owner_id = plan::parent_of(item).id();
  if (!owner_id) throw ValueError("odm::subset::remove: the item's reference to its owner is null");
  db.collection<T>().delete_one(Filter<T>::raw(detail_subset::equals(plan::key_field, plan::key_of(item))));
  const std::string field(runtime_field_name(member));
  Document pull;
  bson_t fields, condition;
  detail_subset::check_append(bson_append_document_begin(pull.get_mutable(), "$pull", 5, &fields));
  detail_subset::check_append(bson_append_document_begin(&fields, field.data(), detail_subset::key_length(field), &condition));
  codec<typename plan::key_type>::encode(&condition, plan::embedded_key_field, plan::key_of(item));
  detail_subset::check_append(bson_append_document_end(&fields, &condition));
  detail_subset::check_append(bson_append_document_end(pull.get_mutable(), &fields));
  db.collection<Owner>().update_one(Filter<Owner>::raw(detail_subset::equals("_id", *owner_id)),
                                    Update<Owner>::raw(std::move(pull)));
  repair(db, member, *owner_id);
}

}  // namespace odm::subset
