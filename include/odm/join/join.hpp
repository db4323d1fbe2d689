#pragma once
// Application-level joins that never fall into N+1.
//
//   std::vector<Book> books = db.collection<Book>().find(filter).to_vector();
//   odm::resolve(db, books, odm::with(&Book::publisher_id));            // 1 find for all books
//   odm::resolve(db, students, odm::with(&Student::courses,            // 1 find for the courses,
//                                        odm::with(&Course::department)));  // 1 more for their departments
//   odm::resolve(db, orders, odm::with(&Order::items,                  // no find: looks into the items
//                                      odm::with(&LineItem::product)));  // 1 find for all their products
//
// A path goes through embedded documents by naming the member that holds them, with the
// relations inside them nested: Embedded<T> or a plain struct, std::optional, std::vector,
// std::array, std::map values and Subset items, at any depth (join/embedded_paths.hpp).
// References behind such containers (a std::map of Refs) are resolved the same way. The
// ids of every embedded document of the whole result set are gathered together, so each
// relation still costs one query per level, however deep it lies.
//
// For each relation and level odm gathers the ids of the whole result set, removes
// duplicates, fetches the targets with `{_id: {$in: [...]}}` (split so that no command
// nears MongoDB's 16 MiB limit or JoinOptions::max_ids_per_query), and assigns them back
// to every reference, in each document's own order, duplicates included. A target that
// many documents point at is decoded once and shared (std::shared_ptr<const T>).
//
// Targets missing from their collection are handled by the reference's Dangling policy
// (fields/ref.hpp): keep (unresolved, with its id), drop (inner join), raise. Under drop, a
// dangling Ref or ParentRef inside an embedded document leaves out the result document it
// lies in, never the embedded document itself (saving the document would lose it). A nested
// relation acts on the fetched targets' own references and never removes a target: under
// `drop`, a RefMany of a target forgets its missing ids, and a Ref or ParentRef of a target
// stays dangling (the target is still what the outer reference points at).
//
// A document that does not fit its model throws its DecodeError, at the base query and at
// every level, unless the query says to skip it: `find(filter).skip_bad_documents()
// .with(...)`, or JoinOptions::bad_documents = BadDocuments::skip for odm::resolve. Each
// skipped document is then reported with its `_id` and error (Resolved::skipped(), or
// what resolve() returns); a base document is left out of the result, and a target that
// was skipped counts as missing, so the references to it follow their Dangling policy
// (keep: dangling with its id; drop: left out; raise: DanglingReference). The server's
// data is never changed.

#include <odm/bson/document.hpp>
#include <odm/bson/writer.hpp>
#include <odm/driver/client.hpp>
#include <odm/driver/collection.hpp>
#include <odm/driver/cursor.hpp>
#include <odm/fields/ref.hpp>
#include <odm/join/embedded_paths.hpp>
#include <odm/join/gathered_ids.hpp>
#include <odm/join/lookup_results.hpp>
#include <odm/join/newest_children.hpp>
#include <odm/model/id.hpp>
#include <odm/query/expression.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace odm {

namespace detail {
struct SkipReport;
}

/// Where a join runs: one find per relation and level, the client putting the targets in
/// place (`client`), or one aggregate whose `$lookup` stages bring every level's targets
/// with each result document (`server`, odm::find_joined only: join/lookup.hpp).
enum class JoinSide { client, server };

/// Limits of the queries a join sends, and what it does with a document that does not fit.
struct JoinOptions {
  /// At most this many ids in one `$in` (a 100,000-id join is split in ceil(100000 / n) finds).
  std::size_t max_ids_per_query = 50'000;
  /// At most this many bytes of ids in one query; far below the 16 MiB command limit.
  std::size_t max_query_bytes = 8 * 1024 * 1024;
  /// A fetched target that does not fit its model, at any level: `raise` throws its
  /// DecodeError (the default); `skip` leaves it out and reports it (odm::resolve returns
  /// the list, Resolved::skipped() holds it), and each reference to it then follows its
  /// Dangling policy as if the target were missing.
  BadDocuments bad_documents = BadDocuments::raise;
  /// Where odm::find_joined runs the join (join/lookup.hpp). odm::resolve and
  /// Cursor::with join documents already read, on the client: they refuse `server`, and
  /// so do children_of and the tree walks, whose own queries are all their work (no join
  /// on the client that a `$lookup` could take over).
  JoinSide side = JoinSide::client;

