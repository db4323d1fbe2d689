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

inline std::vector<std::string> top_level_keys(const Document& document) {
  std::vector<std::string> keys;
  bson_iter_t it;
  if (bson_iter_init(&it, document.get()))
    while (next(it)) keys.emplace_back(iter_key(it));
  return keys;
}

/// The one key of a single-field document, or "" when it has none or several.
inline bool single_key(const Document& document, bson_iter_t& it) {
  if (!bson_iter_init(&it, document.get()) || !next(it)) return false;
  bson_iter_t after = it;
  return !next(after);
}

/// The operands of `op` that `document` contributes: the items of its array when it is
/// exactly `{op: [...]}`, otherwise the document itself.
inline void collect_operands(const Document& document, std::string_view op, std::vector<Document>& out) {
  bson_iter_t it;
  if (single_key(document, it) && iter_key(it) == op && BSON_ITER_HOLDS_ARRAY(&it)) {
    bson_iter_t item = recurse(it);
    while (next(item)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&item)) throw ValueError("odm: " + std::string(op) + " holds a non-document");
      std::uint32_t length = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_document(&item, &length, &data);
      bson_t view;
      if (!bson_init_static(&view, data, length)) throw ValueError("odm: malformed " + std::string(op) + " operand");
      out.push_back(Document::copy_of(&view));
    }
    return;
  }
  out.push_back(document);
}

/// {op: [operands...]}
inline Document logical(std::string_view op, const std::vector<Document>& operands) {
  Document out;
  bson_t array;
  check_append(bson_append_array_begin(out.get_mutable(), op.data(), key_length(op), &array));
  std::uint32_t index = 0;
  for (const auto& operand : operands) {
    const ArrayKey key(index++);
    check_append(bson_append_document(&array, key.view().data(), key_length(key.view()), operand.get()));
  }
  check_append(bson_append_array_end(out.get_mutable(), &array));
  return out;
}

inline Document and_documents(const Document& a, const Document& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  bson_iter_t it;
  const bool a_is_and = single_key(a, it) && iter_key(it) == "$and";
  const bool b_is_and = single_key(b, it) && iter_key(it) == "$and";
  auto a_keys = top_level_keys(a);
  auto b_keys = top_level_keys(b);
  std::sort(a_keys.begin(), a_keys.end());
  std::sort(b_keys.begin(), b_keys.end());
  std::vector<std::string> common;
  std::set_intersection(a_keys.begin(), a_keys.end(), b_keys.begin(), b_keys.end(), std::back_inserter(common));
  if (common.empty() && !a_is_and && !b_is_and) {
    Document out = a;
    check_append(bson_concat(out.get_mutable(), b.get()));
    return out;
  }
  std::vector<Document> operands;
  collect_operands(a, "$and", operands);
  collect_operands(b, "$and", operands);
  return logical("$and", operands);
}

inline Document or_documents(const Document& a, const Document& b) {
  if (a.empty() || b.empty()) return Document();  // one side matches everything
  std::vector<Document> operands;
  collect_operands(a, "$or", operands);
  collect_operands(b, "$or", operands);
  return logical("$or", operands);
}

/// Whether the value at `it` is an operator expression: a non-empty document whose keys
/// all start with '$'.
inline bool is_operator_expression(const bson_iter_t& it) {
  if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return false;
  bson_iter_t child = recurse(it);
  bool any = false;
  while (next(child)) {
    if (bson_iter_key(&child)[0] != '$') return false;
    any = true;
  }
  return any;
}

inline Document not_document(const Document& document) {
  bson_iter_t it;
  if (single_key(document, it) && bson_iter_key(&it)[0] != '$') {
    const std::string_view key = iter_key(it);
    Document out;
    if (is_operator_expression(it)) {
      bson_iter_t child = recurse(it);
      next(child);
      bson_iter_t after = child;
      if (iter_key(child) == "$not" && !next(after)) {
        // !!condition is the condition.
        check_append(bson_append_iter(out.get_mutable(), key.data(), key_length(key), &child));
        return out;
      }
    }
    if (is_operator_expression(it) || BSON_ITER_HOLDS_REGEX(&it)) {
      bson_t negated;
      check_append(bson_append_document_begin(out.get_mutable(), key.data(), key_length(key), &negated));
      check_append(bson_append_iter(&negated, "$not", 4, &it));
      check_append(bson_append_document_end(out.get_mutable(), &negated));
      return out;
    }
  }
  return logical("$nor", {document});
}

