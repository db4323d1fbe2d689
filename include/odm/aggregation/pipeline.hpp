#pragma once
// A typed aggregation pipeline: each stage is typed by the documents it receives, and
// says what it passes on, so the next stage is checked against that.
//
//   struct Spent { std::string id; odm::Decimal total; std::int64_t orders; };
//   auto report = odm::pipeline<Order>()
//       .match(odm::field(&Order::status) == "paid")                     // Filter<Order>
//       .group<Spent>(odm::agg::by(odm::field(&Order::customer)),        // -> Spent
//                     odm::agg::sum<&Spent::total>(odm::field(&Order::total)),
//                     odm::agg::count<&Spent::orders>())
//       .sort(odm::sort(odm::desc(&Spent::total)))                       // Sort<Spent>
//       .limit(10);
//   for (const Spent& s : orders.aggregate(report)) ...                  // Cursor<Spent>
//
// Stages (Out is what the stage receives; R what it passes on):
//   match(Filter<Out>)  sort(Sort<Out>)  limit(n)  skip(n)                    -> Out
//   project<R>()                  R's fields, as odm::projection<Out, R>()    -> R
//   unwind<&R::m>()               Out's array `m`, one document per element;
//                                 R::m is the element type (odm::JoinedOne<T>
//                                 for the odm::Joined<T> of a lookup)         -> R
//   unwind<&R::m, &R::i>()        ... and i, the element's index (int64)      -> R
//   unwind_preserving<&R::m>()    preserveNullAndEmptyArrays: R::m optional   -> R
//   group<R>(key, accumulators...) / group<R>(accumulators...) (_id: null)    -> R
//   count<&R::n>()                {n: number of documents}                    -> R
//   set<R>(assignments...)  add_fields<R>(...)  Out's fields plus computed     -> R
//   lookup<&Out::ref, &R::joined>()  the documents a Ref/RefMany member points
//                                 to, from the target model's collection, in
//                                 R::joined, an odm::Joined<Target>           -> R
//   facet<R>(agg::facet<&R::a>(sub-pipeline), ...)  sub-pipelines over the same
//                                 documents; R's members are odm::Documents<
//                                 each sub-pipeline's output>                 -> R
//   stage<R>(Document)            a stage written by hand: nothing is checked -> R
// A member of R that a stage does not compute must be a member of Out with the same
// name, type and stored name (it is carried through); anything else is a compile error
// whose message says what to change. `$group`'s key and accumulators are in
// aggregation/group.hpp.
//
// Run it with Collection<In>::aggregate(pipeline), which returns a Cursor<Out>.

#include <odm/aggregation/expression.hpp>
#include <odm/aggregation/group.hpp>
#include <odm/aggregation/joined.hpp>
#include <odm/aggregation/stages.hpp>
#include <odm/bson/codec.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/kind.hpp>
#include <odm/bson/writer.hpp>
#include <odm/error.hpp>
#include <odm/model/collection_name.hpp>
#include <odm/query/expression.hpp>
#include <odm/query/projection.hpp>
#include <odm/reflect/members.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace odm {
namespace detail {

/// The type of one element of an array member (void if it is not an array): a joined
/// document of a $lookup stays a top-level document of its model (odm::JoinedOne).
template <class Array>
struct unwound {
  using type = void;
};
template <class E, class A>
struct unwound<std::vector<E, A>> {
  using type = E;
};
template <class T>
struct unwound<Joined<T>> {
  using type = JoinedOne<T>;
};

/// The index of R's member stored as `name` at the top level, or member_count<R>.
template <class R>
consteval std::size_t stored_index(std::string_view name) {
  for (std::size_t i = 0; i < member_count<R>; ++i)
    if (stored_names<R>[i] == name) return i;
  return member_count<R>;
}

/// Whether `index` is among `indices`.
template <std::size_t N>
constexpr bool among(std::size_t index, const std::array<std::size_t, N>& indices) {
  for (std::size_t i : indices)
    if (i == index) return true;
  return false;
}
template <std::size_t N>
constexpr bool all_distinct(const std::array<std::size_t, N>& indices) {
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = i + 1; j < N; ++j)
      if (indices[i] == indices[j]) return false;
  return true;
}