 private:
  friend struct detail::SkipReport;
  std::vector<SkippedDocument>* skipped_ = nullptr;  // where `skip` reports, set by resolve
  detail::LookupResults* lookup_ = nullptr;          // the targets `$lookup` brought, set by find_joined
  // Some documents the step acts on were fetched by a find, not by the `$lookup`, so the
  // pools lack their references' targets (detail::lookup_targets).
  bool beyond_lookup_ = false;
};

namespace detail {
/// Where a join reports the documents it skipped: options point at the list of the running
/// resolve() or Resolved, never stored with it (a Resolved moves).
struct SkipReport {
  static JoinOptions into(const JoinOptions& options, std::vector<SkippedDocument>& skipped) {
    JoinOptions reporting = options;
    reporting.skipped_ = &skipped;
    return reporting;
  }
  /// Skipping needs a list to report into: without one (children_of, tree walks) the
  /// cursor throws, as by default.
  template <class T>
  static void prepare(const JoinOptions& options, Cursor<T>& cursor) {
    if (options.bad_documents == BadDocuments::skip && options.skipped_ != nullptr) cursor.skip_bad_documents();
  }
  template <class T>
  static void add(const JoinOptions& options, Cursor<T>&& cursor) {
    if (options.skipped_ == nullptr) return;
    for (SkippedDocument& skipped : std::move(cursor).skipped()) options.skipped_->push_back(std::move(skipped));
  }
  /// Where the documents that do not fit go when they are skipped; null when they throw.
  static std::vector<SkippedDocument>* skipping(const JoinOptions& options) noexcept {
    return options.bad_documents == BadDocuments::skip ? options.skipped_ : nullptr;
  }
  /// How a server-side join's step reports a target that does not fit: empty when it throws.
  static ReportBad reporter(const JoinOptions& options) {
    if (options.bad_documents != BadDocuments::skip || options.skipped_ == nullptr) return {};
    return [list = options.skipped_](SkippedDocument skipped) { list->push_back(std::move(skipped)); };
  }
  /// The server-side join's results that the fetch steps read instead of sending finds.
  static JoinOptions with_lookup(const JoinOptions& options, LookupResults& results) {
    JoinOptions reading = options;
    reading.lookup_ = &results;
    return reading;
  }
  static LookupResults* lookup(const JoinOptions& options) noexcept { return options.lookup_; }
  /// For the nested steps of a server-side step that fetched some targets by a find.
  static JoinOptions beyond_lookup(const JoinOptions& options) {
    JoinOptions reading = options;
    reading.beyond_lookup_ = true;
    return reading;
  }
  static bool is_beyond_lookup(const JoinOptions& options) noexcept { return options.beyond_lookup_; }
  /// odm::resolve and Cursor::with join documents already on the client.
  static void require_client_side(const JoinOptions& options, std::string_view who);
  /// children_of and the tree walks: their own queries are the whole work, so there is
  /// no join a `$lookup` could take over; they refuse `server` rather than ignore it.
  static void refuse_server_side(const JoinOptions& options, std::string_view who);
};
}  // namespace detail