/// Whether a condition on the element itself (the empty key) occurs in `it`'s logical
/// operands ($and, $or, $nor arrays), at any depth.
inline bool has_element_key(const bson_iter_t& it) {
  if (!BSON_ITER_HOLDS_ARRAY(&it)) return false;
  bson_iter_t item = recurse(it);
  while (next(item)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&item)) continue;
    bson_iter_t inner = recurse(item);
    while (next(inner))
      if (bson_iter_key_len(&inner) == 0 || (bson_iter_key(&inner)[0] == '$' && has_element_key(inner))) return true;
  }
  return false;
}

/// A filter written in an element scope (elem_match, pull) as the document those
/// operators take. Conditions on the element itself were built under the empty key
/// ("" : {$gte: 80}); they become the operator form {$gte: 80, $lt: 85}. Conditions on
/// fields of a document element stay as they are.
inline Document element_condition(const Document& filter) {
  bool on_element = false;
  bool on_fields = false;
  Document operators;
  std::vector<std::string> seen;
  const auto add = [&](std::string_view op, const bson_iter_t& value) {
    if (std::find(seen.begin(), seen.end(), op) != seen.end())
      throw ValueError("odm: the element condition uses " + std::string(op) +
                       " twice; MongoDB's operator form can hold each operator once");
    seen.emplace_back(op);
    check_append(bson_append_iter(operators.get_mutable(), op.data(), key_length(op), &value));
  };
  const auto element_clause = [&](const bson_iter_t& it) {
    on_element = true;
    if (is_operator_expression(it)) {
      bson_iter_t child = recurse(it);
      while (next(child)) add(iter_key(child), child);
    } else if (BSON_ITER_HOLDS_REGEX(&it)) {
      // {$regex: "pattern", $options: "i"}: the spelling Extended JSON can carry too.
      const char* options = nullptr;
      const char* pattern = bson_iter_regex(&it, &options);
      Document parts;
      check_append(bson_append_utf8(parts.get_mutable(), "$regex", 6, pattern, -1));
      if (options != nullptr && *options != '\0')
        check_append(bson_append_utf8(parts.get_mutable(), "$options", 8, options, -1));
      bson_iter_t part;
      bson_iter_init(&part, parts.get());
      while (next(part)) add(iter_key(part), part);
    } else {
      add("$eq", it);
    }
  };
  bson_iter_t it;
  if (!bson_iter_init(&it, filter.get())) throw ValueError("odm: malformed element condition");
  while (next(it)) {
    const std::string_view key = iter_key(it);
    if (key.empty()) {
      element_clause(it);
    } else if (key == "$and" && BSON_ITER_HOLDS_ARRAY(&it)) {
      bool all_on_element = true;
      bson_iter_t item = recurse(it);
      while (next(item)) {
        bson_iter_t inner;
        if (!BSON_ITER_HOLDS_DOCUMENT(&item) || !bson_iter_recurse(&item, &inner)) {
          all_on_element = false;
          break;
        }
        while (next(inner))
          if (iter_key(inner).size() != 0) all_on_element = false;
      }
      if (!all_on_element) {
        on_fields = true;
        if (has_element_key(it)) on_element = true;
        continue;
      }
      item = recurse(it);
      while (next(item)) {
        bson_iter_t inner = recurse(item);
        while (next(inner)) element_clause(inner);
      }
    } else {
      on_fields = true;
      if (key.front() == '$' && has_element_key(it)) on_element = true;
    }
  }
  if (on_element && on_fields)
    throw ValueError("odm: an element condition mixes conditions on the element itself with conditions on its "
                     "fields, or combines element conditions with || or !; MongoDB cannot express that");
  return on_element ? operators : filter;
}

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