/// Checks the I-th member of R, which a stage passes on unchanged from its input In.
template <class In, class R, std::size_t I>
consteval void check_carried_member() {
  constexpr std::size_t j = member_named<In>(member_names<R>[I]);
  static_assert(j < member_count<In>,
                "odm: a member of this stage's output struct is neither computed by the stage nor a member of the "
                "documents it receives (the output of the stage before); compute it, or remove it");
  if constexpr (j < member_count<In>) {
    static_assert(projectable<boost::pfr::tuple_element_t<I, R>, boost::pfr::tuple_element_t<j, In>>,
                  "odm: a member of this stage's output struct that the stage passes on has a different type than "
                  "the member of the same name in the documents it receives");
    static_assert(stored_names<R>[I] == stored_names<In>[j],
                  "odm: a member of this stage's output struct that the stage passes on is stored under a different "
                  "name than the member of the same name in the documents it receives; rename it the same way");
  }
}

/// Checks every member of R but those the stage computes (`computed`).
template <class In, class R, auto Computed>
consteval void check_carried() {
  static_assert(reflectable<R>, "odm: a stage's output type is a plain struct (an aggregate)");
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ([] {
      if constexpr (!among(I, Computed)) check_carried_member<In, R, I>();
    }(), ...);
  }(std::make_index_sequence<member_count<R>>{});
}

template <class T>
inline constexpr bool is_accumulator = false;
template <auto Into, class S, bool M>
inline constexpr bool is_accumulator<agg::Accumulator<Into, S, M>> = true;
template <auto Into, class S>
inline constexpr bool is_accumulator<agg::ExprAccumulator<Into, S>> = true;

/// Checks a $group into R over documents of In, keyed by a Key (void: `_id: null`), which
/// holds a Money's currency if Currency.
template <class In, class R, class Key, bool Currency, class... Acc>
consteval void check_group() {
  static_assert(Currency || !(Acc::of_money || ...),
                "odm: a $sum or $avg of odm::Money would add amounts of different currencies: group by the "
                "currency too (odm::agg::by(..., odm::agg::key<&Key::currency>(odm::agg::currency(odm::field(...)))) "
                "or odm::agg::by(odm::agg::currency(...))), or sum odm::agg::amount(...) if every amount has the "
                "same currency");
  static_assert(reflectable<R>, "odm: a $group's result type is a plain struct (an aggregate)");
  static_assert(((std::is_same_v<typename Acc::scope_type, In> || std::is_void_v<typename Acc::scope_type>) && ...),
                "odm: an accumulator reads a field of another struct than the documents this $group receives (the "
                "output of the stage before); build its path from that struct's members");
  static_assert((std::is_same_v<into_model_t<Acc::into>, R> && ...),
                "odm: an accumulator fills a member of another struct than the $group's result struct; name a "
                "member of the result struct (odm::agg::sum<&Result::member>(...))");
  constexpr std::size_t id = stored_index<R>("_id");
  constexpr std::array<std::size_t, sizeof...(Acc)> filled{member_index(Acc::into)...};
  static_assert(all_distinct(filled), "odm: two accumulators of this $group fill the same member of the result struct");
  static_assert(!among(id, filled), "odm: the result's `id` member holds the group key; no accumulator fills it");
  if constexpr (std::is_void_v<Key>) {
    static_assert(id == member_count<R>,
                  "odm: this $group has no key (_id: null), so its result struct must not have an `id` member; "
                  "group by a field with odm::agg::by(...), or remove the member");
  } else {
    static_assert(id < member_count<R>,
                  "odm: a $group's result struct needs an `id` member (stored as _id) to hold the group key");
    if constexpr (id < member_count<R>)
      static_assert(projectable<boost::pfr::tuple_element_t<id, R>, Key>,
                    "odm: the result's `id` member has a different type than the group key (the type of the field "
                    "grouped by, or the key struct of odm::agg::by(odm::agg::key<...>(...), ...))");
  }
  constexpr std::size_t expected = member_count<R> - (id < member_count<R> ? 1 : 0);
  static_assert(sizeof...(Acc) == expected,
                "odm: every member of a $group's result struct but `id` needs an accumulator "
                "(odm::agg::sum, avg, min, max, first, last, push, add_to_set or count)");
}