namespace detail {

/// The relation of a member of type M, when it is a reference (Ref, ParentRef, RefMany).
template <class M>
inline constexpr bool is_reference_member = is_reference_leaf<M>;

/// Whether a member of type M is a reference to documents of Target.
template <class M, class Target>
inline constexpr bool is_reference_to = [] {
  if constexpr (is_reference_member<M>)
    return std::is_same_v<typename relation_of<M>::target, Target>;
  else
    return false;
}();

/// Calls fn(id) for every id a reference member holds (none for a null ParentRef).
template <class M, class Fn>
void for_each_reference_id(const M& reference, Fn&& fn) {
  if constexpr (relation_of<M>::many) {
    for (const auto& id : detail::Access::raw_ids(reference)) fn(id);
  } else {
    if (!std::holds_alternative<std::monostate>(detail::Access::raw_id(reference))) fn(detail::Access::raw_id(reference));
  }
}

/// Appends an id to a filter or array: a reference's id as the variant holds it, or a
/// model's id through its codec.
template <class Id>
void append_id(bson_t* parent, std::string_view key, const Id& id) {
  if constexpr (std::is_same_v<Id, ReferenceId>)
    encode_reference_id(parent, key, id);
  else if constexpr (std::is_same_v<Id, EncodedId>)
    id.append_to(parent, key);
  else
    codec<Id>::encode(parent, key, id);
}

/// A join's ids without their type, so that building the `$in` filters and sending the
/// finds is compiled once in odm/join/join.cpp instead of once per model and id type:
/// `append(list, key, ids, i)` writes id i of `ids` into an array.
struct IdList {
  const void* ids = nullptr;
  std::size_t count = 0;
  void (*append)(bson_t* list, std::string_view key, const void* ids, std::size_t i) = nullptr;
};
template <class Id>
IdList id_list(const std::vector<Id>& ids) noexcept {
  return IdList{&ids, ids.size(), [](bson_t* list, std::string_view key, const void* all, std::size_t i) {
                  append_id(list, key, (*static_cast<const std::vector<Id>*>(all))[i]);
                }};
}

/// `{<field>: {$in: [ids...]}}` filters over `ids`, each within the options' limits: at most
/// `max_ids_per_query` ids, and an id list of at most about `max_query_bytes` (at least one
/// id each).
std::vector<Document> in_filters(std::string_view field, const IdList& ids, const JoinOptions& options);
template <class Id>
std::vector<Document> in_filters(std::string_view field, const std::vector<Id>& ids, const JoinOptions& options) {
  return in_filters(field, id_list(ids), options);
}

/// The finds of fetch_where_in, on raw documents: one per filter of in_filters, sorted by
/// `sort` (unless empty), each document read handed to `into`. A document that does not
/// fit throws its DecodeError, located, or with BadDocuments::skip is reported into the
/// running resolve's list (as Cursor::skip_bad_documents does).
void find_where_in(const CollectionCore& collection, std::string_view field, const IdList& ids,
                   const JoinOptions& options, const Document& sort, DecodeInto into);

/// Every document of `collection` whose `field` is one of `ids`, in as few finds as the
/// limits allow.
template <class T, class Id>
std::vector<T> fetch_where_in(const Collection<T>& collection, std::string_view field, const std::vector<Id>& ids,
                              const JoinOptions& options, const Document& sort = Document()) {
  std::vector<T> found;
  if (ids.empty()) return found;
  found.reserve(ids.size());
  find_where_in(Access::core(collection), field, id_list(ids), options, sort, decode_into(found));
  return found;
}

/// The targets of a fetch step of a server-side join: those its `$lookup` brought, then,
/// for the ids it brought none for, those the client form's `$in` finds, in one batched
/// find (none when nothing is missing). `$lookup` compares the stored reference with the
/// stored `_id`; the client form decodes the reference and sends its codec's encoding.
/// For the built-in id types both compare alike (MongoDB compares numbers by value), so
/// a missing target is dangling, unless some documents the step acts on came from such a
/// find and so were never looked up (`beyond_lookup`). An id of a user type (a
/// sub-document, EncodedId) may be stored in another form than its codec writes (fields
/// in another order, a field the codec ignores), which MongoDB compares as another value:
/// its missing ids are always asked for, so the server form never calls dangling an id the
/// client form resolves, nor resolves one the client form does not (pooled_targets).
/// `fetched` tells whether the find brought any target.
template <class Target, class Id>
std::vector<Target> lookup_targets(const Database& db, LookupResults& results, const GatheredIds<Id>& gathered,
                                   const JoinOptions& options, bool& fetched) {
  std::vector<char> seen;
  std::vector<Target> targets =
      pooled_targets<Target>(results, results.take(), gathered, SkipReport::reporter(options), seen);
  fetched = false;
  if (!std::is_same_v<Id, EncodedId> && !SkipReport::is_beyond_lookup(options)) return targets;
  std::vector<Id> missing;
  for (std::size_t slot = 0; slot < seen.size(); ++slot)
    if (!seen[slot]) missing.push_back(gathered.ids[slot]);
  if (missing.empty()) return targets;
  const std::size_t pooled = targets.size();
  find_where_in(Access::core(db.collection<Target>()), "_id", id_list(missing), options, Document(),
                decode_into(targets));
  fetched = targets.size() > pooled;
  return targets;
}

/// Which result documents a relation leaves out (a dangling Ref or ParentRef under
/// `drop`). The flags exist only once something was dropped, so a join that drops
/// nothing neither allocates nor scans them.
struct DropFlags {
  std::size_t documents = 0;
  std::vector<char> flags;

