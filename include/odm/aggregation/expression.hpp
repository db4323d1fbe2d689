#pragma once
// Typed aggregation expressions: the arithmetic, conditions, strings and dates that
// `$set`/`$addFields`, `$group`'s accumulators and `$match`'s `$expr` compute. Each
// expression knows the struct whose fields it reads (its scope) and the C++ type of its
// value, so a line's revenue is written and checked like a filter:
//
//   namespace agg = odm::agg;
//   const auto revenue = agg::multiply(agg::value(odm::field(&Line::quantity)),
//                                      agg::value(odm::amount(odm::field(&Line::unit_price))));
//                                                // Expr<Line, odm::Decimal>: an int times a Decimal
//   odm::pipeline<Line>()
//       .set<Priced>(agg::compute<&Priced::revenue>(revenue))                // {$set: {revenue: {$multiply: [...]}}}
//       .match(agg::where(agg::gt(agg::value(odm::field(&Priced::revenue)), odm::Decimal("100"))))
//       .group<Report>(agg::by(odm::field(&Priced::product)), agg::sum<&Report::total>(...));
//
// The types follow MongoDB's results: integers (int32, int64) combine into a
// std::int64_t, with a double into a double, with an odm::Decimal into an odm::Decimal;
// $divide of integers is a double. Money stays exact: an odm::Decimal never meets a
// double (a compile error: the guides' rule, no binary floating point in money), and an
// odm::Money is reached through odm::amount(path). A string and a number do not add,
// compare or concatenate. An operand that may be null (a std::optional) makes the result
// optional, since MongoDB's arithmetic on null or a missing field is null.
//
// Literals are written as `{$literal: v}`, so a string value never reads as a field path.

#include <odm/aggregation/group.hpp>
#include <odm/bson/codec.hpp>
#include <odm/bson/document.hpp>
#include <odm/fields/decimal.hpp>
#include <odm/query/expression.hpp>
#include <odm/query/path.hpp>
#include <odm/reflect/members.hpp>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace odm {
namespace detail {

/// An expression's BSON: a field reference ("$a.b"), or a value (an operator document,
/// `{$literal: v}`) held as the one element of `holder` under the key "v".
struct ExprValue {
  std::string reference;
  Document holder;
};

/// `{op: [args...]}` as an ExprValue; `{op: arg}` when `single` (operators of one argument).
ExprValue operator_expression(std::string_view op, std::initializer_list<const ExprValue*> args, bool single = false);
/// `{$dateTrunc: {date: d, unit: "month"}}`.
ExprValue date_trunc_expression(const ExprValue& date, std::string_view unit);
/// A plain int32 operand (what $round takes as its number of places).
ExprValue int32_expression(std::int32_t value);
/// Appends an expression as `key: value` (in aggregation.cpp).
void append_expression(bson_t* out, std::string_view key, const ExprValue& value);

template <class V>
inline constexpr bool is_integer_value = std::is_same_v<V, std::int32_t> || std::is_same_v<V, std::int64_t>;
template <class V>
inline constexpr bool is_number_value = is_integer_value<V> || std::is_same_v<V, double> || std::is_same_v<V, Decimal>;

template <class T>
struct is_time_point_value : std::false_type {};
template <class D>
struct is_time_point_value<std::chrono::time_point<std::chrono::system_clock, D>> : std::true_type {};

/// The scope of an expression reading two others: the struct both read (void reads none).
template <class A, class B>
struct common_scope {
  static_assert(std::is_void_v<A> || std::is_void_v<B> || std::is_same_v<A, B>,
                "odm: an expression combines fields of two different structs; an expression reads the documents "
                "of one stage (the output of the stage before): build every path from that struct's members");
  using type = std::conditional_t<std::is_void_v<A>, B, A>;
};

/// `R`, made optional when either operand may be null.
template <class A, class B, class R>
using null_if_either_t = std::conditional_t<is_optional<A> || is_optional<B>, std::optional<R>, R>;

/// What $add, $subtract and $multiply of A and B give (MongoDB's numeric widening).
template <class A, class B>
struct arithmetic_result {
  using X = strip_optional_t<A>;
  using Y = strip_optional_t<B>;
  static_assert(is_number_value<X> && is_number_value<Y>,
                "odm: arithmetic in an aggregation expression takes numbers (std::int32_t, std::int64_t, double, "
                "odm::Decimal; an odm::Money's amount through odm::amount(path)); a string or another type does not "
                "add, subtract, multiply or divide");
  static_assert(!((std::is_same_v<X, Decimal> && std::is_same_v<Y, double>) ||
                  (std::is_same_v<X, double> && std::is_same_v<Y, Decimal>)),
                "odm: this expression mixes an odm::Decimal and a double: the double's binary rounding would enter "
                "an exact amount (the money guides: no floating point in money arithmetic); use an odm::Decimal or "
                "an integer instead of the double");
  using Base = std::conditional_t<std::is_same_v<X, Decimal> || std::is_same_v<Y, Decimal>, Decimal,
                                  std::conditional_t<std::is_same_v<X, double> || std::is_same_v<Y, double>, double,
                                                     std::int64_t>>;
  using type = null_if_either_t<A, B, Base>;
};

/// What $divide gives: integers divide into a double.
template <class A, class B>
struct division_result {
  using Wide = typename arithmetic_result<A, B>::Base;
  using Base = std::conditional_t<std::is_same_v<Wide, std::int64_t>, double, Wide>;
  using type = null_if_either_t<A, B, Base>;
};

/// Whether values of A and B can be compared: numbers with numbers (but an odm::Decimal
/// not with a double, whose binary value is not the decimal written: 0.1 != 0.1), dates
/// with dates, else the same type.
template <class A, class B>
inline constexpr bool comparable_values = [] {
  using X = strip_optional_t<A>;
  using Y = strip_optional_t<B>;
  if constexpr (is_number_value<X> && is_number_value<Y>)
    return !((std::is_same_v<X, Decimal> && std::is_same_v<Y, double>) ||
             (std::is_same_v<X, double> && std::is_same_v<Y, Decimal>));
  else if constexpr (is_time_point_value<X>::value && is_time_point_value<Y>::value)
    return true;
  else
    return std::is_same_v<X, Y>;
}();

/// Whether V is one of odm's money types, which are sub-documents on the server: ordered
/// field by field (5 USD before 7 EUR), and no number to accumulate.
template <class V>
inline constexpr bool is_money_value =
    std::is_same_v<strip_optional_t<V>, Money> || std::is_same_v<strip_optional_t<V>, DisplayMoney>;

}  // namespace detail