/// Writes `{_id: key, member: {$op: "$f"}, ...}` into the open $group stage document.
void append_group_key(StageList& group, const PathNames* single, std::span<const KeyField> parts);
/// `_id: <expression>`.
void append_group_key(StageList& group, const ExprValue& expression);
/// `{$project: {m: 1 | <expression>, ..., _id: 0 unless R has it}}` (project<R>(computed...)).
void append_projected(bson_t* project, std::string_view name, const std::string& reference, const Document& value);
void append_accumulator(StageList& group, std::string_view into, agg::Accumulate op, const PathNames& source,
                        SumZero zero);
/// The same over an expression (agg::sum<&R::m>(expression)).
void append_accumulator(StageList& group, std::string_view into, agg::Accumulate op, const ExprValue& source,
                        SumZero zero);
/// `{$sort: {path: 1 | -1, ...}}` (a sort written by hand as it is).
void append_sort(StageList& stages, const SortExpr& sort);
/// `{$unwind: "$path"}`, or with an index member or preserving, the document form.
void append_unwind(StageList& stages, std::string_view path, std::string_view index, bool preserve);
/// Throws odm::ValueError unless the key (`single`, or one of `parts`) holds the currency
/// of the Money whose amount is `amount` (`total.value`: `total.currency`).
void check_currency_in_key(const PathNames& amount, const PathNames* single, std::span<const KeyField> parts);
void append_assignment(bson_t* set, std::string_view into, const std::string& reference, const Document& literal);

}  // namespace detail

namespace agg {
template <auto Into, class In, class Out>
struct Facet;
}  // namespace agg

namespace detail {
template <class T>
inline constexpr bool is_facet = false;
template <auto Into, class In, class Out>
inline constexpr bool is_facet<agg::Facet<Into, In, Out>> = true;

/// Appends `name: [stages]` to the open $facet document. Throws odm::ValueError for a
/// stage MongoDB refuses inside a facet ($facet, $out, $merge, ...), naming it.
void append_facet(bson_t* facets, std::string_view name, const Document& stages);
}  // namespace detail

/// A pipeline over the documents of In whose stages so far pass on documents of Out.
template <class In, class Out = In>
class Pipeline {
 public:
  using input_type = In;
  using output_type = Out;

  /// The stages as the aggregate command takes them: an array of documents (a copy).
  Document bson() const { return Document::copy_of(bson_view().get()); }
  /// The same without a copy (what aggregate sends): valid while this pipeline lives and
  /// no stage is added to it.
  detail::BsonView bson_view() const noexcept { return {stages_.data(), stages_.length()}; }
  std::uint32_t size() const noexcept { return stages_.size(); }

  /// `{$match: filter}`, a filter over what this stage receives.
  template <class S>
  Pipeline match(const Filter<S>& filter) && {
    static_assert(std::is_same_v<S, Out>,
                  "odm: this $match filters another struct than the documents this stage receives (the output of "
                  "the stage before); build the filter from that struct's members");
    if constexpr (reflectable<S>) {
      if constexpr (detail::written_previous_names<S>.size() > 0) {
        // A condition on a member renamed in its expand phase addresses both names, as
        // find's filter does (Filter::bson, odm/query/previous_names.hpp).
        const Document sent = filter.bson();
        stages_.add_document("$match", sent.get());
        return std::move(*this);
      }
    }
    detail::ScratchBson body;
    detail::append_filter(body.get(), detail::QueryAccess::expression(filter));
    stages_.add_document("$match", body.get());
    return std::move(*this);
  }
  template <class S>
  Pipeline match(const Filter<S>& filter) const& {
    return Pipeline(*this).match(filter);
  }

  /// `{$sort: {...}}`, keys of what this stage receives. Throws odm::ValueError for an
  /// empty sort (MongoDB refuses a $sort without keys).
  template <class S>
  Pipeline sort(const Sort<S>& sort) && {
    static_assert(std::is_same_v<S, Out>,
                  "odm: this $sort orders by another struct than the documents this stage receives (the output of "
                  "the stage before); build the sort from that struct's members");
    const detail::SortExpr& keys = detail::QueryAccess::expression(sort);
    if (keys.empty()) throw ValueError("a $sort stage needs at least one key");
    detail::append_sort(stages_, keys);
    return std::move(*this);
  }
  template <class S>
  Pipeline sort(const Sort<S>& sort) const& {
    return Pipeline(*this).sort(sort);
  }