  void drop(std::uint32_t document) {
    if (flags.empty()) flags.resize(documents);
    flags[document] = 1;
  }
};

/// Pointers to documents, indexed as the documents themselves (JoinSet::with_items).
template <class T>
struct Pointed {
  const std::vector<T*>* items;
  std::size_t size() const noexcept { return items->size(); }
  T& operator[](std::size_t i) const noexcept { return *(*items)[i]; }
};

/// The documents one step of a join acts on: the result's documents, the targets an outer
/// level fetched, or documents embedded anywhere inside either. Each knows the result
/// document it lies in, so that a dangling Ref or ParentRef under `drop` leaves that
/// document out; in targets (`dropped` null) nothing is ever left out.
template <class T>
struct JoinSet {
  /// A whole vector of documents is used in place (no pointer per document)...
  std::span<T> whole;
  /// ...embedded documents through a pointer each (`whole` then empty).
  std::vector<T*> items;
  /// The result document of each of `items`; empty when item i is document i.
  std::vector<std::uint32_t> roots;
  /// Null for the targets of an outer level.
  DropFlags* dropped = nullptr;
  /// The stored path from a result document to the items ("items", "items.options"), empty
  /// at the top: where a reference lies, for messages.
  std::string path;

  /// Calls act(items) with the items as one indexable range (items[i] is a T&): the whole
  /// vector's span, or the embedded documents through their pointers. The top level thus
  /// pays no pointer per document; each step keeps its loop in a function of its own
  /// (gather_ids_in, ...), which GCC compiles as tightly as a loop over the vector.
  template <class Act>
  auto with_items(Act&& act) const {
    if (items.empty()) return act(whole);
    return act(Pointed<T>{&items});
  }
  std::uint32_t root(std::size_t i) const noexcept {
    return roots.empty() ? static_cast<std::uint32_t>(i) : roots[i];
  }
  void drop(std::size_t i) {
    if (dropped != nullptr) dropped->drop(root(i));
  }
  /// The name of a member of the items in messages: its stored name, under the path.
  std::string where(std::string_view field, std::string_view nested_field) const {
    return path.empty() ? std::string(field) : path + "." + std::string(nested_field);
  }

  static JoinSet of(std::vector<T>& documents, DropFlags* dropped) {
    JoinSet set;
    set.whole = documents;
    set.dropped = dropped;
    return set;
  }
};

template <class T>
using RelationStep = std::function<void(const Database&, JoinSet<T>&, const JoinOptions&)>;

/// Leaves out, in order, the documents a relation flagged (nothing to do when none was).
template <class T>
void erase_dropped(std::vector<T>& documents, const DropFlags& dropped) {
  if (dropped.flags.empty()) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    if (dropped.flags[i]) continue;
    if (kept != i) documents[kept] = std::move(documents[i]);
    ++kept;
  }
  documents.erase(documents.begin() + static_cast<std::ptrdiff_t>(kept), documents.end());
}

}  // namespace detail

/// One odm::with() as data (Relation<T>::step()): what it reads, through which containers,
/// from which collection, and what it does next. Everything a server-side form (`$lookup`)
/// needs to express the same join.
struct JoinStep {
  JoinStep() = default;
  // Copied, moved and destroyed in the library (odm/join/join.cpp): compiled once, not in every file.
  JoinStep(const JoinStep&);
  JoinStep(JoinStep&&) noexcept;
  JoinStep& operator=(const JoinStep&);
  JoinStep& operator=(JoinStep&&) noexcept;
  ~JoinStep();

  enum class Action {
    fetch,        ///< the member holds references: fetch their targets (one `$in` per batch)
    look_inside,  ///< the member holds embedded documents: resolve the nested steps in them
  };
  Action action = Action::fetch;
  /// The member's stored name at the top level of a document, and inside an embedded one
  /// (they differ for a member stored as `_id`).
  std::string_view field;
  std::string_view nested_field;
  /// The containers between the member and what it holds, outermost first (an array is
  /// unwound; a map's keys are data, so a path through one has no fixed dotted form).
  std::vector<Through> through;
  /// fetch: the targets' collection, the reference kind and its Dangling policy.
  std::string_view from;
  Relationship kind = Relationship::none;
  Dangling policy = Dangling::keep;
  /// The steps on the fetched targets (fetch) or inside the embedded documents (look_inside).
  std::vector<JoinStep> nested;
};

/// One relation of documents of T to resolve, with the relations of its targets (or of the
/// documents it embeds) to resolve in turn. Made by odm::with().
template <class T>
class Relation {
 public:
  Relation(detail::RelationStep<T> run, JoinStep step) : run_(std::move(run)), step_(std::move(step)) {}

  void operator()(const Database& db, std::vector<T>& documents, const JoinOptions& options) const {
    detail::DropFlags dropped{documents.size(), {}};
    detail::JoinSet<T> set = detail::JoinSet<T>::of(documents, &dropped);
    run_(db, set, options);
    detail::erase_dropped(documents, dropped);
  }
  /// As the nested relation of another: resolves the references of `targets` without ever
  /// removing one of them.
  void on_targets(const Database& db, std::vector<T>& targets, const JoinOptions& options) const {
    detail::JoinSet<T> set = detail::JoinSet<T>::of(targets, nullptr);
    run_(db, set, options);
  }
  /// As the relation of documents embedded in others (used by joins).
  void on(const Database& db, detail::JoinSet<T>& set, const JoinOptions& options) const { run_(db, set, options); }

