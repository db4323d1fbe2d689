#pragma once
// Combining typed filters (the rules are applied where the filter is written, in
// odm/query/query.cpp):
//
//   a && b   MongoDB's implicit and when the conditions name different fields
//            ({_id: 1, available: {$gt: 0}}); `$and: [a, b, ...]` as soon as a key
//            would appear twice, so that no condition is lost:
//            (f > 1 && f < 5) is {$and: [{f: {$gt: 1}}, {f: {$lt: 5}}]}. Nested ands
//            are flattened.
//   a || b   {$or: [a, b]} (nested ors are flattened).
//   !a       {path: {$not: {...}}} when `a` is one operator condition on one field
//            (or a regex), which is what MongoDB's $not takes; {$nor: [a]} otherwise.
//            Both also match documents where the field is missing, exactly as MongoDB's
//            own $not and $nor do. !!a is a.
//   odm::nor(a, b, ...)   {$nor: [a, b, ...]}
//
// Inside elem_match and pull, conditions on the element itself take MongoDB's operator
// form ({$gte: 80, $lt: 85}, `!` as {$not: {...}}); || cannot be said there and throws.
//
// The conditions on single fields are built from paths: see query/path.hpp.

#include <odm/query/expression.hpp>

#include <type_traits>

namespace odm {

/// Both conditions: implicit and for different fields, `$and` when a field repeats.
template <class T>
Filter<T> operator&&(const Filter<T>& a, const Filter<T>& b) {
  using detail::QueryAccess;
  return QueryAccess::make<Filter<T>>(detail::all_of(QueryAccess::expression(a), QueryAccess::expression(b)));
}

/// Either condition: {$or: [a, b]}.
template <class T>
Filter<T> operator||(const Filter<T>& a, const Filter<T>& b) {
  using detail::QueryAccess;
  return QueryAccess::make<Filter<T>>(detail::any_of(QueryAccess::expression(a), QueryAccess::expression(b)));
}

/// Not the condition: `$not` on a single field's operator expression, `$nor` otherwise.
template <class T>
Filter<T> operator!(const Filter<T>& a) {
  return detail::QueryAccess::make<Filter<T>>(detail::negation(detail::QueryAccess::expression(a)));
}

/// None of the conditions: {$nor: [a, b, ...]}.
template <class T, class... More>
  requires(std::is_same_v<Filter<T>, More> && ...)
Filter<T> nor(const Filter<T>& first, const More&... more) {
  using detail::QueryAccess;
  return QueryAccess::make<Filter<T>>(
      detail::none_of({QueryAccess::expression(first), QueryAccess::expression(more)...}));
}

}  // namespace odm
