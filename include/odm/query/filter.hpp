#pragma once
// Combining typed filters:
//
//   a && b   MongoDB's implicit and when the two filters name different fields
//            ({_id: 1, available: {$gt: 0}}); `$and: [a, b]` as soon as a field
//            appears in both, so that neither condition is lost:
//            (f > 1 && f < 5) is {$and: [{f: {$gt: 1}}, {f: {$lt: 5}}]}, and a
//            further `&& g == 1` joins that $and.
//   a || b   {$or: [a, b]} (nested ors are flattened).
//   !a       {path: {$not: {...}}} when `a` is one operator condition on one field
//            (or a regex), which is what MongoDB's $not takes; {$nor: [a]} otherwise.
//            Both also match documents where the field is missing, exactly as MongoDB's
//            own $not and $nor do.
//   odm::nor(a, b, ...)   {$nor: [a, b, ...]}
//
// The conditions on single fields are built from paths: see query/path.hpp.

#include <odm/bson/codec.hpp>
#include <odm/bson/scalars.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/document.hpp>
#include <odm/error.hpp>
#include <odm/query/expression.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace odm {
namespace detail {

inline std::string_view iter_key(const bson_iter_t& it) { return {bson_iter_key(&it), bson_iter_key_len(&it)}; }

std::vector<std::string> top_level_keys(const Document& document);

/// The one key of a single-field document, or "" when it has none or several.
bool single_key(const Document& document, bson_iter_t& it);

/// The operands of `op` that `document` contributes: the items of its array when it is
/// exactly `{op: [...]}`, otherwise the document itself.
void collect_operands(const Document& document, std::string_view op, std::vector<Document>& out);

/// {op: [operands...]}
Document logical(std::string_view op, const std::vector<Document>& operands);

Document and_documents(const Document& a, const Document& b);

Document or_documents(const Document& a, const Document& b);

/// Whether the value at `it` is an operator expression: a non-empty document whose keys
/// all start with '$'.
bool is_operator_expression(const bson_iter_t& it);

Document not_document(const Document& document);

/// Whether a condition on the element itself (the empty key) occurs in `it`'s logical
/// operands ($and, $or, $nor arrays), at any depth.
bool has_element_key(const bson_iter_t& it);

/// A filter written in an element scope (elem_match, pull) as the document those
/// operators take. Conditions on the element itself were built under the empty key
/// ("" : {$gte: 80}); they become the operator form {$gte: 80, $lt: 85}. Conditions on
/// fields of a document element stay as they are.
Document element_condition(const Document& filter);

}  // namespace detail

/// Both conditions: implicit and for different fields, `$and` when a field repeats.
template <class T>
Filter<T> operator&&(const Filter<T>& a, const Filter<T>& b) {
  return detail::QueryAccess::make<Filter<T>>(detail::and_documents(a.bson(), b.bson()));
}

/// Either condition: {$or: [a, b]}.
template <class T>
Filter<T> operator||(const Filter<T>& a, const Filter<T>& b) {
  return detail::QueryAccess::make<Filter<T>>(detail::or_documents(a.bson(), b.bson()));
}

/// Not the condition: `$not` on a single field's operator expression, `$nor` otherwise.
template <class T>
Filter<T> operator!(const Filter<T>& a) {
  return detail::QueryAccess::make<Filter<T>>(detail::not_document(a.bson()));
}

/// None of the conditions: {$nor: [a, b, ...]}.
template <class T, class... More>
  requires(std::is_same_v<Filter<T>, More> && ...)
Filter<T> nor(const Filter<T>& first, const More&... more) {
  return detail::QueryAccess::make<Filter<T>>(detail::logical("$nor", {first.bson(), more.bson()...}));
}

}  // namespace odm