  /// What this relation does, as data.
  const JoinStep& step() const noexcept { return step_; }

 private:
  detail::RelationStep<T> run_;
  JoinStep step_;
};

namespace detail {

/// Step 1 of a join: every distinct id once, in first-seen order, and for each reference
/// (in document order, through the member's containers) the slot of its id; each
/// reference is hashed once.
/// items: JoinSet::with_items's range.
template <class T, class M, class Items>
auto gather_ids_in(const Items& items, M T::*member) {
  using Leaf = path_leaf_t<M>;
  using Id = reference_key_t<id_type_t<typename relation_of<Leaf>::target>>;
  GatheredIds<Id> gathered;
  std::size_t references = 0;
  auto count = [&](Leaf& reference) {
    if constexpr (relation_of<Leaf>::many)
      references += reference.size();
    else
      ++references;
  };
  for (std::size_t i = 0; i < items.size(); ++i) for_each_leaf(items[i].*member, count);
  gathered.reserve(references);
  // A reference always holds its target's id type (ref.hpp builds and decodes it so).
  auto add = [&](Leaf& reference) {
    for_each_reference_id(reference, [&](const ReferenceId& id) { gathered.add(held_key<Id>(id)); });
  };
  for (std::size_t i = 0; i < items.size(); ++i) for_each_leaf(items[i].*member, add);
  return gathered;
}
template <class T, class M>
auto gather_ids(const JoinSet<T>& set, M T::*member) {
  return set.with_items([&](const auto& items) { return gather_ids_in(items, member); });
}

/// Step 4: each fetched target shared, in its id's slot (empty where none was found). All
/// targets of one join live in one allocation that the shared pointers alias: one
/// allocation instead of one per target, at the price that the whole block stays in
/// memory while any of its targets is referenced.
template <class Target, class Id>
std::vector<std::shared_ptr<const Target>> share_targets(std::vector<Target>& targets, const GatheredIds<Id>& gathered) {
  std::vector<std::shared_ptr<const Target>> by_slot(gathered.ids.size());
  const auto block = std::make_shared<const std::vector<Target>>(std::move(targets));
  for (const Target& target : *block) {
    const std::uint32_t slot = gathered.slot_of(reference_key(id_of(target)));
    if (slot != GatheredIds<Id>::none && !by_slot[slot]) by_slot[slot] = std::shared_ptr<const Target>(block, &target);
  }
  return by_slot;
}

/// Step 5: every reference gets its target, visiting them in step 1's order, with the
/// field's policy for targets that were not found. `field` and `nested_field` name the
/// member (at the top level, inside an embedded document) in messages.
template <class T, class M, class Target, class Id, class Items>
void assign_targets_in(JoinSet<T>& set, const Items& items, M T::*member, const GatheredIds<Id>& gathered,
                       const std::vector<std::shared_ptr<const Target>>& by_slot, std::string_view field,
                       std::string_view nested_field) {
  using Leaf = path_leaf_t<M>;
  using kind = relation_of<Leaf>;
  std::size_t next = 0;
  const auto target_of = [&](const ReferenceId& id) -> std::shared_ptr<const Target> {
    const std::shared_ptr<const Target>& target = by_slot[gathered.slots[next++]];
    if constexpr (kind::policy == Dangling::raise) {
      if (!target)
        throw DanglingReference(set.where(field, nested_field) + ": no document with _id " + describe_id(id) +
                                " in collection " + std::string(collection_name<Target>));
    }
    return target;
  };
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto assign = [&](Leaf& reference) {
      if constexpr (kind::many) {
        std::vector<std::shared_ptr<const Target>> resolved;
        resolved.reserve(reference.size());
        for (const auto& id : detail::Access::raw_ids(reference)) resolved.push_back(target_of(id));
        detail::Access::resolve(reference, std::move(resolved));
      } else {
        if (std::holds_alternative<std::monostate>(detail::Access::raw_id(reference))) return;  // a root: nothing to find
        detail::Access::resolve(reference, target_of(detail::Access::raw_id(reference)));
        if constexpr (kind::policy == Dangling::drop) {
          if (reference.is_dangling()) set.drop(i);
        }
      }
    };
    for_each_leaf(items[i].*member, assign);
  }
}
template <class T, class M, class Target, class Id>
void assign_targets(JoinSet<T>& set, M T::*member, const GatheredIds<Id>& gathered,
                    const std::vector<std::shared_ptr<const Target>>& by_slot, std::string_view field,
                    std::string_view nested_field) {
  set.with_items([&](const auto& items) {
    assign_targets_in(set, items, member, gathered, by_slot, field, nested_field);
  });
}

