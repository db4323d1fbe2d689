#pragma once
// The typed parts of a `$group` and a `$set`: the group key, the accumulators, and the
// assignments of computed fields. Each names the member of the stage's output struct it
// fills (a member pointer given as a template argument) and the field of the input it
// reads (a typed path, odm::field(...)):
//
//   odm::agg::by(odm::field(&Order::customer))                _id: "$customer"
//   odm::agg::by(odm::agg::key<&Key::customer>(odm::field(&Order::customer)),
//                odm::agg::key<&Key::currency>(odm::agg::currency(odm::field(&Order::total))))
//                                                             _id: {customer: "$customer", currency: "$total.currency"}
//   odm::agg::sum<&Report::total>(odm::field(&Order::total))  total: {$sum: "$total.value"}   (a Money's amount)
//   odm::agg::count<&Report::orders>()                        orders: {$sum: 1}
//
// The type of the member an accumulator fills is checked against what MongoDB returns
// (see check_accumulator below): a mismatch is a compile error that names the type to use.

#include <odm/bson/codec.hpp>
#include <odm/bson/document.hpp>
#include <odm/fields/decimal.hpp>
#include <odm/fields/money.hpp>
#include <odm/query/parts.hpp>
#include <odm/query/path.hpp>
#include <odm/query/projection.hpp>
#include <odm/query/value.hpp>
#include <odm/reflect/members.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace odm {
namespace detail {

template <auto Pointer>
using into_model_t = typename pointer_parts<decltype(Pointer)>::model;
template <auto Pointer>
using into_type_t = typename pointer_parts<decltype(Pointer)>::type;

template <class T>
struct is_std_vector : std::false_type {};
template <class E, class A>
struct is_std_vector<std::vector<E, A>> : std::true_type {};

/// "$a.b": the value of a field in an aggregation expression.
std::string field_reference(const PathNames& names);  // aggregation.cpp
/// `{$ifNull: ["$old", "$new"]}` for a path into a member renamed in its expand phase (as
/// its $group reads it; aggregation.cpp).
Document either_name_value(const PathNames& names);

/// One field of a compound group key: its name in the key struct and the path it reads.
struct KeyField {
  std::string_view name;
  PathNames source;
};

/// An integer MongoDB stores as int32 (its sum is an int64: see check_accumulator).
template <class V>
inline constexpr bool is_small_integer = std::is_integral_v<V> && !std::is_same_v<V, bool> && sizeof(V) <= 4;

/// What `$sum` and `$avg` of values of type V give, or void when V is not a number.
template <class V>
struct sum_of {
  using type = void;
};
template <class V>
  requires is_small_integer<V> || std::is_same_v<V, std::int64_t>
struct sum_of<V> {
  using type = std::int64_t;
};
template <>
struct sum_of<double> {
  using type = double;
};
template <>
struct sum_of<Decimal> {
  using type = Decimal;
};
template <>
struct sum_of<Money> {
  using type = Decimal;
};
template <class V>
struct sum_of<std::optional<V>> : sum_of<V> {};

/// The zero a typed `$sum` starts from, in the type of the member it fills: MongoDB's sum
/// of a group without a number is the int32 0, which a Decimal or double member could not
/// read, so each value is `{$ifNull: ["$f", zero]}` (an absent or null value adds that
/// zero, and the sum keeps the declared type).
enum class SumZero : std::uint8_t { none, int64, float64, decimal };
template <class R>
inline constexpr SumZero sum_zero = std::is_same_v<R, std::int64_t> ? SumZero::int64
                                    : std::is_same_v<R, double>     ? SumZero::float64
                                    : std::is_same_v<R, Decimal>    ? SumZero::decimal
                                                                    : SumZero::none;

template <class V>
struct avg_of {
  using type = std::conditional_t<std::is_void_v<typename sum_of<V>::type>, void,
                                  std::conditional_t<std::is_same_v<typename sum_of<V>::type, Decimal>, Decimal, double>>;
};

}  // namespace detail