namespace agg {

/// An aggregation expression over documents of Scope (void: it reads no field) whose value
/// is of type V. Made by agg::value, agg::literal and the operators below.
template <class Scope, class V>
class Expr {
 public:
  using scope_type = Scope;
  using value_type = V;

  explicit Expr(odm::detail::ExprValue value) : value_(std::move(value)) {}
  const odm::detail::ExprValue& bson() const noexcept { return value_; }

 private:
  odm::detail::ExprValue value_;
};

/// The value of a field: `"$a.b"` (a member renamed in its expand phase reads either name).
/// Throws odm::ValueError for a field inside an optional sub-document whose own type cannot
/// hold null (a document without the sub-document gives null there): use value_or.
template <class S, class V, bool A>
Expr<S, V> value(const Path<S, V, A, false>& path) {
  static_assert(!A, "odm: this field lies inside an array (its value would be an array): $unwind it first");
  if (path.names().through_optional && !odm::detail::is_optional<V>)
    throw ValueError("odm::agg::value: the field " + path.names().dotted() +
                     " lies inside an optional sub-document, so a document without it gives null, which this "
                     "expression's type cannot hold: use odm::agg::value_or(path, fallback)");
  if (!path.names().previous_root.empty()) {
    odm::detail::ExprValue either;
    const Document value = odm::detail::either_name_value(path.names());
    odm::detail::check_append(bson_append_document(either.holder.get_mutable(), "v", 1, value.get()));
    return Expr<S, V>(std::move(either));
  }
  return Expr<S, V>(odm::detail::ExprValue{odm::detail::field_reference(path.names()), {}});
}

namespace detail_expr {
/// The type a constant is stored as: an integer as int32 or int64 by its size (5LL is a
/// long long, which is not std::int64_t on every platform).
template <class V>
using constant_t =
    std::conditional_t<std::is_integral_v<V> && !std::is_same_v<V, bool>,
                       std::conditional_t<(sizeof(V) <= 4), std::int32_t, std::int64_t>, V>;
}  // namespace detail_expr

/// A constant: `{$literal: v}`, encoded by its type's codec.
template <class V>
Expr<void, detail_expr::constant_t<V>> literal(const V& v) {
  using C = detail_expr::constant_t<V>;
  odm::detail::ExprValue out;
  odm::detail::ChildWriter wrapper(out.holder.get_mutable(), "v");
  codec<C>::encode(wrapper.get(), "$literal", static_cast<C>(v));
  wrapper.close();
  return Expr<void, C>(std::move(out));
}
inline Expr<void, std::string> literal(const char* text) { return literal(std::string(text)); }

namespace detail_expr {
/// An operand: an expression, a path (its field's value) or a constant.
template <class X>
auto operand(const X& x) {
  if constexpr (requires { typename X::scope_type; typename X::value_type; &X::bson; })
    return x;
  else if constexpr (requires { x.names(); X::positional; })
    return value(x);
  else if constexpr (std::is_convertible_v<X, std::string_view> && !std::is_same_v<X, std::string>)
    return literal(std::string(x));
  else
    return literal(x);
}
template <class X>
using operand_t = decltype(operand(std::declval<const X&>()));
template <class X>
using scope_of = typename operand_t<X>::scope_type;
template <class X>
using value_of = typename operand_t<X>::value_type;
template <class A, class B>
using scope2 = typename odm::detail::common_scope<scope_of<A>, scope_of<B>>::type;
/// The scope of an expression reading all of its operands.
template <class... S>
struct scope_of_all {
  using type = void;
};
template <class S, class... More>
struct scope_of_all<S, More...> {
  using type = typename odm::detail::common_scope<S, typename scope_of_all<More...>::type>::type;
};

template <class R, class S, class A, class B>
Expr<S, R> binary(std::string_view op, const A& a, const B& b) {
  const auto x = operand(a);
  const auto y = operand(b);
  return Expr<S, R>(odm::detail::operator_expression(op, {&x.bson(), &y.bson()}));
}
template <class R, class S, class A>
Expr<S, R> unary(std::string_view op, const A& a) {
  const auto x = operand(a);
  return Expr<S, R>(odm::detail::operator_expression(op, {&x.bson()}, true));
}
}  // namespace detail_expr

/// `{$add: [a, b]}`. Each operand is an Expr, a typed path, or a constant.
template <class A, class B>
auto add(const A& a, const B& b) {
  using namespace detail_expr;
  using R = typename odm::detail::arithmetic_result<value_of<A>, value_of<B>>::type;
  return binary<R, scope2<A, B>>("$add", a, b);
}
/// `{$subtract: [a, b]}`.
template <class A, class B>
auto subtract(const A& a, const B& b) {
  using namespace detail_expr;
  using R = typename odm::detail::arithmetic_result<value_of<A>, value_of<B>>::type;
  return binary<R, scope2<A, B>>("$subtract", a, b);
}
/// `{$multiply: [a, b]}`.
template <class A, class B>
auto multiply(const A& a, const B& b) {
  using namespace detail_expr;
  using R = typename odm::detail::arithmetic_result<value_of<A>, value_of<B>>::type;
  return binary<R, scope2<A, B>>("$multiply", a, b);
}
/// `{$divide: [a, b]}`: integers divide into a double, a Decimal into a Decimal. A zero
/// divisor is the server's error (odm::ServerError when the pipeline runs).
template <class A, class B>
auto divide(const A& a, const B& b) {
  using namespace detail_expr;
  using R = typename odm::detail::division_result<value_of<A>, value_of<B>>::type;
  return binary<R, scope2<A, B>>("$divide", a, b);
}
/// `{$round: [x, places]}`: half to even, as MongoDB rounds; of the type of x (integers:
/// std::int64_t). `places` from -20 to 100.
template <class A>
auto round(const A& a, std::int32_t places = 0) {
  using namespace detail_expr;
  using V = value_of<A>;
  using X = odm::detail::strip_optional_t<V>;
  static_assert(odm::detail::is_number_value<X>, "odm: $round rounds a number");
  if (places < -20 || places > 100)
    throw ValueError("odm::agg::round: MongoDB rounds to -20 to 100 places, not " + std::to_string(places));
  using Base = std::conditional_t<odm::detail::is_integer_value<X>, std::int64_t, X>;
  using R = std::conditional_t<odm::detail::is_optional<V>, std::optional<Base>, Base>;
  const auto x = operand(a);
  const odm::detail::ExprValue digits = odm::detail::int32_expression(places);
  return Expr<scope_of<A>, R>(odm::detail::operator_expression("$round", {&x.bson(), &digits}));
}

/// `{$cond: [if, then, else]}`: both branches of one type.
template <class C, class A, class B>
auto cond(const C& condition, const A& then, const B& otherwise) {
  using namespace detail_expr;
  static_assert(std::is_same_v<value_of<C>, bool>, "odm: the condition of $cond is a bool expression (agg::gt, ...)");
  static_assert(std::is_same_v<value_of<A>, value_of<B>>,
                "odm: both branches of $cond have one type (write the literal in the type of the other branch)");
  using S = typename odm::detail::common_scope<scope_of<C>, scope2<A, B>>::type;
  const auto c = operand(condition);
  const auto x = operand(then);
  const auto y = operand(otherwise);
  return Expr<S, value_of<A>>(odm::detail::operator_expression("$cond", {&c.bson(), &x.bson(), &y.bson()}));
}

/// `{$ifNull: [x, fallback]}`: x's value, or the fallback where it is null or missing.
template <class A, class B>
auto if_null(const A& a, const B& fallback) {
  using namespace detail_expr;
  static_assert(odm::detail::is_optional<value_of<A>>,
                "odm: $ifNull replaces a null value: its first operand is a field or expression that may be null "
                "(a std::optional)");
  using X = odm::detail::strip_optional_t<value_of<A>>;
  static_assert(std::is_same_v<X, value_of<B>>, "odm: the fallback of $ifNull has the type of the value it replaces");
  return binary<X, scope2<A, B>>("$ifNull", a, fallback);
}

/// `{$ifNull: ["$a.b", fallback]}`: a field that may be missing (inside an optional
/// sub-document, or absent from older documents) with a value where it is.
template <class S, class V, bool A, class B>
auto value_or(const Path<S, V, A, false>& path, const B& fallback) {
  static_assert(!A, "odm: this field lies inside an array (its value would be an array): $unwind it first");
  using namespace detail_expr;
  using X = odm::detail::strip_optional_t<V>;
  static_assert(std::is_same_v<X, value_of<B>>, "odm: the fallback of value_or has the type of the field");
  odm::detail::PathNames names = path.names();
  names.through_optional = false;  // the fallback stands in for null
  const Expr<S, V> field = value(Path<S, V, A, false>(names));
  const auto other = operand(fallback);
  return Expr<typename odm::detail::common_scope<S, scope_of<B>>::type, X>(
      odm::detail::operator_expression("$ifNull", {&field.bson(), &other.bson()}));
}

/// `{$concat: [a, b, ...]}`: strings only (a number does not concatenate: MongoDB refuses it).
template <class A, class... More>
auto concat(const A& a, const More&... more) {
  using namespace detail_expr;
  static_assert((std::is_same_v<odm::detail::strip_optional_t<value_of<A>>, std::string> && ... &&
                 std::is_same_v<odm::detail::strip_optional_t<value_of<More>>, std::string>),
                "odm: $concat joins strings; a number or another type does not concatenate (MongoDB refuses it): "
                "convert it first, or keep it in a field of its own");
  using Scope = typename scope_of_all<scope_of<A>, scope_of<More>...>::type;
  constexpr bool nullable = (odm::detail::is_optional<value_of<A>> || ... || odm::detail::is_optional<value_of<More>>);
  using R = std::conditional_t<nullable, std::optional<std::string>, std::string>;
  const auto first = operand(a);
  const std::tuple rest{operand(more)...};
  return std::apply(
      [&](const auto&... others) {
        return Expr<Scope, R>(odm::detail::operator_expression("$concat", {&first.bson(), &others.bson()...}));
      },
      rest);
}

namespace detail_expr {
template <class A>
auto date_part(std::string_view op, const A& date) {
  using V = value_of<A>;
  static_assert(odm::detail::is_time_point_value<odm::detail::strip_optional_t<V>>::value,
                "odm: a date part ($year, $month, ...) reads a date: a std::chrono::sys_time member");
  using R = std::conditional_t<odm::detail::is_optional<V>, std::optional<std::int32_t>, std::int32_t>;
  return unary<R, scope_of<A>>(op, date);
}
}  // namespace detail_expr

/// `{$year: d}`, `{$month: d}` (1-12), `{$dayOfMonth: d}` (1-31), `{$hour: d}`: a
/// std::int32_t, in UTC.
template <class A>
auto year(const A& date) {
  return detail_expr::date_part("$year", date);
}
template <class A>
auto month(const A& date) {
  return detail_expr::date_part("$month", date);
}
template <class A>
auto day_of_month(const A& date) {
  return detail_expr::date_part("$dayOfMonth", date);
}
template <class A>
auto hour(const A& date) {
  return detail_expr::date_part("$hour", date);
}

/// The units of $dateTrunc.
enum class DateUnit { year, quarter, month, week, day, hour, minute, second };

/// `{$dateTrunc: {date: d, unit: "month"}}` (MongoDB 5.0): the start of the unit holding d,
/// in UTC; of d's type. A week starts on Sunday, as MongoDB's default.
template <class A>
auto date_trunc(const A& date, DateUnit unit) {
  using namespace detail_expr;
  using V = value_of<A>;
  static_assert(odm::detail::is_time_point_value<odm::detail::strip_optional_t<V>>::value,
                "odm: $dateTrunc truncates a date: a std::chrono::sys_time member");
  constexpr std::string_view names[] = {"year", "quarter", "month", "week", "day", "hour", "minute", "second"};
  const auto d = operand(date);
  return Expr<scope_of<A>, V>(odm::detail::date_trunc_expression(d.bson(), names[static_cast<int>(unit)]));
}

namespace detail_expr {
template <bool Ordering, class A, class B>
auto comparison(std::string_view op, const A& a, const B& b) {
  static_assert(odm::detail::comparable_values<value_of<A>, value_of<B>>,
                "odm: this comparison is between values of different kinds (a string and a number, a date and a "
                "string, an odm::Decimal and a double...): MongoDB orders them by type, or compares a double's "
                "binary value with the decimal, so it would not mean what it says");
  static_assert(!Ordering || !odm::detail::is_money_value<value_of<A>>,
                "odm: an odm::Money is a sub-document, which MongoDB orders field by field (5 USD before 7 EUR): "
                "compare odm::amount(path) of amounts in one currency instead");
  return binary<bool, scope2<A, B>>(op, a, b);
}
}  // namespace detail_expr

/// `{$eq: [a, b]}` ... `{$gte: [a, b]}`: a bool. Numbers compare with numbers, other
/// values with values of their own type.
template <class A, class B>
auto eq(const A& a, const B& b) {
  return detail_expr::comparison<false>("$eq", a, b);
}
template <class A, class B>
auto ne(const A& a, const B& b) {
  return detail_expr::comparison<false>("$ne", a, b);
}
template <class A, class B>
auto lt(const A& a, const B& b) {
  return detail_expr::comparison<true>("$lt", a, b);
}
template <class A, class B>
auto lte(const A& a, const B& b) {
  return detail_expr::comparison<true>("$lte", a, b);
}
template <class A, class B>
auto gt(const A& a, const B& b) {
  return detail_expr::comparison<true>("$gt", a, b);
}
template <class A, class B>
auto gte(const A& a, const B& b) {
  return detail_expr::comparison<true>("$gte", a, b);
}

/// `{$and: [a, b]}`, `{$or: [a, b]}`, `{$not: [a]}` of bool expressions.
template <class A, class B>
auto both(const A& a, const B& b) {
  using namespace detail_expr;
  static_assert(std::is_same_v<value_of<A>, bool> && std::is_same_v<value_of<B>, bool>, "odm: $and joins bool expressions");
  return binary<bool, scope2<A, B>>("$and", a, b);
}
template <class A, class B>
auto either(const A& a, const B& b) {
  using namespace detail_expr;
  static_assert(std::is_same_v<value_of<A>, bool> && std::is_same_v<value_of<B>, bool>, "odm: $or joins bool expressions");
  return binary<bool, scope2<A, B>>("$or", a, b);
}
template <class A>
auto negate(const A& a) {
  using namespace detail_expr;
  static_assert(std::is_same_v<value_of<A>, bool>, "odm: $not negates a bool expression");
  const auto x = operand(a);
  return Expr<scope_of<A>, bool>(odm::detail::operator_expression("$not", {&x.bson()}));
}

/// `m: <expression>` in a `$set`/`$addFields`: the member Into takes the expression's value.
template <auto Into, class S, class V>
Assignment<Into, S> compute(const Expr<S, V>& expression) {
  static_assert(std::is_member_object_pointer_v<decltype(Into)>,
                "odm: a computed field names the member of the output struct it fills: "
                "odm::agg::compute<&Output::member>(expression)");
  static_assert(std::is_same_v<odm::detail::into_type_t<Into>, V> ||
                    std::is_same_v<odm::detail::into_type_t<Into>, std::optional<V>>,
                "odm: the member a computed field fills has another type than the expression's value (integers "
                "combine into std::int64_t, with a double into double, with an odm::Decimal into odm::Decimal; "
                "integers divide into double; an operand that may be null makes it std::optional)");
  const odm::detail::ExprValue& value = expression.bson();
  if (!value.reference.empty()) return {value.reference, {}};
  bson_iter_t it;
  bson_iter_init_find(&it, value.holder.get(), "v");
  return {{}, odm::detail::copy_held_document(it)};
}

/// An accumulator of a `$group` over an expression: fills Into from the expression's value
/// in each document of Scope (agg::sum<&R::m>(expression), ...).
template <auto Into, class Scope>
struct ExprAccumulator {
  static constexpr auto into = Into;
  static constexpr bool of_money = false;
  using scope_type = Scope;
  Accumulate op;
  odm::detail::ExprValue expression;
};

namespace detail_expr {
template <Accumulate Op, auto Into, class S, class V>
ExprAccumulator<Into, S> accumulate(const Expr<S, V>& expression) {
  static_assert(std::is_member_object_pointer_v<decltype(Into)>,
                "odm: an accumulator names the member of the $group's result struct it fills: "
                "odm::agg::sum<&Result::member>(expression)");
  static_assert(!odm::detail::is_money_value<V>,
                "odm: an accumulator over an expression whose value is an odm::Money would read its sub-document: "
                "accumulate the field itself (odm::agg::sum<&R::m>(odm::field(...)), in a $group keyed by its "
                "currency), or odm::amount(path) inside the expression");
  detail_checks::check_accumulator<Op, Into, V>();
  return {Op, expression.bson()};
}
}  // namespace detail_expr

/// `{$sum: expression}` (written `{$sum: {$ifNull: [expression, zero]}}` as a field's sum
/// is), `{$avg: ...}`, `{$min: ...}`, `{$max: ...}`, with the types a field's have.
template <auto Into, class S, class V>
auto sum(const Expr<S, V>& expression) {
  return detail_expr::accumulate<Accumulate::sum, Into>(expression);
}
template <auto Into, class S, class V>
auto avg(const Expr<S, V>& expression) {
  return detail_expr::accumulate<Accumulate::avg, Into>(expression);
}
template <auto Into, class S, class V>
auto min(const Expr<S, V>& expression) {
  return detail_expr::accumulate<Accumulate::min, Into>(expression);
}
template <auto Into, class S, class V>
auto max(const Expr<S, V>& expression) {
  return detail_expr::accumulate<Accumulate::max, Into>(expression);
}

/// The key of a `$group` that is an expression (agg::by(expression)): the result's `id`
/// member holds its value.
template <class Scope, class Value>
struct ExprGroupKey {
  odm::detail::ExprValue expression;
};
template <class S, class V>
ExprGroupKey<S, V> by(const Expr<S, V>& expression) {
  static_assert(!std::is_void_v<S>, "odm: a group key that reads no field puts every document in one group: "
                                    "group without a key instead (group<R>(accumulators...))");
  return {expression.bson()};
}

/// A `$match` of `{$expr: condition}`: documents for which a bool expression is true.
/// (In an expression a missing field is not null: `eq(field, std::nullopt)` does not match
/// a document without the field, as a find's `{field: null}` would.)
template <class S, class V>
Filter<S> where(const Expr<S, V>& condition) {
  static_assert(std::is_same_v<V, bool>, "odm: $expr in a $match is a bool expression (agg::gt, agg::eq, ...)");
  static_assert(!std::is_void_v<S>, "odm: this condition reads no field; compare a field (agg::value(odm::field(...)))");
  Document filter;
  odm::detail::append_expression(filter.get_mutable(), "$expr", condition.bson());
  return Filter<S>::raw(std::move(filter));
}
/// `{$expr: "$flag"}` of a bool field.
template <class S, bool A>
Filter<S> where(const Path<S, bool, A, false>& flag) {
  return where(value(flag));
}

}  // namespace agg
}  // namespace odm