/// The description of a step over member `field` of T, whose type is M.
template <class T, class M>
JoinStep describe_step(JoinStep::Action action, std::string_view field) {
  JoinStep step;
  step.action = action;
  step.field = field;
  step.nested_field = stored_names<T, false>[stored_position<T>(field)];
  step.through = path_through<M>();
  return step;
}

/// odm::with on a member holding references: one fetch per batch of ids, then the nested
/// relations on the targets, then the assignment.
template <class T, class M, class... Nested>
Relation<T> fetch_relation(M T::*member, Nested... nested) {
  using Leaf = path_leaf_t<M>;
  using Target = typename relation_of<Leaf>::target;
  static_assert((std::is_same_v<Nested, Relation<Target>> && ...),
                "odm::with: a relation nested under a reference must be one of the referenced model's members "
                "(odm::with(&Student::courses, odm::with(&Course::department)))");
  JoinStep step = describe_step<T, M>(JoinStep::Action::fetch, runtime_field_name(member));
  step.from = collection_name<Target>;
  step.kind = relation_of<Leaf>::kind;
  step.policy = relation_of<Leaf>::policy;
  step.nested = {nested.step()...};
  const std::string_view field = step.field;
  const std::string_view nested_field = step.nested_field;
  return Relation<T>(
      [member, field, nested_field, nested...](const Database& db, JoinSet<T>& set, const JoinOptions& options) {
        const auto gathered = gather_ids(set, member);
        // 2. One query per batch of ids, or what the server-side join brought.
        std::vector<Target> targets;
        bool fetched_beyond_lookup = false;
        if (LookupResults* results = SkipReport::lookup(options))
          targets = lookup_targets<Target>(db, *results, gathered, options, fetched_beyond_lookup);
        else
          targets = fetch_where_in(db.collection<Target>(), "_id", gathered.ids, options);
        // 3. The next level, on the targets' own references while they can still be changed.
        if constexpr (sizeof...(nested) > 0) {
          if (fetched_beyond_lookup) {
            const JoinOptions beyond = SkipReport::beyond_lookup(options);
            (nested.on_targets(db, targets, beyond), ...);
          } else {
            (nested.on_targets(db, targets, options), ...);
          }
        }
        assign_targets(set, member, gathered, share_targets(targets, gathered), field, nested_field);
      },
      std::move(step));
}

/// The documents embedded in `member` of every item of `set`, through its containers, each
/// with the result document it lies in.
template <class T, class M>
JoinSet<path_leaf_t<M>> embedded_set(const JoinSet<T>& set, M T::*member, std::string_view field,
                                     std::string_view nested_field) {
  JoinSet<path_leaf_t<M>> inner;
  inner.dropped = set.dropped;
  inner.path = set.where(field, nested_field);
  set.with_items([&](auto items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      auto add = [&](path_leaf_t<M>& embedded) {
        inner.items.push_back(&embedded);
        inner.roots.push_back(set.root(i));
      };
      for_each_leaf(items[i].*member, add);
    }
  });
  return inner;
}

/// odm::with on a member holding embedded documents: no query of its own; the nested
/// relations act on every embedded document of the whole set at once.
template <class T, class M, class... Nested>
Relation<T> look_inside_relation(M T::*member, Nested... nested) {
  using Inner = path_leaf_t<M>;
  static_assert(sizeof...(Nested) > 0,
                "odm::with: this member holds embedded documents, not references; name the references inside "
                "them to resolve: odm::with(&Order::items, odm::with(&LineItem::product))");
  static_assert((std::is_same_v<Nested, Relation<Inner>> && ...),
                "odm::with: a relation nested under a member of embedded documents must be one of the embedded "
                "type's members (odm::with(&Order::items, odm::with(&LineItem::product)))");
  JoinStep step = describe_step<T, M>(JoinStep::Action::look_inside, runtime_field_name(member));
  step.nested = {nested.step()...};
  const std::string_view field = step.field;
  const std::string_view nested_field = step.nested_field;
  return Relation<T>(
      [member, field, nested_field, nested...](const Database& db, JoinSet<T>& set, const JoinOptions& options) {
        JoinSet<Inner> inner = embedded_set(set, member, field, nested_field);
        (nested.on(db, inner, options), ...);
      },
      std::move(step));
}

}  // namespace detail