  /// `{$limit: n}`; n must be positive (else odm::ValueError).
  Pipeline limit(std::int64_t count) && {
    if (count <= 0) throw ValueError("$limit takes a positive number, not " + std::to_string(count));
    stages_.add_int64("$limit", count);
    return std::move(*this);
  }
  Pipeline limit(std::int64_t count) const& { return Pipeline(*this).limit(count); }

  /// `{$skip: n}`; n must not be negative (else odm::ValueError).
  Pipeline skip(std::int64_t count) && {
    if (count < 0) throw ValueError("$skip takes a number that is not negative, not " + std::to_string(count));
    stages_.add_int64("$skip", count);
    return std::move(*this);
  }
  Pipeline skip(std::int64_t count) const& { return Pipeline(*this).skip(count); }

  /// `{$project: {a: 1, ...}}`: R's fields (as odm::projection<Out, R>() checks them).
  template <class R>
  Pipeline<In, R> project() && {
    const Projection<Out, R> projection = odm::projection<Out, R>();
    stages_.add_document("$project", projection.bson().get());
    return Pipeline<In, R>(std::move(stages_));
  }
  template <class R>
  Pipeline<In, R> project() const& {
    return Pipeline(*this).template project<R>();
  }
  /// `{$project: {m: <expression>, carried: 1, ...}}` into R: the members the assignments
  /// compute (odm::agg::compute, assign, constant), and R's other members taken from Out as
  /// project<R>() takes them; `_id` is left out unless R has it.
  template <class R, class... As>
    requires(sizeof...(As) > 0)
  Pipeline<In, R> project(const As&... assignments) && {
    check_assignments<R, As...>();
    stages_.add("$project", [&](bson_t* stage, std::string_view name) {
      detail::ChildWriter project(stage, name);
      bool has_id = false;
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (project_member<I, R>(project.get(), has_id, assignments...), ...);
      }(std::make_index_sequence<detail::member_count<R>>{});
      if (!has_id) detail::check_append(bson_append_int32(project.get(), "_id", 3, 0));
      project.close();
    });
    return Pipeline<In, R>(std::move(stages_));
  }
  template <class R, class... As>
    requires(sizeof...(As) > 0)
  Pipeline<In, R> project(const As&... assignments) const& {
    return Pipeline(*this).template project<R>(assignments...);
  }

  /// `{$unwind: "$m"}`: one document per element of Out's array member `m`, which R
  /// declares with the element's type (`&R::m`); R's other members are carried through.
  /// Documents whose array is empty or missing pass on nothing, as in MongoDB. With
  /// Index (`&R::i`, a std::int64_t): `{$unwind: {path: "$m", includeArrayIndex: "i"}}`,
  /// the element's position in the array.
  template <auto Element, auto Index = nullptr>
  Pipeline<In, detail::into_model_t<Element>> unwind() && {
    write_unwind<Element, Index, false>();
    return Pipeline<In, detail::into_model_t<Element>>(std::move(stages_));
  }
  template <auto Element, auto Index = nullptr>
  Pipeline<In, detail::into_model_t<Element>> unwind() const& {
    return Pipeline(*this).template unwind<Element, Index>();
  }
  /// `{$unwind: {path: "$m", preserveNullAndEmptyArrays: true}}`: as unwind, but a document
  /// whose array is empty, null or missing passes on once without it, so R declares `m`
  /// as std::optional of the element type (and Index, if given, std::optional<std::int64_t>).
  template <auto Element, auto Index = nullptr>
  Pipeline<In, detail::into_model_t<Element>> unwind_preserving() && {
    write_unwind<Element, Index, true>();
    return Pipeline<In, detail::into_model_t<Element>>(std::move(stages_));
  }
  template <auto Element, auto Index = nullptr>
  Pipeline<In, detail::into_model_t<Element>> unwind_preserving() const& {
    return Pipeline(*this).template unwind_preserving<Element, Index>();
  }

  /// `{$group: {_id: key, ...accumulators}}` into R (aggregation/group.hpp): R's `id`
  /// holds the key, and each other member is filled by exactly one accumulator.
  template <class R, class S, class K, std::size_t N, bool C, class... Acc>
    requires(detail::is_accumulator<Acc> && ...)
  Pipeline<In, R> group(const agg::GroupKey<S, K, N, C>& key, const Acc&... accumulators) && {
    static_assert(std::is_same_v<S, Out>,
                  "odm: this $group's key is a field of another struct than the documents this stage receives (the "
                  "output of the stage before); build it from that struct's members");
    detail::check_group<Out, R, K, C, Acc...>();
    const detail::PathNames* single = N == 0 ? &key.single : nullptr;
    if constexpr ((Acc::of_money || ...))
      ([&] {
        if constexpr (Acc::of_money) detail::check_currency_in_key(accumulators.source, single, key.parts);
      }(), ...);
    write_group(single, key.parts, accumulators...);
    return Pipeline<In, R>(std::move(stages_));
  }
  template <class R, class S, class K, std::size_t N, bool C, class... Acc>
    requires(detail::is_accumulator<Acc> && ...)
  Pipeline<In, R> group(const agg::GroupKey<S, K, N, C>& key, const Acc&... accumulators) const& {
    return Pipeline(*this).template group<R>(key, accumulators...);
  }
  /// `{$group: {_id: <expression>, ...}}` (agg::by(expression)): R's `id` holds the
  /// expression's value, as a per-month report keys by agg::month(...).
  template <class R, class S, class K, class... Acc>
    requires(detail::is_accumulator<Acc> && ...)
  Pipeline<In, R> group(const agg::ExprGroupKey<S, K>& key, const Acc&... accumulators) && {
    static_assert(std::is_same_v<S, Out>,
                  "odm: this $group's key reads fields of another struct than the documents this stage receives (the "
                  "output of the stage before); build it from that struct's members");
    detail::check_group<Out, R, K, false, Acc...>();
    write_group_by([&](detail::StageList& group) { detail::append_group_key(group, key.expression); }, accumulators...);
    return Pipeline<In, R>(std::move(stages_));
  }
  template <class R, class S, class K, class... Acc>
    requires(detail::is_accumulator<Acc> && ...)
  Pipeline<In, R> group(const agg::ExprGroupKey<S, K>& key, const Acc&... accumulators) const& {
    return Pipeline(*this).template group<R>(key, accumulators...);
  }
  /// `{$group: {_id: null, ...}}`: one group of every document (none if no document).
  template <class R, class... Acc>
    requires(detail::is_accumulator<Acc> && ...)
  Pipeline<In, R> group(const Acc&... accumulators) && {
    detail::check_group<Out, R, void, false, Acc...>();
    write_group(nullptr, {}, accumulators...);
    return Pipeline<In, R>(std::move(stages_));
  }
  template <class R, class... Acc>
    requires(detail::is_accumulator<Acc> && ...)
  Pipeline<In, R> group(const Acc&... accumulators) const& {
    return Pipeline(*this).template group<R>(accumulators...);
  }

  /// `{$count: "n"}`: one document `{n: <number of documents>}` read as R, whose only
  /// member is `n` (a std::int64_t); no document at all when none reaches it.
  template <auto Into>
  Pipeline<In, detail::into_model_t<Into>> count() && {
    using R = detail::into_model_t<Into>;
    static_assert(detail::member_count<R> == 1 && std::is_same_v<detail::into_type_t<Into>, std::int64_t>,
                  "odm: $count passes on one document with one field: its struct has that one member, a std::int64_t");
    constexpr std::string_view name = stored_names<R>[detail::member_index(Into)];
    static_assert(name != "_id", "odm: $count cannot name its field _id; name the member otherwise");
    stages_.add_string("$count", name);
    return Pipeline<In, R>(std::move(stages_));
  }
  template <auto Into>
  Pipeline<In, detail::into_model_t<Into>> count() const& {
    return Pipeline(*this).template count<Into>();
  }

  /// `{$set: {m: "$f" | {$literal: v}, ...}}` into R: the members the assignments fill
  /// (odm::agg::assign, odm::agg::constant), and Out's members carried through.
  template <class R, class... As>
  Pipeline<In, R> set(const As&... assignments) && {
    write_set<R>("$set", assignments...);
    return Pipeline<In, R>(std::move(stages_));
  }
  template <class R, class... As>
  Pipeline<In, R> set(const As&... assignments) const& {
    return Pipeline(*this).template set<R>(assignments...);
  }
  /// `$addFields`, the older name of `$set`.
  template <class R, class... As>
  Pipeline<In, R> add_fields(const As&... assignments) && {
    write_set<R>("$addFields", assignments...);
    return Pipeline<In, R>(std::move(stages_));
  }
  template <class R, class... As>
  Pipeline<In, R> add_fields(const As&... assignments) const& {
    return Pipeline(*this).template add_fields<R>(assignments...);
  }

  /// `{$lookup: {from, localField, foreignField: "_id", as}}` for the reference member
  /// `Reference` of Out (odm::Ref, ParentRef or RefMany): the documents it points to, from
  /// the target model's collection, into R's member `As` (an odm::Joined<Target>).
  template <auto Reference, auto As>
  Pipeline<In, detail::into_model_t<As>> lookup() && {
    using R = detail::into_model_t<As>;
    static_assert(std::is_same_v<detail::into_model_t<Reference>, Out>,
                  "odm: $lookup follows a reference member of the documents this stage receives (the output of "
                  "the stage before)");
    using Relation = relation_of<detail::into_type_t<Reference>>;
    static_assert(Relation::kind == Relationship::reference || Relation::kind == Relationship::parent_reference ||
                      Relation::kind == Relationship::child_references,
                  "odm: $lookup follows a reference member: an odm::Ref, odm::ParentRef or odm::RefMany");
    using Target = typename Relation::target;
    if constexpr (!std::is_void_v<Target>) {
      static_assert(std::is_same_v<detail::into_type_t<As>, Joined<Target>>,
                    "odm: the member $lookup fills holds the documents found: declare it odm::Joined<Target>, "
                    "Target being the model the reference points to");
      constexpr std::size_t as = detail::member_index(As);
      detail::check_carried<Out, R, std::array<std::size_t, 1>{as}>();
      const std::string_view from = collection_name<Target>;
      const std::string_view local = stored_names<Out>[detail::member_index(Reference)];
      const std::string_view into = stored_names<R>[as];
      stages_.add("$lookup", [&](bson_t* stage, std::string_view op) {
        detail::append_lookup_by_id(stage, op, from, local, into);
      });
    }
    return Pipeline<In, R>(std::move(stages_));
  }
  template <auto Reference, auto As>
  Pipeline<In, detail::into_model_t<As>> lookup() const& {
    return Pipeline(*this).template lookup<Reference, As>();
  }

  /// `{$facet: {a: [...], b: [...]}}`: several sub-pipelines over the same documents (what
  /// this stage receives), each made with odm::pipeline<Out>() and given to
  /// odm::agg::facet<&R::a>(...); passes on one document R whose members are the facets'
  /// results, each an odm::Documents<X> (a std::vector), X its sub-pipeline's output.
  template <class R, class... Fs>
    requires(sizeof...(Fs) > 0 && (detail::is_facet<Fs> && ...))
  Pipeline<In, R> facet(const Fs&... facets) && {
    static_assert(reflectable<R>, "odm: a $facet's output type is a plain struct (an aggregate)");
    static_assert((std::is_same_v<typename Fs::input_type, Out> && ...),
                  "odm: a facet's sub-pipeline reads the documents this $facet receives (the output of the stage "
                  "before): start it with odm::pipeline<That>()");
    static_assert((std::is_same_v<detail::into_model_t<Fs::into>, R> && ...),
                  "odm: a facet fills a member of another struct than the $facet's output struct");
    static_assert((std::is_same_v<detail::into_type_t<Fs::into>, Documents<typename Fs::output_type>> && ...),
                  "odm: the member a facet fills holds its sub-pipeline's results: declare it odm::Documents<Out>, "
                  "Out being the struct the sub-pipeline's last stage passes on (read as a cursor of Out reads)");
    constexpr std::array<std::size_t, sizeof...(Fs)> filled{detail::member_index(Fs::into)...};
    static_assert(detail::all_distinct(filled), "odm: two facets fill the same member of the output struct");
    static_assert(sizeof...(Fs) == detail::member_count<R>,
                  "odm: every member of a $facet's output struct is filled by one odm::agg::facet<&R::member>(...)");
    stages_.add("$facet", [&](bson_t* stage, std::string_view op) {
      detail::ChildWriter body(stage, op);
      (detail::append_facet(body.get(), stored_names<R>[detail::member_index(Fs::into)], facets.stages), ...);
      body.close();
    });
    return Pipeline<In, R>(std::move(stages_));
  }
  template <class R, class... Fs>
    requires(sizeof...(Fs) > 0 && (detail::is_facet<Fs> && ...))
  Pipeline<In, R> facet(const Fs&... facets) const& {
    return Pipeline(*this).template facet<R>(facets...);
  }

  /// The escape hatch: a stage written by hand (`{$bucket: {...}}`), whose output the
  /// caller states as R (odm::Document to read it untyped). Nothing in it is checked but
  /// its shape: one field named `$stage` (else odm::ValueError).
  template <class R>
  Pipeline<In, R> stage(const Document& stage) && {
    stages_.add_raw(stage);
    return Pipeline<In, R>(std::move(stages_));
  }
  template <class R>
  Pipeline<In, R> stage(const Document& stage) const& {
    return Pipeline(*this).template stage<R>(stage);
  }

 private:
  template <class, class>
  friend class Pipeline;
  template <class T>
  friend Pipeline<T> pipeline();

  Pipeline() = default;
  explicit Pipeline(detail::StageList stages) : stages_(std::move(stages)) {}

  /// `{$group: {_id: key, ...}}`: a one-field key (`single`), a compound one (`parts`),
  /// or null (neither).
  /// What an accumulator reads: a field (agg::Accumulator) or an expression (agg::ExprAccumulator).
  template <class Acc>
  static const auto& operand_of(const Acc& accumulator) {
    if constexpr (requires { accumulator.expression; })
      return accumulator.expression;
    else
      return accumulator.source;
  }

  template <class... Acc>
  void write_group(const detail::PathNames* single, std::span<const detail::KeyField> parts,
                   const Acc&... accumulators) {
    write_group_by([&](detail::StageList& group) { detail::append_group_key(group, single, parts); }, accumulators...);
  }
  template <class Key, class... Acc>
  void write_group_by(Key&& write_key, const Acc&... accumulators) {
    stages_.write_stage("$group", [&](detail::StageList& group) {
      write_key(group);
      (detail::append_accumulator(group, stored_names<detail::into_model_t<Acc::into>>[detail::member_index(Acc::into)],
                                  accumulators.op, operand_of(accumulators),
                                  detail::sum_zero<detail::into_type_t<Acc::into>>),
       ...);
    });
  }

  template <auto Element, auto Index, bool Preserve>
  void write_unwind() {
    using R = detail::into_model_t<Element>;
    using Member = detail::into_type_t<Element>;
    constexpr std::size_t r = detail::member_index(Element);
    constexpr std::size_t j = detail::member_named<Out>(detail::member_names<R>[r]);
    static_assert(j < detail::member_count<Out>,
                  "odm: $unwind names the member of the output struct that holds one element; the documents this "
                  "stage receives need an array member of the same name");
    if constexpr (Preserve)
      static_assert(detail::is_optional<Member>,
                    "odm: unwind_preserving passes on documents without an element: declare the member it fills "
                    "std::optional of the array's element type");
    if constexpr (j < detail::member_count<Out>) {
      using Array = boost::pfr::tuple_element_t<j, Out>;
      using Unwound = typename detail::unwound<Array>::type;
      static_assert(!std::is_void_v<Unwound>,
                    "odm: $unwind takes an array member (a std::vector, or the odm::Joined<T> of a $lookup)");
      if constexpr (!std::is_void_v<Unwound>)
        static_assert(detail::projectable<std::conditional_t<Preserve, detail::strip_optional_t<Member>, Member>, Unwound>,
                      "odm: the member $unwind fills holds one element of the array: declare it with the array's "
                      "element type (odm::JoinedOne<T> for an odm::Joined<T>)");
      static_assert(stored_names<R>[r] == stored_names<Out>[j],
                    "odm: the member $unwind fills is stored under another name than the array it unwinds");
    }
    constexpr bool indexed = !std::is_same_v<decltype(Index), std::nullptr_t>;
    if constexpr (indexed) {
      static_assert(std::is_same_v<detail::into_model_t<Index>, R>,
                    "odm: includeArrayIndex names a member of the same output struct as the element");
      static_assert(std::is_same_v<detail::into_type_t<Index>,
                                   std::conditional_t<Preserve, std::optional<std::int64_t>, std::int64_t>>,
                    "odm: includeArrayIndex fills a std::int64_t (MongoDB's index is a long), std::optional of it "
                    "with unwind_preserving (null for a document without an element)");
      constexpr std::array<std::size_t, 2> computed{r, detail::member_index(Index)};
      static_assert(computed[0] != computed[1], "odm: includeArrayIndex names another member than the element");
      detail::check_carried<Out, R, computed>();
    } else {
      detail::check_carried<Out, R, std::array<std::size_t, 1>{r}>();
    }
    std::string_view index_name;
    if constexpr (indexed) index_name = stored_names<R>[detail::member_index(Index)];
    detail::append_unwind(stages_, stored_names<R>[r], index_name, Preserve);
  }

  /// Writes R's I-th member into a $project: the assignment that computes it, else `1`.
  template <std::size_t I, class R, class... As>
  static void project_member(bson_t* project, bool& has_id, const As&... assignments) {
    constexpr std::string_view stored = stored_names<R>[I];
    has_id = has_id || stored == "_id";
    bool written = false;
    ([&] {
      if constexpr (detail::member_index(As::into) == I) {
        detail::append_projected(project, stored, assignments.reference, assignments.literal);
        written = true;
      }
    }(), ...);
    if (!written) detail::append_projected(project, stored, {}, {});  // carried through
  }

  /// Checks the assignments of a $set, $addFields or $project into R: each reads Out and
  /// fills its own member of R, and R's other members are Out's, carried through.
  template <class R, class... As>
  static consteval void check_assignments() {
    static_assert(sizeof...(As) > 0, "odm: a $set computes at least one member (odm::agg::assign or constant)");
    static_assert(((std::is_same_v<typename As::scope_type, Out> || std::is_void_v<typename As::scope_type>) && ...),
                  "odm: an assignment reads a field of another struct than the documents this stage receives (the "
                  "output of the stage before); build its path from that struct's members");
    static_assert((std::is_same_v<detail::into_model_t<As::into>, R> && ...),
                  "odm: an assignment fills a member of another struct than this stage's output struct");
    constexpr std::array<std::size_t, sizeof...(As)> computed{detail::member_index(As::into)...};
    static_assert(detail::all_distinct(computed), "odm: two assignments of this stage fill the same member");
    detail::check_carried<Out, R, computed>();
  }

  template <class R, class... As>
  void write_set(std::string_view op, const As&... assignments) {
    check_assignments<R, As...>();
    stages_.add(op, [&](bson_t* stage, std::string_view name) {
      detail::ChildWriter set(stage, name);
      (detail::append_assignment(set.get(), stored_names<R>[detail::member_index(As::into)], assignments.reference,
                                 assignments.literal),
       ...);
      set.close();
    });
  }

  detail::StageList stages_;
};

namespace agg {

/// One facet of a $facet stage: the sub-pipeline `stages`, over the documents the $facet
/// receives (In), whose results fill the member Into (an odm::Documents<Out>).
template <auto Into, class In, class Out>
struct Facet {
  static constexpr auto into = Into;
  using input_type = In;
  using output_type = Out;
  Document stages;
};

/// odm::agg::facet<&Report::by_customer>(odm::pipeline<Order>().group<...>(...)).
template <auto Into, class In, class Out>
Facet<Into, In, Out> facet(const Pipeline<In, Out>& sub) {
  static_assert(std::is_member_object_pointer_v<decltype(Into)>,
                "odm: a facet names the member of the $facet's output struct it fills: "
                "odm::agg::facet<&Result::member>(odm::pipeline<Input>()...)");
  return {sub.bson()};
}

}  // namespace agg

/// An empty pipeline over the documents of T: odm::pipeline<Order>().match(...)...
template <class T>
Pipeline<T> pipeline() {
  static_assert(reflectable<T>, "odm: a pipeline starts from a model struct (a plain aggregate)");
  return Pipeline<T>();
}

}  // namespace odm
