#pragma once
// Reverse counts: how many children each parent of a page has, without loading a child.
// The guides' one-to-squillions advice is never to read the children of a popular parent
// (a host's millions of log messages); a page of hosts that shows "12,403 messages" beside
// each needs only their number:
//
//   const odm::ChildCounts<Host> counts = odm::count_children(db, page, &LogMessage::host);
//   counts.of(host.id)   // std::int64_t; 0 for a host without messages
//   counts[i]            // the count of page[i]
//
// One aggregate per batch of parents, never one per parent:
//   [{$match: {host: {$in: [the page's distinct ids]}}}, {$group: {_id: "$host", n: {$sum: 1}}}]
// The ids are split like a join's (JoinOptions: at most max_ids_per_query ids and about
// max_query_bytes of them per command); the $match uses the index odm plans on every
// ParentRef field. Parents the server reports no group for count 0: a parent without
// children, or an id with no document in the parent collection (the count does not read
// the parents; a child that points at a missing parent still counts for its id). An
// empty page sends nothing.

#include <odm/bson/document.hpp>
#include <odm/driver/client.hpp>
#include <odm/driver/collection.hpp>
#include <odm/error.hpp>
#include <odm/join/gathered_ids.hpp>
#include <odm/join/join.hpp>
#include <odm/model/id.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace odm {

/// The number of children of each parent of a page (odm::count_children).
template <class Parent>
class ChildCounts {
 public:
  using id_type = id_type_t<Parent>;

  /// The count of the parent with this id (0 when it has no children). Throws
  /// odm::ValueError for an id that was not in the page.
  std::int64_t of(const id_type& id) const {
    const std::uint32_t slot = gathered_.slot_of(detail::reference_key(id));
    if (slot == detail::GatheredIds<key_type>::none)
      throw ValueError("ChildCounts::of: the parent " + detail::describe_id(detail::ReferenceId(detail::reference_key(id))) +
                       " was not in the page whose children were counted");
    return counts_[slot];
  }
  /// The count of the page's i-th parent (duplicates in the page included).
  /// Throws odm::UsageError past the end of the page.
  std::int64_t operator[](std::size_t i) const {
    if (i >= gathered_.slots.size())
      throw UsageError("ChildCounts[" + std::to_string(i) + "]: the page has " +
                       std::to_string(gathered_.slots.size()) + " parents");
    return counts_[gathered_.slots[i]];
  }
  /// The page's size, duplicates included.
  std::size_t size() const noexcept { return gathered_.slots.size(); }
  bool empty() const noexcept { return gathered_.slots.empty(); }
  /// One (parent id, count) per distinct parent, in the page's order.
  std::vector<std::pair<id_type, std::int64_t>> entries() const {
    std::vector<std::pair<id_type, std::int64_t>> all;
    all.reserve(ids_.size());
    for (std::size_t slot = 0; slot < ids_.size(); ++slot) all.emplace_back(ids_[slot], counts_[slot]);
    return all;
  }

 private:
  using key_type = detail::reference_key_t<id_type>;
  template <class P, class Child, class M, class Page>
  friend ChildCounts<P> count_children_of(const Database&, const std::vector<Page>&, M Child::*, const JoinOptions&);

  detail::GatheredIds<key_type> gathered_;  // the distinct ids, and each page entry's slot
  std::vector<id_type> ids_;                // by slot, as the page gave them
  std::vector<std::int64_t> counts_;        // by slot
};

namespace detail {

/// `{pipeline: [{$match: <in_filter>}, {$group: {_id: "$<field>", n: {$sum: 1}}}]}`.
Document count_pipeline(std::string_view field, const Document& in_filter);

/// The `n` of a `$group` row: an int32 or an int64 (MongoDB's `$sum` of ones).
std::int64_t group_count(const bson_t* row, std::string_view source);

}  // namespace detail

template <class Parent, class Child, class M, class Page>
ChildCounts<Parent> count_children_of(const Database& db, const std::vector<Page>& page, M Child::*member,
                                      const JoinOptions& options) {
  using id_type = id_type_t<Parent>;
  ChildCounts<Parent> result;
  result.gathered_.reserve(page.size());
  for (const Page& entry : page) {
    const id_type* id = nullptr;
    if constexpr (std::is_same_v<Page, Parent>)
      id = &id_of(entry);
    else
      id = &entry;
    const std::size_t before = result.gathered_.ids.size();
    result.gathered_.add(detail::reference_key(*id));
    if (result.gathered_.ids.size() != before) result.ids_.push_back(*id);
  }
  result.counts_.assign(result.ids_.size(), 0);
  if (result.ids_.empty()) return result;

  const std::string_view field = runtime_field_name(member);
  auto collection = db.collection<Child>();
  const std::string source = "aggregate on " + db.name() + "." + collection.name();
  const auto per_reply =
      static_cast<std::int32_t>(std::min<std::size_t>(result.ids_.size(), std::numeric_limits<std::int32_t>::max()));
  for (const Document& filter : detail::in_filters(field, result.gathered_.ids, options)) {
    // One row per parent of the batch that has children: all in the first reply.
    auto rows = collection.template aggregate_raw<Document>(detail::count_pipeline(field, filter),
                                                             AggregateOptions<Child>{}.batch_size(per_reply));
    for (const Document& row : rows) {
      bson_iter_t it;
      if (!bson_iter_init_find(&it, row.get(), "_id"))
        throw DecodeError("_id: missing from a $group row (" + source + ")");
      id_type id{};
      try {
        codec<id_type>::decode(it, id);
      } catch (const DecodeError& error) {
        detail::at_path("_id", [&] {
          DecodeError located(error.reason() + " (a $group row's parent id, " + source + ")");
          located.prepend_path_of(error);
          throw located;
        });
      }
      const std::uint32_t slot = result.gathered_.slot_of(detail::reference_key(id));
      // A row for an id outside the page can only come from a server that matched more
      // than asked (numbers of another type that compare equal map to the same key).
      if (slot != detail::GatheredIds<typename ChildCounts<Parent>::key_type>::none)
        result.counts_[slot] += detail::group_count(row.get(), source);
    }
  }
  return result;
}

/// The number of children of each parent of `page`: the documents of Child whose single
/// reference `member` (a ParentRef or Ref) points at it. `page` holds the parents, or
/// their ids. Costs one aggregate per batch of distinct parents (JoinOptions), none for
/// an empty page.
template <class Page, class Child, class M>
auto count_children(const Database& db, const std::vector<Page>& page, M Child::*member,
                    const JoinOptions& options = {}) {
  using relation = relation_of<M>;
  constexpr bool single =
      relation::kind == Relationship::reference || relation::kind == Relationship::parent_reference;
  static_assert(single,
                "odm::count_children: the member must be the child's single reference to its parent "
                "(odm::ParentRef or odm::Ref); a RefMany holds many parents: count the documents that "
                "list one id with collection.count and a filter on the member");
  if constexpr (single) {
    using Parent = typename relation::target;
    static_assert(std::is_same_v<Page, Parent> || std::is_same_v<Page, id_type_t<Parent>>,
                  "odm::count_children: the page must hold the referenced parents, or their ids");
    return count_children_of<Parent>(db, page, member, options);
  }
}

}  // namespace odm