/// Resolves the references a member holds (Ref, ParentRef or RefMany, also inside
/// std::optional, std::vector, std::array and std::map values), then the `nested` relations
/// of their targets, before the targets are shared. On a member holding embedded
/// documents (Embedded<E>, E, and the same containers, Subset items too), resolves the
/// `nested` relations of E inside every one of them:
///   odm::with(&Order::items, odm::with(&LineItem::product, odm::with(&Product::category)))
template <class T, class M, class... Nested>
Relation<T> with(M T::*member, Nested... nested) {
  using Leaf = detail::path_leaf_t<M>;
  static_assert(detail::is_reference_leaf<Leaf> || detail::is_document_leaf<Leaf>,
                "odm::with: the member holds no reference (odm::Ref, odm::ParentRef, odm::RefMany) and no embedded "
                "document; name a reference, or a member of embedded documents with the references inside them: "
                "odm::with(&Order::items, odm::with(&LineItem::product))");
  if constexpr (detail::is_reference_leaf<Leaf>)
    return detail::fetch_relation(member, std::move(nested)...);
  else if constexpr (detail::is_document_leaf<Leaf>)
    return detail::look_inside_relation(member, std::move(nested)...);
  else
    return Relation<T>(nullptr, JoinStep{});
}

/// Resolves `relation` for every document of `documents`, in place. Returns the targets
/// left out because they do not fit their model (only with BadDocuments::skip).
template <class T>
std::vector<SkippedDocument> resolve(const Database& db, std::vector<T>& documents, const Relation<T>& relation,
                                     const JoinOptions& options = {}) {
  detail::SkipReport::require_client_side(options, "odm::resolve");
  std::vector<SkippedDocument> skipped;
  relation(db, documents, detail::SkipReport::into(options, skipped));
  return skipped;
}

/// Resolves several relations, one after another, each with `options`. Returns what
/// every relation skipped (only with BadDocuments::skip), relation after relation.
template <class T, class... More>
std::vector<SkippedDocument> resolve(const Database& db, std::vector<T>& documents, const JoinOptions& options,
                                     const Relation<T>& first, const More&... more) {
  static_assert((std::is_convertible_v<const More&, const Relation<T>&> && ...),
                "odm::resolve: after the options, pass only relations of the documents' model (odm::with(...))");
  detail::SkipReport::require_client_side(options, "odm::resolve");
  std::vector<SkippedDocument> skipped;
  const JoinOptions reporting = detail::SkipReport::into(options, skipped);
  first(db, documents, reporting);
  (more(db, documents, reporting), ...);
  return skipped;
}

/// Resolves several relations, one after another, with the default options.
template <class T, class... More>
std::vector<SkippedDocument> resolve(const Database& db, std::vector<T>& documents, const Relation<T>& first,
                                     const More&... more) {
  return resolve(db, documents, JoinOptions{}, first, more...);
}

/// A result set that has been read in full and whose references are being resolved:
/// what `collection.find(filter).with(&Book::publisher_id)` returns. Each further
/// `.with(...)` resolves one more relation (one more query per level).
template <class T>
class Resolved {
 public:
  Resolved(Database db, std::vector<T> documents, JoinOptions options = {},
           std::vector<SkippedDocument> skipped = {})
      : db_(std::move(db)), documents_(std::move(documents)), options_(options), skipped_(std::move(skipped)) {}

  /// Returns the result by value, so that `auto&& r = find(f).with(a).with(b);` holds it
  /// rather than a reference to a temporary destroyed at the end of the statement.
  template <class M, class... Nested>
  Resolved with(M T::*member, Nested... nested) && {
    odm::with(member, std::move(nested)...)(db_, documents_, detail::SkipReport::into(options_, skipped_));
    return std::move(*this);
  }

  /// The documents left out because they do not fit their model, the cursor's first, then
  /// each level's (only after `.skip_bad_documents()` on the cursor).
  const std::vector<SkippedDocument>& skipped() const& noexcept { return skipped_; }

  std::vector<T> to_vector() && { return std::move(documents_); }
  operator std::vector<T>() && { return std::move(documents_); }  // NOLINT(google-explicit-constructor)
  const std::vector<T>& documents() const& noexcept { return documents_; }
  std::size_t size() const noexcept { return documents_.size(); }
  auto begin() const noexcept { return documents_.begin(); }
  auto end() const noexcept { return documents_.end(); }
  const T& operator[](std::size_t i) const {
    return documents_[detail::checked_position("Resolved::operator[]", i, documents_.size())];
  }