namespace agg {

/// The accumulators of MongoDB's `$group`.
enum class Accumulate : std::uint8_t { sum, avg, min, max, first, last, push, add_to_set, count };

/// One accumulator: fills the member Into of the group's result struct from a field of
/// the documents of Scope (the group's input). Made by agg::sum, agg::avg, ...
/// OfMoney: a $sum or $avg of an odm::Money's amounts, which only mean something per
/// currency, so its $group must be keyed by that Money's currency (agg::currency).
template <auto Into, class Scope, bool OfMoney = false>
struct Accumulator {
  static constexpr auto into = Into;
  static constexpr bool of_money = OfMoney;
  using scope_type = Scope;
  Accumulate op;
  detail::PathNames source;
};

namespace detail_checks {

/// Checks that the member Into can hold what accumulator Op gives over values of type V
/// (a static_assert names the type to declare).
template <Accumulate Op, auto Into, class V>
consteval void check_accumulator() {
  using R = odm::detail::into_type_t<Into>;
  using Base = odm::detail::strip_optional_t<V>;
  if constexpr (Op == Accumulate::sum) {
    using S = typename odm::detail::sum_of<V>::type;
    static_assert(!std::is_void_v<S>,
                  "odm: $sum adds numbers; sum a field of type std::int32_t, std::int64_t, double, odm::Decimal or "
                  "odm::Money (or count documents with odm::agg::count)");
    if constexpr (!std::is_void_v<S>)
      static_assert(std::is_same_v<R, S>,
                    "odm: the member a $sum fills has the wrong type; MongoDB's sum of int32 or int64 values is a "
                    "std::int64_t (it may exceed int32), of doubles a double, of odm::Decimal or odm::Money "
                    "amounts an odm::Decimal");
  } else if constexpr (Op == Accumulate::avg) {
    using A = typename odm::detail::avg_of<V>::type;
    static_assert(!std::is_void_v<A>,
                  "odm: $avg averages numbers; average a field of type std::int32_t, std::int64_t, double, "
                  "odm::Decimal or odm::Money");
    if constexpr (!std::is_void_v<A>)
      static_assert((std::is_same_v<R, A> && !odm::detail::is_optional<V>) || std::is_same_v<R, std::optional<A>>,
                    "odm: the member an $avg fills has the wrong type; MongoDB's average of integers or doubles is "
                    "a double, of odm::Decimal or odm::Money amounts an odm::Decimal (std::optional of it when the "
                    "group may hold no number, as when the values may be null: the average is then null)");
  } else if constexpr (Op == Accumulate::push || Op == Accumulate::add_to_set) {
    static_assert(std::is_same_v<R, std::vector<V>>,
                  "odm: the member a $push or $addToSet fills is an array of the values it collects: declare it "
                  "std::vector<T>, where T is the type of the field it reads");
  } else if constexpr (Op == Accumulate::count) {
    static_assert(std::is_same_v<R, std::int64_t>,
                  "odm: the member a count fills is a std::int64_t (a group may hold more than 2^31 documents)");
  } else {
    static_assert(std::is_same_v<R, V> || std::is_same_v<R, std::optional<Base>>,
                  "odm: the member a $min, $max, $first or $last fills has the type of the field it reads (or "
                  "std::optional of it, null when the group has no value)");
  }
}

}  // namespace detail_checks

template <Accumulate Op, auto Into, class S, class V, bool A>
auto accumulate(const Path<S, V, A, false>& path) {
  static_assert(std::is_member_object_pointer_v<decltype(Into)>,
                "odm: an accumulator names the member of the $group's result struct it fills: "
                "odm::agg::sum<&Result::member>(odm::field(&Input::member))");
  static_assert(!A, "odm: this field lies inside an array, so each document holds several values of it: $unwind "
                    "the array before the $group");
  detail_checks::check_accumulator<Op, Into, V>();
  odm::detail::PathNames names = path.names();
  // A Money is {value, currency}: its sum and average are those of its amount.
  constexpr bool of_money = std::is_same_v<odm::detail::strip_optional_t<V>, Money> &&
                            (Op == Accumulate::sum || Op == Accumulate::avg);
  if constexpr (of_money) names.push("value");
  return Accumulator<Into, S, of_money>{Op, names};
}

/// `{$sum: "$f"}` into Into: std::int64_t for int32/int64 fields, double for doubles,
/// odm::Decimal for odm::Decimal and odm::Money (exact, Decimal128 on the server). Written
/// `{$sum: {$ifNull: ["$f", 0]}}` with the zero of Into's type (see detail::SumZero). The
/// sum or average of a Money needs a $group keyed by its currency (agg::currency): MongoDB
/// would add amounts of different currencies. agg::amount(money) states that the amounts
/// share one currency.
template <auto Into, class S, class V, bool A>
auto sum(const Path<S, V, A, false>& path) {
  return accumulate<Accumulate::sum, Into>(path);
}
/// `{$avg: "$f"}`: double for integers and doubles, odm::Decimal for decimal amounts.
template <auto Into, class S, class V, bool A>
auto avg(const Path<S, V, A, false>& path) {
  return accumulate<Accumulate::avg, Into>(path);
}
/// `{$min: "$f"}`: the field's type (or std::optional of it).
template <auto Into, class S, class V, bool A>
auto min(const Path<S, V, A, false>& path) {
  return accumulate<Accumulate::min, Into>(path);
}
/// `{$max: "$f"}`.
template <auto Into, class S, class V, bool A>
auto max(const Path<S, V, A, false>& path) {
  return accumulate<Accumulate::max, Into>(path);
}
/// `{$first: "$f"}`: the value in the first document of the group (in the order a $sort
/// before the $group gave).
template <auto Into, class S, class V, bool A>
auto first(const Path<S, V, A, false>& path) {
  return accumulate<Accumulate::first, Into>(path);
}
/// `{$last: "$f"}`.
template <auto Into, class S, class V, bool A>
auto last(const Path<S, V, A, false>& path) {
  return accumulate<Accumulate::last, Into>(path);
}
/// `{$push: "$f"}`: a std::vector of every value.
template <auto Into, class S, class V, bool A>
auto push(const Path<S, V, A, false>& path) {
  return accumulate<Accumulate::push, Into>(path);
}
/// `{$addToSet: "$f"}`: a std::vector of the distinct values, in no particular order.
template <auto Into, class S, class V, bool A>
auto add_to_set(const Path<S, V, A, false>& path) {
  return accumulate<Accumulate::add_to_set, Into>(path);
}
/// `{$sum: 1}`: the number of documents in the group, a std::int64_t. (MongoDB 5.0's
/// `{$count: {}}` means the same; `$sum: 1` also works on older servers.)
template <auto Into>
Accumulator<Into, void> count() {
  static_assert(std::is_member_object_pointer_v<decltype(Into)>,
                "odm: a count names the member it fills: odm::agg::count<&Result::member>()");
  detail_checks::check_accumulator<Accumulate::count, Into, void>();
  return {Accumulate::count, {}};
}

/// The currency of a Money path (agg::currency): a path to a std::string (an optional one
/// for an optional Money) that a group key made of it lets that Money be summed and averaged.
template <class S, class V, bool A>
class CurrencyPath : public Path<S, V, A> {
 public:
  using Path<S, V, A>::Path;
};

/// One field of a compound group key: the member Into of the key struct, from a field.
template <auto Into, class Scope, bool Currency = false>
struct KeyPart {
  static constexpr auto into = Into;
  using scope_type = Scope;
  detail::PathNames source;
};

/// A key part that is the currency of a Money.
template <auto Into, class S, class V, bool A>
KeyPart<Into, S, true> key(const CurrencyPath<S, V, A>& path) {
  static_assert(std::is_same_v<odm::detail::into_type_t<Into>, V>,
                "odm: a member of the group key struct filled by a currency is a std::string, or a "
                "std::optional<std::string> for an optional Money's (a group of documents without it has null)");
  static_assert(!A, "odm: this field lies inside an array: $unwind the array before grouping by it");
  return {path.names()};
}

template <auto Into, class S, class V, bool A>
KeyPart<Into, S> key(const Path<S, V, A, false>& path) {
  static_assert(std::is_member_object_pointer_v<decltype(Into)>,
                "odm: a key part names the member of the key struct it fills: "
                "odm::agg::key<&Key::member>(odm::field(&Input::member))");
  static_assert(!A, "odm: this field lies inside an array: $unwind the array before grouping by it");
  static_assert(odm::detail::projectable<odm::detail::into_type_t<Into>, V>,
                "odm: a member of the group key struct has a different type than the field it is grouped by");
  return {path.names()};
}

/// The key of a $group: one field (`_id: "$f"`), or a struct of fields
/// (`_id: {a: "$f", b: "$g"}`). Scope is the group's input; Value what the result's
/// `id` member holds; Currency whether a Money's currency is part of it.
template <class Scope, class Value, std::size_t Parts = 0, bool Currency = false>
struct GroupKey {
  using scope_type = Scope;
  using value_type = Value;
  static constexpr bool has_currency = Currency;
  /// One field (Parts 0): its path. A compound key: its parts, in the order given.
  detail::PathNames single;
  std::array<detail::KeyField, Parts> parts;
};

/// Groups by one field: `_id: "$f"`; the result's `id` member has the field's type.
template <class S, class V, bool A>
GroupKey<S, V> by(const Path<S, V, A, false>& path) {
  static_assert(!A, "odm: this field lies inside an array: $unwind the array before grouping by it");
  return {path.names(), {}};
}

/// Groups by a Money's currency: `_id: "$f.currency"`.
template <class S, class V, bool A>
GroupKey<S, V, 0, true> by(const CurrencyPath<S, V, A>& path) {
  static_assert(!A, "odm: this field lies inside an array: $unwind the array before grouping by it");
  return {path.names(), {}};
}

/// Groups by several fields: `_id: {a: "$f", b: "$g"}`, read into the key struct K (the
/// type of the result's `id`); each member of K is filled by exactly one part.
template <auto First, class S, bool C, auto... More, bool... Cs>
GroupKey<S, odm::detail::into_model_t<First>, sizeof...(More) + 1, (C || ... || Cs)> by(
    const KeyPart<First, S, C>& first, const KeyPart<More, S, Cs>&... more) {
  using K = odm::detail::into_model_t<First>;
  static_assert((std::is_same_v<K, odm::detail::into_model_t<More>> && ...),
                "odm: every part of a group key fills a member of the same key struct");
  constexpr std::size_t indices[] = {odm::detail::member_index(First), odm::detail::member_index(More)...};
  static_assert(sizeof...(More) + 1 == odm::detail::member_count<K>,
                "odm: every member of the group key struct needs exactly one odm::agg::key<&Key::member>(...)");
  static_assert(
      [&] {
        for (std::size_t i = 0; i < std::size(indices); ++i)
          for (std::size_t j = i + 1; j < std::size(indices); ++j)
            if (indices[i] == indices[j]) return false;
        return true;
      }(),
      "odm: two parts of the group key fill the same member of the key struct");
  return {{},
          {odm::detail::KeyField{stored_names<K, false>[odm::detail::member_index(First)], first.source},
           odm::detail::KeyField{stored_names<K, false>[odm::detail::member_index(More)], more.source}...}};
}

/// The amount of a Money path: `total.value`, an odm::Decimal (odm/query/parts.hpp).
using odm::amount;
/// The currency of a Money path: `total.currency`, as odm::currency names it, as a path
/// whose group key lets the $group sum and average that Money.
template <class S, class M, bool A>
auto currency(const Path<S, M, A, false>& path) {
  static_assert(odm::detail::holds_one_of<M, Money>,
                "odm::agg::currency is the currency of an odm::Money in a group key, which lets the $group sum "
                "and average that Money; a DisplayMoney's amounts are not summed on the server (its approx is a "
                "double): group by odm::currency(path) as by any field");
  using Part = decltype(odm::currency(path));
  return CurrencyPath<S, typename Part::value_type, Part::through_array>(odm::currency(path).names());
}

/// One computed field of a `$set` / `$addFields`: the member Into of the output struct,
/// from a field of the input (`m: "$f"`) or a constant (`m: {$literal: v}`, Scope void).
template <auto Into, class Scope>
struct Assignment {
  static constexpr auto into = Into;
  using scope_type = Scope;
  /// "$f", or empty for a constant.
  std::string reference;
  /// Otherwise the value as an expression: `{"$literal": v}` for a constant, and for a
  /// member renamed in its expand phase `{$ifNull: ["$old", "$new"]}`, read as $group reads it.
  Document literal;
};

/// `m: "$f"`: the member Into takes the value of a field of the input.
template <auto Into, class S, class V, bool A>
Assignment<Into, S> assign(const Path<S, V, A, false>& path) {
  static_assert(std::is_member_object_pointer_v<decltype(Into)>,
                "odm: an assignment names the member of the output struct it fills: "
                "odm::agg::assign<&Output::member>(odm::field(&Input::member))");
  static_assert(!A, "odm: this field lies inside an array (its value would be an array): $unwind it first");
  static_assert(odm::detail::projectable<odm::detail::into_type_t<Into>, V>,
                "odm: the member an assignment fills has a different type than the field it copies");
  if (!path.names().previous_root.empty()) return {{}, odm::detail::either_name_value(path.names())};
  return {odm::detail::field_reference(path.names()), {}};
}

/// `m: {$literal: v}`: the member Into takes a constant (encoded by its type's codec).
template <auto Into>
Assignment<Into, void> constant(const odm::detail::into_type_t<Into>& value) {
  static_assert(std::is_member_object_pointer_v<decltype(Into)>,
                "odm: a constant names the member of the output struct it fills: odm::agg::constant<&Output::member>(v)");
  Assignment<Into, void> assignment;
  codec<odm::detail::into_type_t<Into>>::encode(assignment.literal.get_mutable(), "$literal", value);
  return assignment;
}

}  // namespace agg
}  // namespace odm