 private:
  Database db_;
  std::vector<T> documents_;
  JoinOptions options_;
  std::vector<SkippedDocument> skipped_;
};

/// Cursor<T>::with (declared by the driver in odm/driver/cursor.hpp): drains the cursor
/// and resolves the first relation, skipping bad documents if the cursor does.
template <class T>
struct detail::CursorJoin {
  template <class M, class... Nested>
  static Resolved<T> run(Cursor<T>&& cursor, M T::*member, Nested&&... nested) {
    if (!detail::Access::client_state(cursor))
      throw UsageError("Cursor::with: this cursor does not come from a collection; use odm::resolve");
    JoinOptions options;
    options.bad_documents = cursor.bad_documents();
    std::vector<T> documents = cursor.to_vector();
    Resolved<T> result(detail::database_of(detail::Access::client_state(cursor), cursor.database_name()), std::move(documents), options,
                       std::move(cursor).skipped());
    return std::move(result).with(member, std::forward<Nested>(nested)...);
  }
};

/// How children of type Child are fetched for a set of parents.
template <class Child>
struct ChildrenOptions {
  /// The order of each parent's children (e.g. `odm::sort(odm::desc(&LogMessage::time))`,
  /// newest first).
  Sort<Child> sort;
  /// At most this many children per parent (0: all). With a limit, the children of up to
  /// `parents_per_query` parents come from one aggregate command in which each parent's
  /// branch reads only its own newest documents through the index on the parent field
  /// (`$unionWith`, MongoDB 4.4+); on an older server, from one find per parent.
  std::size_t limit_per_parent = 0;
  std::size_t parents_per_query = 100;
  JoinOptions join;

  template <class Other>
  ChildrenOptions& sort_by(Sort<Other> order) {
    static_assert(std::is_same_v<Other, Child>,
                  "odm::ChildrenOptions::sort_by: the sort is over another model than the children");
    sort = std::move(order);
    return *this;
  }
  ChildrenOptions& limit(std::size_t count) {
    limit_per_parent = count;
    return *this;
  }
};

/// The children of each parent: the documents of Child whose ParentRef `member` points at
/// it, in the order of `options.sort`. The result has one entry per parent, aligned with
/// `parents` (duplicates included). Costs one query per batch of parents, except with a
/// limit on a server older than MongoDB 4.4 (no `$unionWith`): one find per parent.
template <class Parent, class Child, class M>
std::vector<std::vector<Child>> children_of(const Database& db, const std::vector<Parent>& parents, M Child::*member,
                                            const ChildrenOptions<Child>& options = {}) {
  static_assert(detail::is_reference_to<M, Parent>,
                "odm::children_of: the member must be the child's reference to this parent type");
  detail::SkipReport::refuse_server_side(options.join, "odm::children_of");
  const std::string_view field = runtime_field_name(member);
  using Id = detail::reference_key_t<id_type_t<Parent>>;
  detail::GatheredIds<Id> gathered;  // the distinct parents, and each parent's slot
  gathered.reserve(parents.size());
  for (const Parent& parent : parents) gathered.add(detail::reference_key(id_of(parent)));
  std::vector<std::vector<Child>> grouped(gathered.ids.size());
  const auto place = [&](Child&& child) {
    const detail::ReferenceId& parent_id = detail::Access::raw_id(child.*member);
    const Id* id = std::get_if<Id>(&parent_id);
    const std::uint32_t slot = id ? gathered.slot_of(*id) : detail::GatheredIds<Id>::none;
    if (slot != detail::GatheredIds<Id>::none) grouped[slot].push_back(std::move(child));
  };
  auto collection = db.collection<Child>();
  if (options.limit_per_parent == 0) {
    for (Child& child : detail::fetch_where_in(collection, field, gathered.ids, options.join, options.sort.bson()))
      place(std::move(child));
  } else {  // $unionWith on MongoDB 4.4+, one find per parent before (newest_children.hpp)
    detail::fetch_newest_children(db, collection, field, gathered.ids, options.sort.bson(), options.limit_per_parent,
                                  options.parents_per_query, place);
  }
  if (gathered.ids.size() == parents.size()) return grouped;  // each parent once: already aligned
  std::vector<std::vector<Child>> result;
  result.reserve(parents.size());
  for (const std::uint32_t slot : gathered.slots) result.push_back(grouped[slot]);
  return result;
}

}  // namespace odm
